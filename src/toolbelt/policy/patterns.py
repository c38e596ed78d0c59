"""Wildcard patterns of permission rules, compiled once (cached) to linear-time matchers.

Commands: ``npm run test:*`` (prefix at a word boundary), ``git diff *`` (word-boundary
wildcard), ``\\*`` (a literal star). Paths: gitignore-style globs over absolute real paths.
Kept apart from ``rules`` so the rule model reads without the matching plumbing; the matchers
(``globmatch``) never backtrack, so a hostile rule cannot stall a session.
"""

from __future__ import annotations

import functools
import os
import re

from toolbelt.paths.globmatch import ANY, NOT_SLASH, GlobMatcher, Step, bracket_class

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
def command_regex(spec: str) -> GlobMatcher:
    """``Bash(...)`` specifier → matcher over one squashed simple command: ``:*`` is a prefix
    ending at a word boundary, `` *`` a word-boundary wildcard (optional at the end), ``*``
    any text, ``\\*`` a literal star. Matching is linear in the command (``globmatch``)."""
    spec = squash_blanks(spec)
    prefix = unescaped_stars(spec).endswith(":*")
    if prefix:
        spec = spec[:-2]
    steps: list[Step] = []
    i = 0
    while i < len(spec):
        if spec.startswith("\\*", i):
            steps.append(Step("char", "*"))
            i += 2
        elif spec[i] == "*":
            if i > 0 and spec[i - 1] == " " and i == len(spec) - 1:
                steps[-1] = Step("tail", " ")  # `cmd *`: the bare command, or any arguments
            else:
                steps.append(Step("star", of=ANY))
            i += 1
        else:
            steps.append(Step("char", spec[i]))
            i += 1
    if prefix:
        steps.append(Step("tail", " "))
    return GlobMatcher(spec, steps)


def real_prefix(pattern: str) -> str:
    """Resolve symlinks in the literal leading directories, since paths arrive resolved."""
    parts = pattern.split("/")
    literal = next((i for i, part in enumerate(parts) if GLOB_CHARS.search(part)), len(parts))
    head = "/".join(parts[:literal]) or "/"
    real = os.path.realpath(head)
    return "/".join([real.rstrip("/"), *parts[literal:]]) if literal < len(parts) else real


@functools.lru_cache(maxsize=1024)
def path_regex(pattern: str) -> GlobMatcher:
    """An absolute gitignore-style pattern → matcher over absolute paths: ``*`` and ``?`` within
    one directory, ``**`` any depth, ``[...]`` classes, ``\\`` escapes; a last name without
    wildcards also covers everything below it. Matching is linear in the path. ValueError
    when a class has a backwards range (``[z-a]``)."""
    steps: list[Step] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("/**/", i):
            steps += [Step("tail", "/"), Step("char", "/")]  # regex (?:/.*)?/
            i += 4
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            steps.append(Step("tail", "/"))
            i += 3
        elif pattern.startswith("**", i):
            steps.append(Step("star", of=ANY))
            i += 2
        elif pattern[i] in "*?":
            steps.append(Step("star" if pattern[i] == "*" else "one", of=NOT_SLASH))
            i += 1
        elif pattern[i] == "[" and (klass := bracket_class(pattern, i)) is not None:
            steps.append(Step("one", of=klass[0]))
            i = klass[1]
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            steps.append(Step("char", pattern[i + 1]))
            i += 2
        else:
            steps.append(Step("char", pattern[i]))
            i += 1
    if not GLOB_CHARS.search(pattern.rsplit("/", 1)[-1]):
        steps.append(Step("tail", "/"))  # a plain last name also covers what is below it
    return GlobMatcher(pattern, steps)
