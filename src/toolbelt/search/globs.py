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
from toolbelt.paths.globmatch import ANY, NOT_SLASH, GlobMatcher, Step, bracket_class

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
    try:
        alternatives = _expand_braces(body)
    except ValueError as error:
        raise ToolError(f"The glob {pattern!r} is not valid: {error}.") from None
    if len(alternatives) > MAX_ALTERNATIVES:
        raise ToolError(
            f"The glob {pattern!r} expands to more than {MAX_ALTERNATIVES} alternatives; use "
            "fewer {a,b} groups, or several calls."
        )
    start = [] if anchored else [Step("dirs")]
    return GlobPattern(
        pattern,
        [
            GlobMatcher("".join(text for text, _ in tokens), start + [s for _, s in tokens])
            for tokens in alternatives
        ],
    )


_Token = tuple[str, Step]
"""One wildcard or character as written in the pattern, and its matcher step."""


def _expand_braces(pattern: str) -> list[list[_Token]]:
    """``a{b,c{d,e}}`` → the token lists of ``ab``, ``acd``, ``ace``: commas and ``}``
    outside braces and everything inside ``[...]`` are literal, an unclosed ``{`` closes at
    the end. Stops growing past ``MAX_ALTERNATIVES`` + 1.

    Tokens are read where they are written, before the braces are joined, so a wildcard never
    takes in a character across a brace: in ``**{/a,b}`` the ``/`` does not make ``**/`` (the
    zero-or-more-directories form, which would match ``a``), nor do ``*{*,b}`` or ``{a,**}/``
    become ``**`` or ``**/``. That is how ``rg --glob`` reads them, and the regex translation.
    """

    def sequence(i: int, depth: int) -> tuple[list[list[_Token]], int]:
        results: list[list[_Token]] = [[]]
        while i < len(pattern):
            char = pattern[i]
            if char == "{":
                choices, i = group(i + 1, depth + 1)
                results = [r + c for r in results for c in choices][: MAX_ALTERNATIVES + 1]
                continue
            if char in ",}" and depth:
                return results, i
            step, end = _token(pattern, i)
            token, i = (pattern[i:end], step), end
            for tokens in results:  # each list is its own (built by the product above)
                tokens.append(token)
        return results, i

    def group(i: int, depth: int) -> tuple[list[list[_Token]], int]:
        choices: list[list[_Token]] = []
        while True:
            part, i = sequence(i, depth)
            choices += part
            if i >= len(pattern):
                return choices, i
            i += 1  # past the comma or the closing brace
            if pattern[i - 1] == "}":
                return choices, i

    return sequence(0, 0)[0]


def _token(pattern: str, i: int) -> tuple[Step, int]:
    """The matcher step of the token at ``i`` (never a brace) and the index after it: ``**/``
    any directories, ``**`` anything, ``*`` and ``?`` within a name, ``[...]`` a class, ``\\``
    an escape."""
    char = pattern[i]
    if pattern.startswith("**/", i):
        return Step("dirs"), i + 3
    if pattern.startswith("**", i):
        return Step("star", of=ANY), i + 2
    if char in "*?":
        return Step("star" if char == "*" else "one", of=NOT_SLASH), i + 1
    if char == "[" and (klass := bracket_class(pattern, i)) is not None:
        return Step("one", of=klass[0]), klass[1]
    if char == "\\" and i + 1 < len(pattern):
        return Step("char", pattern[i + 1]), i + 2
    return Step("char", char), i + 1
