"""Path globs match in linear time and exactly as the regex translation they replaced."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from tests.tools.helpers import Harness

from toolbelt.core.errors import ToolError
from toolbelt.core.events import CallState
from toolbelt.paths.globmatch import GlobMatcher
from toolbelt.search.globs import compile_glob


def class_end(body: str, i: int) -> int:
    """The ``]`` closing the class at ``i`` (-1: none); one right after ``[`` or ``[!`` is a
    member, as gitignore and rg read it."""
    return body.find("]", i + 2 + (body[i + 1 : i + 2] in ("!", "^")))


def oracle(pattern: str) -> re.Pattern[str]:
    """The regex ``compile_glob`` built before (right answers, exponential on some patterns),
    its classes mended: ``[]`` and ``[!]`` made invalid or different regexes."""
    anchored = "/" in pattern.rstrip("/")
    body = pattern.lstrip("/") if anchored else pattern
    out: list[str] = []
    i, n, depth = 0, len(body), 0
    while i < n:
        char = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and (end := class_end(body, i)) != -1:
            negate = body[i + 1 : i + 2] in ("!", "^")
            members = "".join(c if c == "-" else re.escape(c) for c in body[i + 1 + negate : end])
            out.append("[" + "^" * negate + members + "]")
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
            out.append(re.escape(body[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(prefix + "".join(out) + ")" * depth, re.DOTALL)


pieces = ["a", "b", "/", "*", "**", "**/", "?", "[ab]", "[!a]", "{a,b}", "{a,{b,/}}", ",", "}"]
pieces += ["{*,a}", "{a,**}", "{/b,*}", "{,/}"]  # wildcards and slashes at brace edges
pieces += ["[", "]", "[]", "[!]", "[^", "\\"]  # classes that open, close or hold `]` oddly
patterns = st.lists(st.sampled_from(pieces), min_size=1, max_size=7).map("".join)
path_parts = ["a", "b", "/", "ab", ",", "}", "c", "[", "]", "^", "\\"]
paths = st.lists(st.sampled_from(path_parts), max_size=9).map("".join)


@settings(max_examples=800, deadline=None)
@given(patterns, paths)
# A brace edge never joins or splits a wildcard: the `/` or `*` inside does not turn the `**`
# outside into `**/` (zero or more directories) or `*` + `*` into `**`, nor the reverse.
@example("**{a,{b,/}}", "")  # `**/` would match nothing at all
@example("**{/b,x}", "b")
@example("src/**{/a.py,/c}", "src/a.py")
@example("{x,**}/b", "b")
@example("x/*{*,y}", "x/a/b")  # `**` would cross the slash
@example("{a,*}*/b", "b")
@example("{*,a}**/b", "b")  # `***/` would read as `**` + `*/`, needing a slash
@example("[]?", "]a")  # `]` first is a member: `[]` alone once crashed re.compile
@example("[!]a]", "a")
def test_globs_agree_with_the_regex_translation(pattern: str, path: str) -> None:
    assume(pattern.count("{") <= 6)  # at most 64 alternatives: under the limit
    expected = oracle(pattern).fullmatch(path) is not None
    for use_regex in (True, False):  # the regex shortcut and the bit-parallel engine
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(GlobMatcher, "use_regex", use_regex)
            assert (compile_glob(pattern).fullmatch(path) is not None) == expected


def test_character_classes_read_as_gitignore_does() -> None:
    assert compile_glob("[]a]").fullmatch("]") == "]"
    assert compile_glob("[]a]").fullmatch("a") == "a"
    assert compile_glob("[!]a]").fullmatch("]") is None
    assert compile_glob("[!]a]").fullmatch("b") == "b"
    assert compile_glob("x[]").fullmatch("x[]") == "x[]"  # never closed: literal
    assert compile_glob("[[]").fullmatch("[") == "["
    assert compile_glob("[\\]").fullmatch("\\") == "\\"
    assert compile_glob("[a-]").fullmatch("-") == "-"


def test_a_backwards_range_is_refused_with_a_fix() -> None:
    with pytest.raises(ToolError, match=r"\[z-a\] has a range that runs backwards; put the"):
        compile_glob("src/[z-a].py")


def test_too_many_brace_alternatives_are_refused() -> None:
    with pytest.raises(ToolError, match="expands to more than 256 alternatives"):
        compile_glob("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")


@pytest.mark.anyio
async def test_a_hostile_glob_finishes_through_the_tool(tmp_path: Path) -> None:
    """With a backtracking regex this pattern tries ~10^17 ways on this one name."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / ("a" * 200)).write_text("x")
    (tmp_path / "src" / ("a" * 20 + "b")).write_text("x")
    result = await Harness(tmp_path).call("glob", pattern="src/*a*a*a*a*a*a*a*a*a*a*a*a*b")
    assert result.state is CallState.SUCCESS
    assert result.text == "src/" + "a" * 20 + "b"


@pytest.mark.anyio
async def test_a_slash_inside_braces_does_not_make_a_directory_wildcard(tmp_path: Path) -> None:
    """``src/**{/test.py,/c}`` needs a directory between ``src`` and ``test.py``, as in rg:
    read as ``src/**/test.py`` it listed ``src/test.py`` too."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "test.py").write_text("x")
    (tmp_path / "src" / "pkg" / "test.py").write_text("x")
    result = await Harness(tmp_path).call("glob", pattern="src/**{/test.py,/c}")
    assert result.state is CallState.SUCCESS
    assert result.text == "src/pkg/test.py"
