"""Which grammar reads a file, and which of its nodes are definitions worth an outline.

For each language: the node types that define something (and the kind each is shown as),
the node types an outline looks inside for more definitions (class bodies, blocks, export
and decorator wrappers — never a function's body, whose locals are not the file's shape),
and how a definition names itself (its ``name`` field, or deeper for C's declarators).
Grammars come from the tree-sitter language pack, loaded once per process.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

__all__ = ["FUNCTIONS", "GRAMMARS", "SUFFIXES", "Grammar", "grammar_for", "parser_for"]


@dataclass(frozen=True, slots=True)
class Grammar:
    """What an outline needs to know about one language's syntax tree."""

    name: str
    """The language pack's name for the grammar."""
    definitions: Mapping[str, str]
    """Node type → the kind shown (class, function, method…)."""
    inside: frozenset[str]
    """Node types looked into for definitions, besides definitions that are not functions
    (``FUNCTIONS``): a class's methods are part of the outline, a function's locals not."""


FUNCTIONS = frozenset({"def", "function", "method", "fn", "func", "constructor", "const"})
"""Kinds whose bodies are not looked into."""


def _grammar(name: str, definitions: str, inside: str) -> Grammar:
    """``definitions``: ``node_type=kind`` words; ``inside``: node types, space-separated."""
    pairs = dict(word.split("=") for word in definitions.split())
    return Grammar(name, pairs, frozenset(inside.split()))


_TS_DEFINITIONS = (
    "class_declaration=class abstract_class_declaration=class function_declaration=function "
    "generator_function_declaration=function method_definition=method variable_declarator=const "
    "interface_declaration=interface type_alias_declaration=type enum_declaration=enum "
    "method_signature=method abstract_method_signature=method internal_module=namespace"
)
_TS_INSIDE = (
    "program class_body export_statement lexical_declaration variable_declaration "
    "interface_body object_type statement_block ambient_declaration"
)

GRAMMARS: Mapping[str, Grammar] = {
    "python": _grammar(
        "python",
        "class_definition=class function_definition=def",
        "module block decorated_definition if_statement else_clause try_statement "
        "except_clause finally_clause with_statement",
    ),
    "javascript": _grammar("javascript", _TS_DEFINITIONS, _TS_INSIDE),
    "typescript": _grammar("typescript", _TS_DEFINITIONS, _TS_INSIDE),
    "tsx": _grammar("tsx", _TS_DEFINITIONS, _TS_INSIDE),
    "go": _grammar(
        "go",
        "function_declaration=func method_declaration=method type_spec=type",
        "source_file type_declaration",
    ),
    "rust": _grammar(
        "rust",
        "function_item=fn struct_item=struct enum_item=enum trait_item=trait impl_item=impl "
        "mod_item=mod function_signature_item=fn type_item=type macro_definition=macro",
        "source_file declaration_list",
    ),
    "java": _grammar(
        "java",
        "class_declaration=class interface_declaration=interface enum_declaration=enum "
        "record_declaration=record method_declaration=method constructor_declaration=constructor",
        "program class_body interface_body enum_body enum_body_declarations",
    ),
    "c": _grammar(
        "c",
        "function_definition=function struct_specifier=struct enum_specifier=enum "
        "type_definition=typedef",
        "translation_unit preproc_if preproc_ifdef preproc_else declaration",
    ),
    "cpp": _grammar(
        "cpp",
        "function_definition=function struct_specifier=struct class_specifier=class "
        "enum_specifier=enum namespace_definition=namespace type_definition=typedef",
        "translation_unit field_declaration_list declaration_list template_declaration "
        "preproc_if preproc_ifdef declaration field_declaration",
    ),
    "ruby": _grammar(
        "ruby",
        "class=class module=module method=def singleton_method=def",
        "program body_statement",
    ),
    "bash": _grammar("bash", "function_definition=function", "program"),
}

SUFFIXES: Mapping[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".rb": "ruby", ".sh": "bash", ".bash": "bash",
}  # fmt: skip
"""File suffix → grammar (``tsx`` is TypeScript's grammar with JSX)."""


def grammar_for(path: PurePath) -> Grammar | None:
    """The grammar of ``path``'s kind of file, or None."""
    name = SUFFIXES.get(path.suffix.lower())
    if name is None:
        return None
    return GRAMMARS[name]


_local = threading.local()


def parser_for(grammar: Grammar) -> Any:
    """A tree-sitter parser for ``grammar`` (one per thread: a parser is not thread-safe)."""
    parsers = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(grammar.name)
    if parser is None:
        parser = parsers[grammar.name] = _pack().get_parser(grammar.name)
    return parser


@functools.cache
def _pack() -> Any:
    import tree_sitter_language_pack

    return tree_sitter_language_pack
