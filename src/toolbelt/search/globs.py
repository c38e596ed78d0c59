"""Gitignore-style globs compiled to one regex, matched against relative paths.

``rg --glob`` cannot be used to filter by pattern because ripgrep gives override globs
precedence over ignore files: ``rg --files -g '*.py'`` lists a gitignored ``secret.py``. So
the walk respects the ignore files and the pattern is applied here: a pattern without a slash
matches a file name at any depth (``*.py``), one with a slash matches the path from the search
root (``src/*.py``); ``**`` spans directories, ``*`` and ``?`` do not cross ``/``,
``{a,b}`` gives alternatives and ``[...]`` character classes.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["compile_glob", "name_only_glob"]


def name_only_glob(pattern: str) -> str | None:
    """The file-name glob of ``pattern`` when it constrains names only (``*.py``,
    ``**/test_*.py``), else None. Such a glob can be an rg file *type*, which — unlike
    ``--glob`` — filters while the walk still honours the ignore files."""
    bare = pattern.removeprefix("**/")
    if not bare or bare.startswith("!") or any(part in bare for part in ("/", ":", "**")):
        return None
    return bare


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex that fully matches the relative paths ``pattern`` selects."""
    anchored = "/" in pattern.rstrip("/")
    body = _translate(pattern.lstrip("/") if anchored else pattern)
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(f"{prefix}{body}", re.DOTALL)


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    depth = 0
    while i < n:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(char))
                i += 1
            else:
                inner = pattern[i + 1 : end]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append(f"[{inner.replace(chr(92), chr(92) * 2)}]")
                i = end + 1
        elif char == "{":
            out.append("(?:")
            depth += 1
            i += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
            i += 1
        elif char == "," and depth:
            out.append("|")
            i += 1
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out) + ")" * depth
