"""The linear-time wildcard matchers agree with the backtracking regexes they replaced, on
every pattern and text hypothesis finds, and stay fast on the patterns that made those spin."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolbelt.paths.globmatch import GlobMatcher
from toolbelt.policy.patterns import command_regex, path_regex


def both_engines(check: Callable[[], None]) -> None:
    """Run ``check`` with the regex shortcut and with the bit-parallel engine alone."""
    for use_regex in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(GlobMatcher, "use_regex", use_regex)
            check()


def oracle_command(spec: str) -> re.Pattern[str]:
    """The regex translation ``command_regex`` used before (correct, but backtracking)."""
    spec = " ".join(spec.split())
    prefix = spec.replace("\\*", "\0\0").endswith(":*")
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
                parts.pop()
            optional = boundary and i == len(spec) - 1
            parts.append("(?: .*)?" if optional else " .*" if boundary else ".*")
            i += 1
        else:
            parts.append(re.escape(spec[i]))
            i += 1
    if prefix:
        parts.append("(?: .*)?")
    return re.compile("".join(parts), re.DOTALL)


def class_end(pattern: str, i: int) -> int:
    """The ``]`` closing the class at ``i`` (-1: none); one right after ``[`` or ``[!`` is a
    member, as gitignore and rg read it."""
    return pattern.find("]", i + 2 + (pattern[i + 1 : i + 2] in ("!", "^")))


def oracle_path(pattern: str) -> re.Pattern[str]:
    """The regex translation ``path_regex`` used before."""
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
        elif pattern[i] == "[" and (end := class_end(pattern, i)) != -1:
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            members = "".join(c if c == "-" else re.escape(c) for c in body[negate:])
            out.append("[" + ("^" if negate else "") + members + "]")
            i = end + 1
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    if not re.search(r"[*?\[\\]", pattern.rsplit("/", 1)[-1]):
        out.append("(?:/.*)?")
    return re.compile("".join(out), re.DOTALL)


command_specs = st.lists(
    st.sampled_from(["a", "b", " ", "*", " *", "\\*", "git", ":", "-"]), max_size=8
).map("".join)
commands = st.lists(st.sampled_from(["a", "b", " ", "*", "git", ":", "-", "\n"]), max_size=10)
path_patterns = st.lists(
    st.sampled_from(
        ["/", "a", "b", "*", "**", "/**/", "/**", "?", "[ab]", "[!a]", "\\*", ".", "[", "]", "[!]"]
    ),
    min_size=1,
    max_size=8,
).map(lambda parts: "/" + "".join(parts))
paths = st.lists(st.sampled_from(["/", "a", "b", "*", ".", "ab", "]", "["]), max_size=10)


@settings(max_examples=600, deadline=None)
@given(command_specs, commands)
def test_command_matcher_agrees_with_the_regex(spec: str, parts: list[str]) -> None:
    text = " ".join("".join(parts).split())
    expected = oracle_command(spec).fullmatch(text) is not None
    both_engines(lambda: _same(command_regex(spec).fullmatch(text) is not None, expected))


@settings(max_examples=600, deadline=None)
@given(path_patterns, paths)
def test_path_matcher_agrees_with_the_regex(pattern: str, parts: list[str]) -> None:
    text = "/" + "".join(parts)
    expected = oracle_path(pattern).fullmatch(text) is not None
    both_engines(lambda: _same(path_regex(pattern).fullmatch(text) is not None, expected))


def _same(got: bool, expected: bool) -> None:
    assert got == expected


def test_known_answers() -> None:
    both_engines(_known_answers)


def _known_answers() -> None:
    assert command_regex("git diff *").fullmatch("git diff") == "git diff"
    assert command_regex("git diff *").fullmatch("git diff --stat x") is not None
    assert command_regex("git diff *").fullmatch("git diffx") is None
    assert command_regex("npm run test:*").fullmatch("npm run test -- -x") is not None
    assert command_regex("npm run test:*").fullmatch("npm run tests") is None
    assert command_regex("echo \\*").fullmatch("echo *") is not None
    assert command_regex("echo \\*").fullmatch("echo x") is None
    assert path_regex("/w/**/.env*").fullmatch("/w/a/b/.env.local") is not None
    assert path_regex("/w/**/.env*").fullmatch("/w/.env") is not None
    assert path_regex("/w/*.py").fullmatch("/w/sub/a.py") is None
    assert path_regex("/w/src").fullmatch("/w/src/deep/file") is not None
    assert path_regex("/w/[a-c]?.txt").fullmatch("/w/bz.txt") is not None
    assert path_regex("/w/[!a-c]?.txt").fullmatch("/w/bz.txt") is None


def test_hostile_patterns_finish_on_long_texts() -> None:
    """Each of these takes minutes with a backtracking regex (n^12 paths to try)."""
    hostile = command_regex("*a*a*a*a*a*a*a*a*a*a*a*a*b")
    assert hostile.fullmatch("a" * 20_000) is None
    assert hostile.fullmatch("a" * 20_000 + "b") is not None
    component = "a" * 255
    path = path_regex("/**/*a*a*a*a*a*a*a*a*a*a*a*a*b/**")
    assert path.fullmatch(("/" + component) * 16) is None
    assert path.fullmatch(("/" + component) * 16 + "b/x") is not None
    two_stars = command_regex("*a*b")  # quadratic for a regex: long texts skip it
    assert two_stars.fullmatch("a" * 200_000) is None
