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
import shlex
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from toolbelt.commands.code_contexts import (
    expansion_verdict,
    hidden_code,
)
from toolbelt.commands.code_walk import (
    SHADOWED,
    arithmetic,
    code_checks,
    descendants,
    names,
    test_command,
)
from toolbelt.commands.effects import program_effects
from toolbelt.commands.git import git_effects
from toolbelt.commands.process_secrets import process_secret_reason
from toolbelt.commands.programs import FILE_CREATORS, READONLY_PROGRAMS
from toolbelt.commands.redirects import heredoc, pipeline, redirect, redirect_words
from toolbelt.commands.walk import Walk, expand_word
from toolbelt.commands.wrappers import unwrap

__all__ = ["ShellAnalysis", "SimpleCommand", "analyze_command"]

_CODE = (False, True)  # (read-only, dangerous) for code bash evaluates outside any command
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
    effects_seen: bool = False
    """Every effect but its reads is one of ``write_targets``: only programs the analysis
    models run (read-only ones and ``FILE_CREATORS``), no variable that changes what runs is
    set, no file name comes from data, nothing is dangerous. Read-only implies it."""
    made_dirs: tuple[str, ...] = ()
    """Those of ``write_targets`` that ``mkdir`` makes: one that exists as a directory is not
    changed by it."""
    read_targets: tuple[str, ...] = ()
    """Files read-only programs read and directories globs list, as written (after any ``cd``
    in the command); the tool resolves them against its cwd (expanding globs) so reads outside
    the workspace ask and read rules apply."""
    git_dirs: tuple[str, ...] = ()
    """Directories (after ``cd``) in which the command runs git, "" for the cwd."""
    runs: tuple[str, ...] = ()
    """Each program that really runs, as ``shlex.join`` of its unwrapped argv (``env rm x`` →
    ``rm x``), for deny and ask rules."""
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
    try:
        _visit(tree.root_node, walk)
    except RecursionError:  # nested deeper than the walk goes: where unsure, ask
        return ShellAnalysis(
            (),
            parse_ok=False,
            readonly=False,
            dangerous=("the command is nested too deeply to judge",),
            write_targets=(),
            read_targets=(),
        )
    parse_ok = not tree.root_node.has_error
    walk.dangerous += [r for t in walk.reads if (r := process_secret_reason(t))]
    dangerous = tuple(dict.fromkeys(walk.dangerous))
    return ShellAnalysis(
        tuple(walk.commands),
        parse_ok,
        walk.readonly and parse_ok and not dangerous,
        dangerous,
        tuple(dict.fromkeys(walk.writes)),
        walk.effects_seen and parse_ok and not dangerous,
        tuple(dict.fromkeys(walk.made_dirs)),
        tuple(dict.fromkeys(walk.reads)),
        tuple(dict.fromkeys(walk.git_dirs)),
        tuple(dict.fromkeys(walk.runs)),
        tuple(dict.fromkeys(walk.hidden)),
    )


def _visit(node: Any, walk: Walk) -> None:
    kind = node.type
    if kind == "command":
        _judge(node, walk)
    elif kind == "file_redirect":
        redirect(node, walk)
    elif kind == "pipeline":
        pipeline(node, walk)
    elif kind in ("heredoc_redirect", "herestring_redirect"):
        heredoc(node, walk)
    elif kind == "variable_assignment":
        walk.assign(walk.text(node.children[0]) if node.children else "")
        for quoted in descendants(node):
            if quoted.type in ("raw_string", "ansi_c_string") and hidden_code(walk.text(quoted)):
                # a value holding `$( )` is code once bash evaluates it ($((x)), ${x@P})
                walk.verdict(*_CODE, walk.text(node))
        if node.parent is not None and node.parent.type not in ("command", "declaration_command"):
            _own_part(node, walk)
    elif kind in ("function_definition",):
        walk.unseen()
        name = next((c for c in node.children if c.type == "word"), None)
        if name is not None and walk.text(name) in SHADOWED:
            walk.dangerous.append(
                f"defines a function `{walk.text(name)}` that later commands run instead"
            )
    elif kind == "expansion":
        readonly, dangerous, assigned = expansion_verdict(node, walk.text(node))
        walk.verdict(readonly, dangerous, walk.text(node))
        if assigned:
            walk.assign(assigned)
    elif kind == "arithmetic_expansion" or (
        kind in ("compound_statement", "c_style_for_statement")
        and any(c.type == "((" for c in node.children[:2])
    ):
        arithmetic(node, walk)
    elif kind == "test_command":
        test_command(node, walk)
    elif kind in ("unset_command", "declaration_command"):
        names(node, walk)
        _own_part(node, walk)
    elif kind in ("for_statement", "select_statement"):
        variable = next((c for c in node.children if c.type == "variable_name"), None)
        name = walk.text(variable) if variable is not None else ""
        if not (name.islower() and name not in ("histchars", "auto_resume")):
            walk.assign(name)  # `for PATH in /tmp; do ls; done` sets PATH
    for child in node.children:
        _visit(child, walk)


def _own_part(node: Any, walk: Walk) -> None:
    """List ``x=…``, ``export X=…`` or ``unset X`` as a part of its own, so an allow rule for
    the command beside it (``Bash(ls:*)`` in ``export PATH=/tmp/evil; ls``) does not cover it."""
    text = walk.text(node)
    walk.commands.append(SimpleCommand(text, (), text.split(" ", 1)[0], dynamic=False))


_TEXT_PARTS = {"command_name", "variable_assignment"}


def _word_nodes(node: Any) -> list[Any]:
    """The command's words, with those tree-sitter hangs after a redirection's target."""
    nodes: list[Any] = []
    for child in node.children:
        if child.type == "file_redirect":
            nodes += redirect_words(child)[1]
        else:
            nodes.append(child)
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        for sibling in parent.children:
            if sibling.type == "file_redirect":
                nodes += redirect_words(sibling)[1]
    return nodes


def _judge(node: Any, walk: Walk) -> None:
    words: list[str] = []
    dynamic_words: list[bool] = []
    dynamic = False
    parts = _word_nodes(node)
    # the command as rules see it: its words, never its redirections (wherever written)
    text = " ".join(walk.text(c) for c in parts if c.type in _WORDS or c.type in _TEXT_PARTS)
    for child in parts:
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
    walk.unseen(not inner.readonly)
    walk.dangerous += inner.dangerous
    walk.reads += [p for r in inner.reads for p in walk.at(r)]
    for name in inner.assigned:
        walk.assign(name)
    program = os.path.basename(argv[0]) if argv else ""
    walk.commands.append(SimpleCommand(text, tuple(words), program, dynamic))
    if argv:
        walk.runs.append(shlex.join(argv))
    if dynamic or (argv and flags[0]):
        walk.dangerous.append("the program to run is only known at run time")
        return
    _classify(argv, flags, walk)


def _classify(argv: list[str], flags: list[bool], walk: Walk) -> None:
    if not argv:
        return
    program, args = os.path.basename(argv[0]), argv[1:]
    code_checks(program, args, walk)
    if program == "git":
        git = git_effects(args)
        walk.git_dirs += walk.bases
        walk.git_dirs += [
            path
            for index, arg in enumerate(args)
            if arg.startswith("-C")
            for path in walk.at(arg[2:] or (args[index + 1] if index + 1 < len(args) else ""))
        ]
        walk.unseen(not git.readonly)
        walk.dangerous += git.dangerous
        walk.reads += [p for r in git.reads for p in walk.at(r)]
        walk.writes += [p for w in git.writes for p in walk.at(w)]
        return
    if program == "find":
        _find(args, flags[1:], walk)
        return
    if program in ("cd", "pushd", "popd"):
        walk.cd(program, args, flags[1:])
        return
    effects = program_effects(program, args, flags[1:])
    walk.dangerous += effects.dangerous
    walk.writes += [p for w in effects.writes for p in walk.at(w)]
    if program == "mkdir":
        walk.made_dirs += [p for w in effects.writes for p in walk.at(w)]
    known = program in READONLY_PROGRAMS or program in FILE_CREATORS
    walk.unseen(not known or effects.unseen)
    if not effects.readonly or effects.writes:
        walk.readonly = False  # writes the analysis names: `effects_seen` stays
    for value, is_dynamic in effects.reads:  # a name known only at run time cannot be judged
        walk.unseen(is_dynamic)
        walk.reads += walk.at(value)


def _find(args: list[str], flags: list[bool], walk: Walk) -> None:
    count = next((i for i, a in enumerate(args) if a.startswith(("-", "(", "!"))), len(args))
    starts = args[:count] or ["."]
    for value, is_dynamic in zip(starts, flags[:count] or [False], strict=False):
        walk.unseen(is_dynamic)
        walk.reads += walk.at(value)
    for index, arg in enumerate(args):
        if arg == "-delete":
            walk.dangerous.append("find -delete deletes files")
        elif arg in ("-exec", "-execdir", "-ok", "-okdir"):
            inner = []
            for word in args[index + 1 :]:
                if word in (";", "+", "\\;"):
                    break
                inner.append(word)
            before, walk.readonly = walk.readonly, True
            unwrapped = unwrap(inner, [False] * len(inner))
            if unwrapped.argv:
                walk.runs.append(shlex.join(unwrapped.argv))
            walk.dangerous += unwrapped.dangerous
            _classify(unwrapped.argv, unwrapped.dynamic, walk)
            # what it runs gets names from find (`-exec touch {} +`): read-only, or unseen
            walk.unseen(not (walk.readonly and inner and unwrapped.readonly))
            walk.readonly = before and walk.readonly
        elif arg.startswith(("-fprint", "-fls")):
            walk.readonly = False
            if index + 1 < len(args):
                walk.writes += walk.at(args[index + 1])
        elif arg.lstrip("-").startswith("files0-from"):  # start points read from data
            walk.unseen()
        elif arg in ("-newer", "-anewer", "-cnewer", "-samefile") and index + 1 < len(args):
            walk.reads += walk.at(args[index + 1])
