"""Wildcard patterns of permission rules, compiled to regular expressions once (cached).

Commands: ``npm run test:*`` (prefix at a word boundary), ``git diff *`` (word-boundary
wildcard), ``\\*`` (a literal star). Paths: gitignore-style globs over absolute real paths.
Kept apart from ``rules`` so the rule model reads without the regex plumbing.
"""

from __future__ import annotations

import functools
import os
import re

__all__ = [
    "GLOB_CHARS",
    "command_regex",
    "path_regex",
    "real_prefix",
    "squash_blanks",
    "unescaped_stars",
]

GLOB_CHARS = re.compile(r"[*?\[\\]")
"""Characters that make a path pattern a glob (and that an exact rule must escape)."""


def squash_blanks(command: str) -> str:
    """Runs of whitespace as one space, the way commands are compared."""
    return " ".join(command.split())


def unescaped_stars(spec: str) -> str:
    """``spec`` with escaped stars blanked out, to look for the real wildcards."""
    return spec.replace("\\*", "\0\0")


@functools.lru_cache(maxsize=1024)
def command_regex(spec: str) -> re.Pattern[str]:
    """``Bash(...)`` specifier → regex over one squashed simple command: ``:*`` is a prefix
    ending at a word boundary, `` *`` a word-boundary wildcard (optional at the end), ``*``
    any text, ``\\*`` a literal star."""
    spec = squash_blanks(spec)
    prefix = unescaped_stars(spec).endswith(":*")
    if prefix:
        spec = spec[:-2]
    parts, i = [], 0
    while i < len(spec):
        if spec.startswith("\\*", i):
            parts.append(re.escape("*"))
            i += 2
        elif spec[i] == "*":
            boundary = i > 0 and spec[i - 1] == " "
            if boundary:
                parts.pop()  # the space, which the boundary group now holds
            optional = boundary and i == len(spec) - 1
            parts.append("(?: .*)?" if optional else " .*" if boundary else ".*")
            i += 1
        else:
            parts.append(re.escape(spec[i]))
            i += 1
    if prefix:
        parts.append("(?: .*)?")
    return re.compile("".join(parts), re.DOTALL)


def real_prefix(pattern: str) -> str:
    """Resolve symlinks in the literal leading directories, since paths arrive resolved."""
    parts = pattern.split("/")
    literal = next((i for i, part in enumerate(parts) if GLOB_CHARS.search(part)), len(parts))
    head = "/".join(parts[:literal]) or "/"
    real = os.path.realpath(head)
    return "/".join([real.rstrip("/"), *parts[literal:]]) if literal < len(parts) else real


@functools.lru_cache(maxsize=1024)
def path_regex(pattern: str) -> re.Pattern[str]:
    """An absolute gitignore-style pattern → regex over absolute paths: ``*`` and ``?`` within
    one directory, ``**`` any depth, ``[...]`` classes, ``\\`` escapes; a last name without
    wildcards also covers everything below it."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("/**/", i):
            out.append("(?:/.*)?/")
            i += 4
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            members = "".join("\\" + c if c in "\\[^" else c for c in body[negate:])
            out.append("[" + ("^" if negate else "") + members + "]")
            i = end + 1
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    if not GLOB_CHARS.search(pattern.rsplit("/", 1)[-1]):
        out.append("(?:/.*)?")  # a plain last name also covers what is below it
    return re.compile("".join(out), re.DOTALL)
