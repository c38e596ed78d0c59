"""Where bash evaluates text as code although no command is written there.

bash evaluates array subscripts in arithmetic (``(( ))``, ``$(( ))``, ``$[ ]``, ``for (( ))``,
``[[ x -eq y ]]``, substring offsets) and in variable names given to builtins (``test -v``,
``printf -v``, ``read``, ``declare``, ``unset``, ``${!name}``): ``'a[$(touch x)]'`` runs
``touch x``, and so does a variable whose value is that string (``$((x))``). Prompt expansion
(``${x@P}``) runs the ``$( )`` in a value. Single quotes inside ``"${x:-'$(cmd)'}"`` do not
quote, so text a parser sees as a quoted string runs as well. These helpers judge those places:
code a parser cannot see there → dangerous; a variable or anything not a plain number → not
read-only (its value is only known at run time).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "ARITHMETIC_TEST_OPERATORS",
    "NAME_BUILTINS",
    "arithmetic_text",
    "expansion_verdict",
    "hidden_code",
]

ARITHMETIC_TEST_OPERATORS = frozenset(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"])
# builtins whose arguments (or an option's value) are variable names, subscripts evaluated
NAME_BUILTINS = frozenset(
    [
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "unset",
        "read",
        "mapfile",
        "readarray",
        "printf",
        "let",
        "getopts",
        "wait",
        "test",
        "[",
        "printenv",
    ]
)
_NUMBER = re.compile(r"\b(0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+|[0-9]+)\b")
_PLAIN_ARITHMETIC = re.compile(r"[\s0-9+\-*/%()<>=!&|^~?:,]*")
_CODE = ("$(", "`", "<(", ">(")
CODE_REASON = (
    "bash evaluates text here as code (an array subscript, arithmetic, or a command "
    "substitution hidden from the parser)"
)


def hidden_code(text: str) -> bool:
    """Whether ``text`` holds command-substitution syntax (run if bash evaluates it)."""
    return any(marker in text for marker in _CODE)


def arithmetic_text(text: str) -> tuple[bool, bool]:
    """(read-only, dangerous) for ``text`` that bash evaluates as arithmetic or as a name.

    Only numbers and operators are read-only; any name may hold a subscript with code.
    """
    if hidden_code(text):
        return False, True
    numbers = _NUMBER.sub("0", text)
    if not re.search(r"[A-Za-z_$'\"\\\[]", numbers) and _PLAIN_ARITHMETIC.fullmatch(numbers):
        return True, False
    return False, False


def expansion_verdict(node: Any, text: str) -> tuple[bool, bool, str]:
    """(read-only, dangerous, assigned name) for a ``${…}`` expansion node.

    ``${!x}`` (indirection may evaluate a subscript held in x), ``${x@P}`` (prompt expansion
    runs ``$( )`` in the value), subscripts and substring offsets that are not plain numbers
    are not read-only; ``${x:=v}`` assigns x, so the caller judges it as an assignment.
    """
    kinds = [child.type for child in node.children]
    if hidden_code(text) and not _has(node, "command_substitution"):
        return False, True, ""
    if "!" in kinds[:2]:
        return False, False, ""
    if "@" in kinds and text.rstrip("}").endswith(("P", "A", "K", "k")):
        return False, False, ""
    for child in node.children:
        if child.type == "subscript":
            inner = text[child.start_byte - node.start_byte : child.end_byte - node.start_byte]
            index = inner[inner.find("[") + 1 : -1]
            if index not in ("@", "*"):
                readonly, dangerous = arithmetic_text(index)
                if not readonly:
                    return False, dangerous, ""
    name = next((c for c in node.children if c.type == "variable_name"), None)
    if any(k in (":=", "=") for k in kinds) and name is not None:
        return (
            True,
            False,
            text[name.start_byte - node.start_byte : name.end_byte - node.start_byte],
        )
    if ":" in kinds:  # ${x:offset:length} is arithmetic
        position = kinds.index(":")
        rest = text[node.children[position].end_byte - node.start_byte : -1]
        readonly, dangerous = arithmetic_text(rest.replace(":", " "))
        return readonly, dangerous, ""
    return True, False, ""


def _has(node: Any, kind: str) -> bool:
    return node.type == kind or any(_has(child, kind) for child in node.children)
