"""Where bash evaluates text as code without a command being written there, walked.

``shell_contexts`` says whether one piece of text is safe in an arithmetic or name context;
these functions find those pieces in the parse tree: ``(( ))``, ``$(( ))``, ``$[ ]`` and
``for (( ))``, the operands of ``[[ x -eq y ]]`` and ``-v``, the names ``unset``,
``declare`` & co. are given, and the arguments of ``test``, ``printf -v``, ``read``, ``let``…
"""

from __future__ import annotations

from typing import Any

from toolbelt.permissions.shell_contexts import ARITHMETIC_TEST_OPERATORS, arithmetic_text
from toolbelt.permissions.shell_walk import Walk

__all__ = ["arithmetic", "builtin_names", "descendants", "names", "test_command"]


def arithmetic(node: Any, walk: Walk) -> None:
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
