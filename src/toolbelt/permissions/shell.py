"""Shell command analysis for the permission policy: parse, then judge every simple command.

The command is parsed with tree-sitter-bash into every simple command — inside ``&&``,
``||``, ``;``, pipes, subshells, ``{ }``, ``$( )``, backticks, process substitutions,
here-documents, functions and loops — after quote removal (``r''m`` is ``rm``), brace and
tilde expansion, and unwrapping of ``command``, ``env`` (``-S`` too), ``nohup``, ``timeout``,
``xargs``, ``find -exec``, … down to the program that really runs (``shell_wrappers``). Each
program's options are parsed as it parses them (``shell_flags``, ``shell_sed``, ``shell_git``):
what it reads, writes or runs. Places where bash evaluates text as code without a command
being written there — arithmetic, subscripts, ``${!x}``, ``${x@P}`` — are judged by
``shell_contexts``. A command is read-only only if every part is; anything tree-sitter cannot
parse, or a program name known only at run time (``$(echo rm)``), makes the whole command ask.

**This analysis only decides whether to ask.** What it misses, the OS sandbox holds; an
approved command runs with the user's permissions.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from toolbelt.permissions.shell_contexts import (
    ARITHMETIC_TEST_OPERATORS,
    arithmetic_text,
    expansion_verdict,
    hidden_code,
)
from toolbelt.permissions.shell_flags import program_effects
from toolbelt.permissions.shell_git import git_effects
from toolbelt.permissions.shell_rules import (
    DANGEROUS_PROGRAMS,
    FILE_READERS,
    INTERPRETERS,
    READONLY_PROGRAMS,
    SHELLS,
)
from toolbelt.permissions.shell_walk import Walk, expand_word, process_secret_reason, ps_env
from toolbelt.permissions.shell_wrappers import unwrap

__all__ = ["ShellAnalysis", "SimpleCommand", "analyze_command"]

_CODE = (False, True)  # (read-only, dangerous) for code bash evaluates outside any command
_WRITE_OPS = {">", ">>", "&>", "&>>", ">|", "<>"}
_HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr"}
_WORDS = {
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
    "arithmetic_expansion",
    "brace_expression",
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
    """Files read-only programs read and directories globs list, as written (after any ``cd``
    in the command); the tool resolves them against its cwd (expanding globs) so reads outside
    the workspace ask and read rules apply."""
    git_dirs: tuple[str, ...] = ()
    """Directories (after ``cd``) in which the command runs git, "" for the cwd."""
    hidden_code: tuple[str, ...] = ()
    """Text bash evaluates as code outside any command (``'a[$(…)]'``); the tool lists it
    among the command's parts, so an allow rule for the command around it does not cover it."""


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
    walk = Walk(source)
    _visit(tree.root_node, walk)
    parse_ok = not tree.root_node.has_error
    for target in walk.reads:
        reason = process_secret_reason(target)
        if reason:
            walk.dangerous.append(reason)
    dangerous = tuple(dict.fromkeys(walk.dangerous))
    return ShellAnalysis(
        tuple(walk.commands),
        parse_ok,
        walk.readonly and parse_ok and not dangerous,
        dangerous,
        tuple(dict.fromkeys(walk.writes)),
        tuple(dict.fromkeys(walk.reads)),
        tuple(dict.fromkeys(walk.git_dirs)),
        tuple(dict.fromkeys(walk.hidden)),
    )


def _visit(node: Any, walk: Walk) -> None:
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
        _assignment(walk.text(node.children[0]) if node.children else "", walk)
        for quoted in _descendants(node):
            if quoted.type in ("raw_string", "ansi_c_string") and hidden_code(walk.text(quoted)):
                # a value holding `$( )` is code once bash evaluates it ($((x)), ${x@P})
                walk.verdict(*_CODE, walk.text(node))
        if node.parent is not None and node.parent.type not in ("command", "declaration_command"):
            # `x=… ; echo` — its own part, so a rule for `echo` does not cover it
            walk.commands.append(SimpleCommand(walk.text(node), (), "", dynamic=False))
    elif kind in ("function_definition",):
        walk.readonly = False
    elif kind == "expansion":
        readonly, dangerous, assigned = expansion_verdict(node, walk.text(node))
        walk.verdict(readonly, dangerous, walk.text(node))
        if assigned:
            _assignment(assigned, walk)
    elif kind == "arithmetic_expansion" or (
        kind in ("compound_statement", "c_style_for_statement")
        and any(c.type == "((" for c in node.children[:2])
    ):
        _arithmetic(node, walk)
    elif kind == "test_command":
        _test_command(node, walk)
    elif kind in ("unset_command", "declaration_command"):
        _names(node, walk)
    for child in node.children:
        _visit(child, walk)


def _arithmetic(node: Any, walk: Walk) -> None:
    if node.type == "c_style_for_statement":
        body = next((c for c in node.children if c.type == "do_group"), None)
        end = body.start_byte if body is not None else node.end_byte
        text = walk.source[node.start_byte : end].decode(errors="replace")
        text = text[text.find("((") + 2 : text.rfind("))")]
    else:
        text = walk.text(node)
        text = (
            text[3:-2] if text.startswith("$((") else text[2:-2] if text[:2] != "$[" else text[2:-1]
        )
    walk.verdict(*arithmetic_text(text), text)


def _test_command(node: Any, walk: Walk) -> None:
    """``[[ x -eq y ]]`` evaluates both sides as arithmetic; ``-v name`` evaluates a subscript."""
    for child in _descendants(node):
        if child.type not in ("binary_expression", "unary_expression"):
            continue
        operators = [c for c in child.children if c.type == "test_operator"]
        op = walk.text(operators[0]) if operators else ""
        if op in ARITHMETIC_TEST_OPERATORS or op in ("-v", "-R"):
            for operand in child.children:
                if operand.type != "test_operator" and operand.type not in ("&&", "||"):
                    walk.verdict(*arithmetic_text(walk.text(operand)), walk.text(operand))


def _names(node: Any, walk: Walk) -> None:
    """``unset X`` / ``declare 'a[$(…)]'``: names are judged like assignments and subscripts."""
    integer = any(walk.text(c).startswith("-") and "i" in walk.text(c) for c in node.children)
    for child in node.children[1:]:
        text = walk.text(child)
        if child.type == "variable_name" and node.type == "unset_command":
            _assignment(text, walk)
        elif child.type in (
            "raw_string",
            "string",
            "word",
            "concatenation",
        ) and not text.startswith("-"):
            if "[" in text or "$" in text or "`" in text:
                walk.verdict(*arithmetic_text(text), text)
            if node.type == "unset_command":
                _assignment(text.strip("'\""), walk)
        elif child.type == "variable_assignment" and integer:
            walk.verdict(*arithmetic_text(text.partition("=")[2]), text)


def _descendants(node: Any) -> list[Any]:
    out = []
    for child in node.children:
        out.append(child)
        out += _descendants(child)
    return out


def _judge(node: Any, walk: Walk) -> None:
    words: list[str] = []
    dynamic_words: list[bool] = []
    dynamic = False
    for child in node.children:
        if child.type == "command_name":
            expanded = expand_word(child.children[0], walk) if child.children else [("", False)]
        elif child.type in _WORDS:
            expanded = expand_word(child, walk)
        else:
            continue
        if not words and any(is_dynamic for _, is_dynamic in expanded[:1]):
            dynamic = True
        for value, is_dynamic in expanded:
            words.append(value)
            dynamic_words.append(is_dynamic)
    inner = unwrap(words, dynamic_words)
    argv, flags = inner.argv, inner.dynamic
    walk.readonly = walk.readonly and inner.readonly
    walk.dangerous += inner.dangerous
    walk.reads += [walk.at(r) for r in inner.reads]
    for name in inner.assigned:
        _assignment(name, walk)
    program = os.path.basename(argv[0]) if argv else ""
    walk.commands.append(SimpleCommand(walk.text(node), tuple(words), program, dynamic))
    if dynamic or (argv and flags[0]):
        walk.dangerous.append("the program to run is only known at run time")
        return
    _classify(argv, flags, walk)


def _classify(argv: list[str], flags: list[bool], walk: Walk) -> None:
    if not argv:
        return
    program, args = os.path.basename(argv[0]), argv[1:]
    if program in DANGEROUS_PROGRAMS or program.startswith("mkfs"):
        walk.dangerous.append(DANGEROUS_PROGRAMS.get(program, "mkfs formats a file system"))
    if program in SHELLS and any(a.startswith("-") and "c" in a[1:] for a in args):
        walk.dangerous.append(f"{program} -c runs a string as shell code")
    if program in INTERPRETERS and INTERPRETERS[program] in args:
        walk.dangerous.append(f"{program} {INTERPRETERS[program]} runs code given inline")
    if program in ("test", "[", "printf", "read", "let", "mapfile", "readarray", "getopts"):
        _builtin_names(program, args, walk)
    if program == "alias" and any("=" in a for a in args):
        walk.readonly = False  # defines what a later word runs
    if program == "ps" and ps_env(args):
        walk.dangerous.append("ps with e shows other processes' environment, secrets included")
    if program == "git":
        git = git_effects(args)
        walk.git_dirs.append(walk.base)
        walk.readonly = walk.readonly and git.readonly
        walk.dangerous += git.dangerous
        walk.reads += [walk.at(r) for r in git.reads]
        walk.writes += [walk.at(w) for w in git.writes]
        return
    if program == "find":
        _find(args, flags[1:], walk)
        return
    if program in ("cd", "pushd", "popd"):
        _cd(program, args, flags[1:], walk)
        return
    effects = program_effects(program, args, flags[1:])
    walk.dangerous += effects.dangerous
    walk.writes += [walk.at(w) for w in effects.writes]
    if program == "mv":
        walk.writes += [walk.at(a) for a in args if not a.startswith("-")]
    if program not in READONLY_PROGRAMS or not effects.readonly or effects.writes:
        walk.readonly = False
    if program in FILE_READERS or effects.reads:
        named = effects.reads
        if (
            program in FILE_READERS
            and walk.base[:1] not in ("", "\0")
            and not any(not a.startswith("-") for a in args)
        ):
            walk.reads.append(walk.base)  # `cd /etc && ls` lists /etc
        for value, is_dynamic in named:
            if is_dynamic:
                walk.readonly = False
            walk.reads.append(walk.at(value))


def _builtin_names(program: str, args: list[str], walk: Walk) -> None:
    """Arguments these builtins evaluate as arithmetic or as variable names (subscripts)."""
    for index, arg in enumerate(args):
        before = args[index - 1] if index else ""
        if (
            program == "let"
            or before in ARITHMETIC_TEST_OPERATORS
            or before in ("-v", "-R")
            or (index + 1 < len(args) and args[index + 1] in ARITHMETIC_TEST_OPERATORS)
            or ("[" in arg and program not in ("test", "["))
            or (program == "printf" and before == "-v")
        ):
            walk.verdict(*arithmetic_text(arg), arg)


def _cd(program: str, args: list[str], flags: list[bool], walk: Walk) -> None:
    """Follow ``cd``/``pushd`` so relative paths after it are judged where they point."""
    operands = [(a, d) for a, d in zip(args, flags, strict=False) if not a.startswith("-")]
    if program == "popd" or any(d for _, d in operands) or (operands and operands[0][0] == "-"):
        walk.readonly = False  # where it goes is only known at run time
        walk.base = "\0unknown"
        return
    target = operands[0][0] if operands else "~"
    if re.fullmatch(r"[+-]\d+", target):
        walk.readonly = False
        walk.base = "\0unknown"
        return
    walk.base = walk.at(target)


def _assignment(name: str, walk: Walk) -> None:
    """Setting a variable that can change what runs is not read-only (see SAFE_VARIABLES)."""
    from toolbelt.permissions.shell_rules import SAFE_VARIABLES

    if "[" in name:
        walk.verdict(*arithmetic_text(name), name)
    if name not in SAFE_VARIABLES and not name.startswith("LC_"):
        walk.readonly = False


def _find(args: list[str], flags: list[bool], walk: Walk) -> None:
    count = next((i for i, a in enumerate(args) if a.startswith(("-", "(", "!"))), len(args))
    starts = args[:count] or ["."]
    for value, is_dynamic in zip(starts, flags[:count] or [False], strict=False):
        walk.readonly = walk.readonly and not is_dynamic
        walk.reads.append(walk.at(value))
    for index, arg in enumerate(args):
        if arg == "-delete":
            walk.dangerous.append("find -delete deletes files")
        elif arg in ("-exec", "-execdir", "-ok", "-okdir"):
            inner = []
            for word in args[index + 1 :]:
                if word in (";", "+", "\\;"):
                    break
                inner.append(word)
            before = walk.readonly
            unwrapped = unwrap(inner, [False] * len(inner))
            walk.dangerous += unwrapped.dangerous
            _classify(unwrapped.argv, unwrapped.dynamic, walk)
            walk.readonly = before and walk.readonly and bool(inner) and unwrapped.readonly
        elif arg.startswith(("-fprint", "-fls")):
            walk.readonly = False
            if index + 1 < len(args):
                walk.writes.append(walk.at(args[index + 1]))
        elif arg in ("-files0-from",):
            walk.readonly = False
        elif arg in ("-newer", "-anewer", "-cnewer", "-samefile") and index + 1 < len(args):
            walk.reads.append(walk.at(args[index + 1]))


def _redirect(node: Any, walk: Walk) -> None:
    operator = next((c.type for c in node.children if c.type in _WRITE_OPS | {"<", ">&", "<&"}), "")
    target_node = node.children[-1] if node.children else None
    if target_node is None:
        return
    if operator in (">&", "<&") and target_node.type == "number":
        return
    expanded = expand_word(target_node, walk)
    target, dynamic = expanded[0] if len(expanded) == 1 else ("", True)
    if operator == "<":  # `cat < file` reads it
        walk.readonly = walk.readonly and not dynamic
        walk.reads.append(walk.at(target))
        return
    if operator not in _WRITE_OPS | {">&"}:
        return
    if target in _HARMLESS_TARGETS or target.isdigit() or target == "-":
        return
    walk.readonly = False
    if dynamic:
        walk.dangerous.append("a redirection writes to a file only known at run time")
    walk.writes.append(walk.at(target))


def _pipeline(node: Any, walk: Walk) -> None:
    commands = [c for c in node.children if c.type in ("command", "redirected_statement")]
    for later in commands[1:]:
        if later.type == "redirected_statement":
            later = next((c for c in later.children if c.type == "command"), later)
        words = [walk.word(c.children[0])[0] for c in later.children if c.type == "command_name"]
        program = os.path.basename(words[0]) if words and words[0] else ""
        if program in SHELLS or program in INTERPRETERS:
            walk.dangerous.append(f"output is piped into {program}, which runs it as code")


def _heredoc(node: Any, walk: Walk) -> None:
    parent = node.parent
    command = next((c for c in parent.children if c.type == "command"), None) if parent else None
    if command is None:
        return
    name = next((c for c in command.children if c.type == "command_name"), None)
    program = os.path.basename(walk.word(name.children[0])[0]) if name and name.children else ""
    if program in SHELLS or program in INTERPRETERS:
        walk.dangerous.append(f"{program} reads a script from a here-document")
