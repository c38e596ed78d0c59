"""Where bash evaluates text as code without a command being written there, walked.

``shell_contexts`` says whether one piece of text is safe in an arithmetic or name context;
these functions find those pieces in the parse tree: ``(( ))``, ``$(( ))``, ``$[ ]`` and
``for (( ))``, the operands of ``[[ x -eq y ]]`` and ``-v``, the names ``unset``,
``declare`` & co. are given, and the arguments of ``test``, ``printf -v``, ``read``, ``let``…
"""

from __future__ import annotations

from typing import Any

from toolbelt.commands.code_contexts import ARITHMETIC_TEST_OPERATORS, arithmetic_text
from toolbelt.commands.process_secrets import process_secret_reason, ps_env
from toolbelt.commands.programs import (
    DANGEROUS_PROGRAMS,
    INTERPRETERS,
    READONLY_PROGRAMS,
    SHELLS,
    WRAPPERS,
)
from toolbelt.commands.walk import Walk

__all__ = [
    "SHADOWED",
    "arithmetic",
    "builtin_names",
    "code_checks",
    "descendants",
    "names",
    "test_command",
]

# builtins that store a string the shell runs later (a trap, a completion, a key binding…)
EVAL_LIKE = {
    "trap": (),  # any action string (judged below)
    "complete": ("-C", "-F"),
    "compgen": ("-C", "-F"),
    "bind": ("-x",),
    "enable": ("-f",),
    "mapfile": ("-C",),
    "readarray": ("-C",),
    "fc": ("-e", "-s"),
    "hash": ("-p",),
}
# names a function or alias must not take over: what the analysis trusts a later call to run
SHADOWED = READONLY_PROGRAMS | WRAPPERS | {"command_not_found_handle"}


def arithmetic(node: Any, walk: Walk) -> None:
    """The expression inside ``(( ))``, ``$(( ))``, ``$[ ]`` or a ``for (( ))`` header."""
    if node.type == "c_style_for_statement":
        body = next((c for c in node.children if c.type == "do_group"), None)
        end = body.start_byte if body is not None else node.end_byte
        text = walk.source[node.start_byte : end].decode(errors="replace")
        text = text[text.find("((") + 2 : text.rfind("))")]
    else:
        text = walk.text(node)
        if text.startswith("$(("):
            text = text[3:-2]
        elif text.startswith("$["):
            text = text[2:-1]
        else:  # (( … ))
            text = text[2:-2]
    walk.verdict(*arithmetic_text(text), text)


def test_command(node: Any, walk: Walk) -> None:
    """``[[ x -eq y ]]`` evaluates both sides as arithmetic; ``-v name`` evaluates a subscript."""
    for child in descendants(node):
        if child.type not in ("binary_expression", "unary_expression"):
            continue
        operators = [c for c in child.children if c.type == "test_operator"]
        op = walk.text(operators[0]) if operators else ""
        if op in ARITHMETIC_TEST_OPERATORS or op in ("-v", "-R"):
            for operand in child.children:
                if operand.type != "test_operator" and operand.type not in ("&&", "||"):
                    walk.verdict(*arithmetic_text(walk.text(operand)), walk.text(operand))


def names(node: Any, walk: Walk) -> None:
    """``unset X`` / ``declare 'a[$(…)]'``: names are judged like assignments and subscripts."""
    integer = any(walk.text(c).startswith("-") and "i" in walk.text(c) for c in node.children)
    for child in node.children[1:]:
        text = walk.text(child)
        if child.type == "variable_name" and node.type == "unset_command":
            walk.assign(text)
        elif child.type in (
            "raw_string",
            "string",
            "word",
            "concatenation",
        ) and not text.startswith("-"):
            if "[" in text or "$" in text or "`" in text:
                walk.verdict(*arithmetic_text(text), text)
            if node.type == "unset_command":
                walk.assign(text.strip("'\""))
        elif child.type == "variable_assignment" and integer:
            walk.verdict(*arithmetic_text(text.partition("=")[2]), text)


def descendants(node: Any) -> list[Any]:
    out = []
    for child in node.children:
        out.append(child)
        out += descendants(child)
    return out


def builtin_names(program: str, args: list[str], walk: Walk) -> None:
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
        if program == "printf" and (before == "-v" or (arg.startswith("-v") and len(arg) > 2)):
            walk.assign(arg if before == "-v" else arg[2:])  # printf -v NAME sets NAME


def code_checks(program: str, args: list[str], walk: Walk) -> None:
    """Code a program is handed or keeps for later: ``rm``, ``bash -c``, ``python -Bc``,
    subscripts in ``test -v``, ``/proc/<pid>/environ``, ``trap``, ``alias ls=…``, ``ps e``."""
    if program in DANGEROUS_PROGRAMS or program.startswith("mkfs"):
        walk.dangerous.append(DANGEROUS_PROGRAMS.get(program, "mkfs formats a file system"))
    if program in SHELLS and any(a.startswith("-") and "c" in a[1:] for a in args):
        walk.dangerous.append(f"{program} -c runs a string as shell code")
    inline = INTERPRETERS.get(program, "")[1:]
    if inline and any(a[:1] == "-" and a[1:2] != "-" and inline in a[1:] for a in args):
        walk.dangerous.append(f"{program} {INTERPRETERS[program]} runs code given inline")
    if program in ("test", "[", "printf", "read", "let", "mapfile", "readarray", "getopts"):
        builtin_names(program, args, walk)
    for arg in args:  # /proc/<pid>/environ through any program (strings, base64, cp…)
        for path in walk.at(arg):
            reason = process_secret_reason(path)
            if reason:
                walk.dangerous.append(reason)
    if program == "alias" and any("=" in a for a in args):
        walk.unseen()  # defines what a later word runs
        if any(a.partition("=")[0] in SHADOWED for a in args):
            walk.dangerous.append("an alias replaces a program later commands run")
    flags_given = [a for a in args if a.startswith("-")]
    code_flags = EVAL_LIKE.get(program)
    if code_flags is not None and (
        any(a.startswith(code_flags) for a in flags_given)
        or (program == "trap" and args and not args[0].startswith("-"))
    ):
        walk.dangerous.append(
            "hash -p makes a later command name run another file"
            if program == "hash"
            else f"{program} makes the shell run a string as code later"
        )
    if program == "ps" and ps_env(args):
        walk.dangerous.append("ps with e shows other processes' environment, secrets included")
