"""Shell command analysis for the permission policy: parse, then judge every simple command.

The command is parsed with tree-sitter-bash into every simple command — inside ``&&``,
``||``, ``;``, pipes, subshells, ``{ }``, ``$( )``, backticks, process substitutions,
here-documents, functions and loops — after quote removal (``r''m`` is ``rm``) and unwrapping
of ``command``, ``env``, ``nohup``, ``timeout``, ``xargs``, ``find -exec``, … down to the
program that really runs. A command is read-only only if every part is on the read-only list
with harmless flags and no redirection writes a file; dangerous parts (see ``shell_rules``)
are listed with a reason; anything tree-sitter cannot parse, or a program name known only at
run time (``$(echo rm)``), makes the whole command ask.

**This analysis only decides whether to ask.** It is not a sandbox: an approved command runs
with the user's permissions, and a determined script can always do what it likes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from toolbelt.permissions.shell_flags import file_arguments, flags_readonly, unsafe_git_flag
from toolbelt.permissions.shell_rules import (
    DANGEROUS_PROGRAMS,
    FILE_READERS,
    GIT_DANGEROUS,
    GIT_READONLY,
    GIT_SAFE_GLOBALS,
    INTERPRETERS,
    READONLY_PROGRAMS,
    SAFE_VARIABLES,
    SHELLS,
    WRAPPERS,
)

__all__ = ["ShellAnalysis", "SimpleCommand", "analyze_command"]

_WRITE_OPS = {">", ">>", "&>", "&>>", ">|", "<>"}
_HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr"}
_DYNAMIC = {
    "simple_expansion",
    "expansion",
    "command_substitution",
    "process_substitution",
    "arithmetic_expansion",
}


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command: its words, the program that really runs, and whether it is static."""

    text: str
    argv: tuple[str, ...]
    program: str
    dynamic: bool


@dataclass(frozen=True, slots=True)
class ShellAnalysis:
    """The verdict for a whole command line."""

    commands: tuple[SimpleCommand, ...]
    parse_ok: bool
    readonly: bool
    dangerous: tuple[str, ...]
    write_targets: tuple[str, ...]
    read_targets: tuple[str, ...] = ()
    """Files read-only programs read, as written (after any ``cd`` in the command); the tool
    resolves them against its cwd so reads outside the workspace ask and read rules apply."""


@dataclass
class _Walk:
    source: bytes
    commands: list[SimpleCommand] = field(default_factory=list)
    dangerous: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    readonly: bool = True
    base: str = ""
    """Where relative paths point after the ``cd`` commands seen so far ("" = the cwd)."""

    def at(self, path: str) -> str:
        """``path`` as seen from the command's starting directory."""
        if not self.base or path.startswith(("/", "~")):
            return path
        return os.path.join(self.base, path)


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


@lru_cache(maxsize=512)
def analyze_command(command: str) -> ShellAnalysis:
    """Parse ``command`` and judge each part (cached: the policy and the tool both ask)."""
    source = command.encode()
    tree = _parser().parse(source)
    walk = _Walk(source)
    _visit(tree.root_node, walk)
    parse_ok = not tree.root_node.has_error
    dangerous = tuple(dict.fromkeys(walk.dangerous))
    if not parse_ok:
        walk.readonly = False
    return ShellAnalysis(
        tuple(walk.commands),
        parse_ok,
        walk.readonly and not dangerous,
        dangerous,
        tuple(dict.fromkeys(walk.writes)),
        tuple(dict.fromkeys(walk.reads)),
    )


def _visit(node: Any, walk: _Walk) -> None:
    kind = node.type
    if kind == "command":
        _judge(node, walk)
    elif kind == "file_redirect":
        _redirect(node, walk)
    elif kind == "pipeline":
        _pipeline(node, walk)
    elif kind == "heredoc_redirect":
        _heredoc(node, walk)
    elif kind == "variable_assignment":
        _assignment(_text(node.children[0], walk) if node.children else "", walk)
    elif kind in ("function_definition",):
        walk.readonly = False
    for child in node.children:
        _visit(child, walk)


def _text(node: Any, walk: _Walk) -> str:
    return walk.source[node.start_byte : node.end_byte].decode(errors="replace")


def _word(node: Any, walk: _Walk) -> tuple[str, bool]:
    """The static value of a word after quote removal, and whether it is dynamic."""
    kind = node.type
    if kind in _DYNAMIC:
        return _text(node, walk), True
    if kind == "raw_string":
        return _text(node, walk)[1:-1], False
    if kind == "ansi_c_string":
        return _text(node, walk)[2:-1], False
    if kind in ("string", "concatenation"):
        parts, dynamic = [], False
        for child in node.children:
            if child.type == '"':
                continue
            value, child_dynamic = _word(child, walk)
            parts.append(value)
            dynamic = dynamic or child_dynamic
        return "".join(parts), dynamic
    if kind == "string_content":
        return _text(node, walk), False
    text = _text(node, walk)
    return (text.replace("\\", "") if kind == "word" else text), False


def _judge(node: Any, walk: _Walk) -> None:
    words: list[str] = []
    dynamic_words: list[bool] = []
    dynamic = False
    for child in node.children:
        if child.type == "variable_assignment":
            continue
        if child.type == "command_name":
            value, is_dynamic = _word(child.children[0], walk) if child.children else ("", False)
        elif child.type in (
            "word",
            "string",
            "raw_string",
            "concatenation",
            "number",
            "simple_expansion",
            "expansion",
            "command_substitution",
            "ansi_c_string",
            "process_substitution",
        ):
            value, is_dynamic = _word(child, walk)
        else:
            continue
        if not words and is_dynamic:
            dynamic = True
        words.append(value)
        dynamic_words.append(is_dynamic)
    argv = _unwrap(words, walk)
    program = os.path.basename(argv[0]) if argv else ""
    walk.commands.append(SimpleCommand(_text(node, walk), tuple(words), program, dynamic))
    if dynamic:
        walk.dangerous.append("the program to run is only known at run time")
        return
    _classify(argv, walk)
    _note_paths(argv, dynamic_words[len(words) - len(argv) :], walk)


def _unwrap(words: list[str], walk: _Walk) -> list[str]:
    """Strip wrappers (`env X=1`, `nohup`, `timeout 5`, `xargs -0`) down to the real program."""
    argv = list(words)
    while argv:
        program = os.path.basename(argv[0])
        if program not in WRAPPERS:
            return argv
        if program in ("sudo", "doas"):
            walk.dangerous.append(DANGEROUS_PROGRAMS[program])
        rest = argv[1:]
        if program == "env":
            while rest and (rest[0].startswith("-") or "=" in rest[0]):
                if "=" in rest[0] and not rest[0].startswith("-"):
                    _assignment(rest[0].partition("=")[0], walk)
                rest = rest[1:]
        elif program == "timeout":
            while rest and rest[0].startswith("-"):
                rest = rest[1:]
            rest = rest[1:]
        elif program == "nice" and rest[:1] == ["-n"]:
            rest = rest[2:]
        elif program == "xargs":
            while rest and rest[0].startswith("-"):
                takes = rest[0] in ("-I", "-n", "-P", "-L", "-d", "-E", "-s")
                rest = rest[2:] if takes else rest[1:]
            if not rest:
                return ["echo"]
        else:
            while rest and rest[0].startswith("-"):
                rest = rest[1:]
        argv = rest
    return argv


def _classify(argv: list[str], walk: _Walk) -> None:
    if not argv:
        return
    program = os.path.basename(argv[0])
    args = argv[1:]
    if program in DANGEROUS_PROGRAMS or program.startswith("mkfs"):
        walk.dangerous.append(DANGEROUS_PROGRAMS.get(program, "mkfs formats a file system"))
        return
    if program in SHELLS and "-c" in args:
        walk.dangerous.append(f"{program} -c runs a string as shell code")
        return
    if program in INTERPRETERS and INTERPRETERS[program] in args:
        walk.dangerous.append(f"{program} {INTERPRETERS[program]} runs code given inline")
        return
    if program == "git":
        _git(args, walk)
        return
    if program == "find":
        _find(args, walk)
        return
    if program in ("cp", "mv", "install", "ln") and args:
        walk.writes.append(args[-1])
    if program not in READONLY_PROGRAMS or not flags_readonly(program, args):
        walk.readonly = False


def _note_paths(argv: list[str], dynamic: list[bool], walk: _Walk) -> None:
    """Follow ``cd`` and collect the files a reading program is given (see FILE_READERS).

    A path known only at run time (``cat $HOME/x``, ``cd "$dir"``) cannot be judged, so the
    command is then not read-only.
    """
    if not argv:
        return
    program, args, flags = os.path.basename(argv[0]), argv[1:], dynamic[1:]
    if program in ("cd", "pushd"):
        target = next((a for a in args if not a.startswith("-")), "~")
        if any(flags) or target == "-":
            walk.readonly = False
        walk.base = walk.at(target)
        return
    if program not in FILE_READERS:
        return
    if walk.base and not any(not a.startswith("-") for a in args):
        walk.reads.append(walk.base)  # `cd /etc && ls` lists /etc
    if program == "find":  # the starting points come before the expression
        count = next((i for i, a in enumerate(args) if a.startswith(("-", "(", "!"))), len(args))
        args, flags = (args[:count], flags[:count]) if count else (["."], [False])
    for value, is_dynamic in file_arguments(program, args, flags):
        if is_dynamic:
            walk.readonly = False
        walk.reads.append(walk.at(value))


def _assignment(name: str, walk: _Walk) -> None:
    """Setting a variable that can change what runs is not read-only (see SAFE_VARIABLES)."""
    if name not in SAFE_VARIABLES and not name.startswith("LC_"):
        walk.readonly = False


def _git(args: list[str], walk: _Walk) -> None:
    at = next((i for i, a in enumerate(args) if not a.startswith("-")), len(args))
    if any(option not in GIT_SAFE_GLOBALS for option in args[:at]):
        walk.readonly = False  # -c, --config-env, --exec-path, -C, --git-dir…
    sub = args[at] if at < len(args) else ""
    if sub in GIT_READONLY and any(unsafe_git_flag(a) for a in args[at + 1 :]):
        walk.readonly = False
    if sub in GIT_DANGEROUS:
        walk.dangerous.append(GIT_DANGEROUS[sub])
    elif sub == "branch" and any(a in ("-d", "-D", "--delete", "-m", "-M", "-f") for a in args):
        walk.dangerous.append("git branch deletes or moves branches")
    elif sub == "tag" and "-d" in args:
        walk.dangerous.append("git tag -d deletes tags")
    elif sub == "stash" and any(a in ("drop", "clear") for a in args):
        walk.dangerous.append("git stash drop/clear discards stashed work")
    elif sub not in GIT_READONLY and not (
        sub in ("branch", "remote", "tag", "stash") and len(args) <= 2
    ):
        walk.readonly = False


def _find(args: list[str], walk: _Walk) -> None:
    for index, arg in enumerate(args):
        if arg == "-delete":
            walk.dangerous.append("find -delete deletes files")
        elif arg in ("-exec", "-execdir", "-ok", "-okdir"):
            inner = []
            for word in args[index + 1 :]:
                if word in (";", "+", "\\;"):
                    break
                inner.append(word)
            _classify(_unwrap(inner, walk), walk)
            walk.readonly = (
                walk.readonly and bool(inner) and os.path.basename(inner[0]) in READONLY_PROGRAMS
            )
        elif arg.startswith(("-fprint", "-fls")):
            walk.readonly = False


def _redirect(node: Any, walk: _Walk) -> None:
    operator = next((c.type for c in node.children if c.type in _WRITE_OPS | {"<", ">&", "<&"}), "")
    target_node = node.children[-1] if node.children else None
    if operator == "<" and target_node is not None:  # `cat < file` reads it
        target, dynamic = _word(target_node, walk)
        walk.readonly = walk.readonly and not dynamic
        walk.reads.append(walk.at(target))
        return
    if operator not in _WRITE_OPS or target_node is None:
        return
    target, _ = _word(target_node, walk)
    if target in _HARMLESS_TARGETS or target.isdigit():
        return
    walk.readonly = False
    walk.writes.append(walk.at(target))


def _pipeline(node: Any, walk: _Walk) -> None:
    commands = [c for c in node.children if c.type == "command"]
    for later in commands[1:]:
        words = [
            _word(c.children[0], walk)[0]
            for c in later.children
            if c.type == "command_name" and c.children
        ]
        program = os.path.basename(words[0]) if words else ""
        if program in SHELLS or program in INTERPRETERS:
            walk.dangerous.append(f"output is piped into {program}, which runs it as code")


def _heredoc(node: Any, walk: _Walk) -> None:
    parent = node.parent
    command = next((c for c in parent.children if c.type == "command"), None) if parent else None
    if command is None:
        return
    name = next((c for c in command.children if c.type == "command_name"), None)
    program = os.path.basename(_word(name.children[0], walk)[0]) if name and name.children else ""
    if program in SHELLS or program in INTERPRETERS:
        walk.dangerous.append(f"{program} reads a script from a here-document")
