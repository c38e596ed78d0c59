"""A source file's outline: its classes, functions and methods, with signatures and lines.

One parse with the file's tree-sitter grammar, then a walk that looks only where definitions
live (the grammar's ``inside`` nodes and the bodies of classes), never into a function's body:
the nodes visited are a small part of the tree, so the parse is nearly all the cost. A
signature is the definition's text up to its body (``def load(path: str) -> Config``,
``class Store(Base)``), whitespace collapsed, at most ``MAX_SIGNATURE`` characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolbelt.outline.grammars import FUNCTIONS, Grammar, parser_for

__all__ = ["MAX_SIGNATURE", "Definition", "outline", "render"]

MAX_SIGNATURE = 200
_HASH_COMMENTS = frozenset({"python", "ruby", "bash"})
_COMMENT = {True: re.compile(r"#[^\n]*"), False: re.compile(r"//[^\n]*|/\*.*?\*/", re.S)}
"""Comments between a definition's head and its body (``class A:  # note``), left out."""
_BODY_FIELDS = ("body", "block")


@dataclass(frozen=True, slots=True)
class Definition:
    """One definition of a file (1-based, inclusive lines)."""

    kind: str
    name: str
    signature: str
    line: int
    end_line: int
    children: tuple[Definition, ...] = ()


def outline(data: bytes, grammar: Grammar) -> list[Definition]:
    """The definitions of ``data`` (a file's bytes) in source order, nested."""
    tree = parser_for(grammar).parse(data)
    return _walk(tree.root_node, grammar, data)


def _walk(node: Any, grammar: Grammar, data: bytes) -> list[Definition]:
    found: list[Definition] = []
    for child in node.named_children:
        kind = grammar.definitions.get(child.type)
        if kind is not None:
            definition = _definition(child, kind, grammar, data)
            if definition is not None:
                found.append(definition)
                continue
        if child.type in grammar.inside:
            found += _walk(child, grammar, data)
    return found


def _definition(node: Any, kind: str, grammar: Grammar, data: bytes) -> Definition | None:
    name = _name(node, data)
    if name is None:
        return None
    holder = node
    if kind == "const":  # a variable is a definition only when it holds a function
        value = holder = node.child_by_field_name("value")
        if value is None or value.type not in ("arrow_function", "function_expression",
                                               "function", "class"):  # fmt: skip
            return None
        kind = "function"
    body = next((b for f in _BODY_FIELDS if (b := holder.child_by_field_name(f)) is not None), None)
    end = body.start_byte if body is not None else node.end_byte
    head = data[node.start_byte : end].decode("utf-8", "replace")
    if body is None:
        head = head.split("\n", 1)[0]
    head = _COMMENT[grammar.name in _HASH_COMMENTS].sub("", head)
    signature = " ".join(head.split()).rstrip("{:=>; ").rstrip()
    if len(signature) > MAX_SIGNATURE:
        signature = signature[: MAX_SIGNATURE - 1] + "…"
    children: list[Definition] = []
    if kind not in FUNCTIONS:
        inner = body if body is not None else node
        children = _walk(inner, grammar, data)
    if node.parent is not None and node.parent.type == "class_body" and kind == "function":
        kind = "method"
    return Definition(
        kind, name, signature, node.start_point[0] + 1, node.end_point[0] + 1, tuple(children)
    )


def _name(node: Any, data: bytes) -> str | None:
    """The definition's name: its ``name`` field, or the identifier deepest in its
    ``declarator`` chain (C and C++ functions), or its type's name (Go ``type_spec``)."""
    named = node.child_by_field_name("name") or node.child_by_field_name("type")  # Rust's impl
    if named is None:
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.child_by_field_name("declarator") is not None:
            declarator = declarator.child_by_field_name("declarator")
        named = declarator
    if named is None:
        return None
    return data[named.start_byte : named.end_byte].decode("utf-8", "replace")


def render(
    definitions: Sequence[Definition], *, max_chars: int | None = None, indent: str = ""
) -> str:
    """The outline as lines ``signature  (lines a-b)``, nested by indentation; cut with a note
    when it would pass ``max_chars``."""
    lines: list[str] = []

    def walk(items: Sequence[Definition], depth: int) -> None:
        for item in items:
            lines.append(
                f"{indent}{'  ' * depth}{item.signature}  (lines {item.line}-{item.end_line})"
            )
            walk(item.children, depth + 1)

    walk(definitions, 0)
    if max_chars is not None:
        total, kept = 0, list[str]()
        for line in lines:
            total += len(line) + 1
            if total > max_chars:
                kept.append(f"{indent}… {len(lines) - len(kept)} more definitions")
                break
            kept.append(line)
        lines = kept
    return "\n".join(lines)
