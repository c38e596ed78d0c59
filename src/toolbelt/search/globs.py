"""Gitignore-style globs compiled to linear-time matchers, matched against relative paths.

``rg --glob`` cannot be used to filter by pattern because ripgrep gives override globs
precedence over ignore files: ``rg --files -g '*.py'`` lists a gitignored ``secret.py``. So
the walk respects the ignore files and the pattern is applied here: a pattern without a slash
matches a file name at any depth (``*.py``), one with a slash matches the path from the search
root (``src/*.py``); ``**`` spans directories, ``*`` and ``?`` do not cross ``/``,
``{a,b}`` gives alternatives and ``[...]`` character classes. Matching never backtracks
(``permissions.globmatch``): a pattern like ``*a*a*a*a*a*a*a*a*b`` costs what ``*.py`` costs.
"""

from __future__ import annotations

from functools import lru_cache

from toolbelt.core.errors import ToolError
from toolbelt.permissions.globmatch import ANY, NOT_SLASH, GlobMatcher, Step

__all__ = ["MAX_ALTERNATIVES", "GlobPattern", "compile_glob", "name_only_glob"]


def name_only_glob(pattern: str) -> str | None:
    """The file-name glob of ``pattern`` when it constrains names only (``*.py``,
    ``**/test_*.py``), else None. Such a glob can be an rg file *type*, which — unlike
    ``--glob`` — filters while the walk still honours the ignore files."""
    bare = pattern.removeprefix("**/")
    if not bare or bare.startswith("!") or any(part in bare for part in ("/", ":", "**")):
        return None
    return bare


MAX_ALTERNATIVES = 256


class GlobPattern:
    """A compiled glob: its ``{a,b}`` alternatives expanded, each a linear-time matcher
    (``permissions.globmatch``), so no pattern a model writes can stall the walk."""

    __slots__ = ("alternatives", "pattern")

    def __init__(self, pattern: str, alternatives: list[GlobMatcher]) -> None:
        self.pattern, self.alternatives = pattern, tuple(alternatives)

    def fullmatch(self, path: str) -> str | None:
        """``path`` when some alternative matches all of it, else None."""
        for alternative in self.alternatives:
            if alternative.fullmatch(path) is not None:
                return path
        return None


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> GlobPattern:
    """A matcher for the relative paths ``pattern`` selects; ToolError when its braces expand
    to more than ``MAX_ALTERNATIVES`` patterns."""
    anchored = "/" in pattern.rstrip("/")
    body = pattern.lstrip("/") if anchored else pattern
    alternatives = _expand_braces(body)
    if len(alternatives) > MAX_ALTERNATIVES:
        raise ToolError(
            f"The glob {pattern!r} expands to more than {MAX_ALTERNATIVES} alternatives; use "
            "fewer {a,b} groups, or several calls."
        )
    start = [] if anchored else [Step("dirs")]
    return GlobPattern(pattern, [GlobMatcher(alt, start + _steps(alt)) for alt in alternatives])


def _class_end(pattern: str, i: int) -> int:
    """Index of the ``]`` closing the class opened at ``i``, or -1 (then ``[`` is literal)."""
    return pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)


def _expand_braces(pattern: str) -> list[str]:
    """``a{b,c{d,e}}`` → ``abd``... the way the regex translation read it: commas and ``}``
    outside braces and everything inside ``[...]`` are literal, an unclosed ``{`` closes at
    the end. Stops growing past ``MAX_ALTERNATIVES`` + 1."""

    def sequence(i: int, depth: int) -> tuple[list[str], int]:
        results = [""]
        while i < len(pattern):
            char = pattern[i]
            if char == "\\" and i + 1 < len(pattern):
                piece, i = pattern[i : i + 2], i + 2
            elif char == "[" and (end := _class_end(pattern, i)) != -1:
                piece, i = pattern[i : end + 1], end + 1
            elif char == "{":
                choices, i = group(i + 1, depth + 1)
                results = [r + c for r in results for c in choices][: MAX_ALTERNATIVES + 1]
                continue
            elif char in ",}" and depth:
                return results, i
            else:
                piece, i = char, i + 1
            results = [r + piece for r in results]
        return results, i

    def group(i: int, depth: int) -> tuple[list[str], int]:
        choices: list[str] = []
        while True:
            part, i = sequence(i, depth)
            choices += part
            if i >= len(pattern):
                return choices, i
            i += 1  # past the comma or the closing brace
            if pattern[i - 1] == "}":
                return choices, i

    return sequence(0, 0)[0]


def _steps(pattern: str) -> list[Step]:
    """One brace-free alternative as matcher steps: ``**/`` any directories, ``**`` anything,
    ``*`` and ``?`` within a name, ``[...]`` a class, ``\\`` an escape."""
    steps: list[Step] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            steps.append(Step("dirs"))
            i += 3
        elif pattern.startswith("**", i):
            steps.append(Step("star", of=ANY))
            i += 2
        elif char in "*?":
            steps.append(Step("star" if char == "*" else "one", of=NOT_SLASH))
            i += 1
        elif char == "[" and (end := _class_end(pattern, i)) != -1:
            inner = pattern[i + 1 : end]
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            steps.append(Step("one", of=f"[{inner.replace(chr(92), chr(92) * 2)}]"))
            i = end + 1
        elif char == "\\" and i + 1 < len(pattern):
            steps.append(Step("char", pattern[i + 1]))
            i += 2
        else:
            steps.append(Step("char", char))
            i += 1
    return steps
