"""Words of a tool's name, description and parameters, in the form the search index compares.

Tool names are identifiers (``mcp__github__create_issue``, ``getFileContents``,
``list-pull-requests``): they are split at underscores, hyphens, digits and camelCase humps so
``create issue`` finds ``createIssue``. Every word is lower-cased and loses a plural ending
(``issues`` → ``issue``, ``repositories`` → ``repository``), and a few words that carry no
meaning in a tool description are dropped, so a long query ranks by what it is about.
"""

from __future__ import annotations

import re

from toolbelt.core.rule_identity import MCP_PREFIX

__all__ = ["MCP_PREFIX", "name_parts", "server_of", "short_name", "words"]

"""Tools whose name starts with this come from another MCP server (``mcp__<server>__<tool>``)."""

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_STOP = frozenset(
    "a an and are as at be by can for from in into is it its of on or that the this to "  # noqa: SIM905
    "use used when which will with".split()
)


def words(text: str) -> list[str]:
    """The comparable words of ``text``: split, lower-cased, singular, without stop words."""
    found = []
    for raw in _WORD.findall(text):
        word = _singular(raw.lower())
        if word not in _STOP:
            found.append(word)
    return found


def name_parts(name: str) -> list[str]:
    """The words of a tool name, without the ``mcp`` every server tool's name starts with."""
    return words(name.removeprefix(MCP_PREFIX))


def server_of(name: str) -> str | None:
    """``github`` for ``mcp__github__create_issue``; None for a tool of toolbelt's own."""
    if not name.startswith(MCP_PREFIX):
        return None
    server, separator, _ = name[len(MCP_PREFIX) :].partition("__")
    return server if separator and server else None


def short_name(name: str) -> str:
    """``create_issue`` for ``mcp__github__create_issue``; a built-in's name is its own."""
    server = server_of(name)
    return name if server is None else name[len(MCP_PREFIX) + len(server) + 2 :]


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
