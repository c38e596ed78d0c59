"""Redirections, pipes into interpreters and here-documents fed to them, judged.

Every redirection target is a write judged on its own (``echo x > .git/hooks/pre-commit`` is a
write to a protected path, whatever rule allows ``echo``); ``< file`` is a read; output piped
into a shell or interpreter, or a here-document given to one, runs as code.
"""

from __future__ import annotations

import os
from typing import Any

from toolbelt.commands.programs import INTERPRETERS, SHELLS
from toolbelt.commands.walk import Walk, expand_word
from toolbelt.commands.wrappers import unwrap

__all__ = ["heredoc", "pipeline", "redirect", "redirect_words"]

_WRITE_OPS = {">", ">>", "&>", "&>>", ">|", "<>"}
_HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr"}
_NOT_WORDS = _WRITE_OPS | {"<", ">&", "<&", ">&-", "<&-", "file_descriptor"}


def redirect_words(node: Any) -> tuple[Any, list[Any]]:
    """A redirection's target, and the words tree-sitter wrongly hangs after it: in
    ``find . 2>/dev/null -delete`` the ``-delete`` is find's argument, not part of the target."""
    words = [c for c in node.children if c.type not in _NOT_WORDS]
    return (words[0] if words else None), words[1:]


def redirect(node: Any, walk: Walk) -> None:
    operator = next((c.type for c in node.children if c.type in _WRITE_OPS | {"<", ">&", "<&"}), "")
    target_node, _ = redirect_words(node)
    if target_node is None:
        return
    if operator in (">&", "<&") and target_node.type == "number":
        return
    expanded = expand_word(target_node, walk)
    target, dynamic = expanded[0] if len(expanded) == 1 else ("", True)
    if operator == "<":  # `cat < file` reads it
        walk.unseen(dynamic)
        walk.reads += walk.at(target)
        return
    if operator not in _WRITE_OPS | {">&"}:
        return
    if target in _HARMLESS_TARGETS or target.isdigit() or target == "-":
        return
    walk.readonly = False  # a write the analysis names: `effects_seen` stays
    if dynamic:
        walk.dangerous.append("a redirection writes to a file only known at run time")
    walk.writes += walk.at(target)


def _program_of(command: Any, walk: Walk) -> str:
    """The program a command node really runs (``env sh``, ``timeout 5 bash`` → the shell)."""
    words: list[str] = []
    for child in command.children:
        if child.type == "command_name" and child.children:
            words.append(walk.word(child.children[0])[0])
        elif words and child.type in ("word", "string", "raw_string", "concatenation", "number"):
            words.append(walk.word(child)[0])
    argv = unwrap(words, [False] * len(words)).argv
    return os.path.basename(argv[0]) if argv else ""


def pipeline(node: Any, walk: Walk) -> None:
    commands = [c for c in node.children if c.type in ("command", "redirected_statement")]
    for later in commands[1:]:
        if later.type == "redirected_statement":
            later = next((c for c in later.children if c.type == "command"), later)
        program = _program_of(later, walk)
        if program in SHELLS or program in INTERPRETERS:
            walk.dangerous.append(f"output is piped into {program}, which runs it as code")


def heredoc(node: Any, walk: Walk) -> None:
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    quoted = start is not None and any(q in walk.text(start) for q in ("'", '"', "\\"))
    if body is not None and not quoted and "`" in walk.text(body):
        # bash runs `…` in an unquoted here-document; tree-sitter does not see it
        walk.verdict(readonly=False, dangerous=True, text=walk.text(body))
    parent = node.parent
    command = parent if parent is not None and parent.type == "command" else None
    if command is None and parent is not None:
        command = next((c for c in parent.children if c.type == "command"), None)
    if command is None:
        return
    program = _program_of(command, walk)
    if program in SHELLS or program in INTERPRETERS:
        walk.dangerous.append(f"{program} reads a script from a here-document or here-string")
