"""edit matching: exact first, then labelled recoveries that refuse to guess."""

from __future__ import annotations

import pytest

from toolbelt.files.matching import EditMatchError, find_and_replace


def test_exact_unique_match() -> None:
    splice = find_and_replace("a\nb\nc\n", "b\n", "B\nB2\n")
    assert (splice.text, splice.replacements, splice.recovery) == ("a\nB\nB2\nc\n", 1, None)
    assert (splice.first_line, splice.last_line) == (2, 3)


def test_dollar_and_backslash_in_new_string_are_literal() -> None:
    splice = find_and_replace("x = 1\n", "1", r"'$1 \1 $&'")
    assert splice.text == "x = '$1 \\1 $&'\n"


def test_crlf_old_string_matches_normalised_text() -> None:
    assert find_and_replace("one\ntwo\n", "one\r\ntwo", "1\r\n2").text == "1\n2\n"


def test_ambiguous_match_lists_each_line() -> None:
    with pytest.raises(EditMatchError) as info:
        find_and_replace("foo\nbar\nfoo\nfoo\n", "foo", "x", label="a.py")
    assert str(info.value) == (
        "Found 3 matches of old_string in a.py (at lines 1, 3, 4), but replace_all is false. "
        "Add surrounding lines to old_string so it matches exactly one place, or set "
        "replace_all to true to change every occurrence."
    )


def test_replace_all() -> None:
    splice = find_and_replace("foo\nbar\nfoo\n", "foo", "baz", replace_all=True)
    assert (splice.text, splice.replacements, splice.first_line, splice.last_line) == (
        "baz\nbar\nbaz\n",
        2,
        1,
        3,
    )


def test_identical_strings_are_refused() -> None:
    with pytest.raises(EditMatchError, match="No changes to make"):
        find_and_replace("a", "a", "a")


def test_pasted_line_number_prefixes_are_stripped() -> None:
    text = "def f():\n    return 1\n"
    splice = find_and_replace(text, "1\tdef f():\n2\t    return 1", "1\tdef f():\n2\t    return 2")
    assert splice.text == "def f():\n    return 2\n"
    assert splice.recovery == "stripped read_file line-number prefixes"


def test_curly_quotes_match_and_keep_the_files_style() -> None:
    text = "print(“hello”)\n"
    splice = find_and_replace(text, 'print("hello")', 'print("bye")')
    assert splice.text == "print(“bye”)\n"
    assert splice.recovery == "matched curly and straight quotes as equal"


def test_trailing_whitespace_is_ignored() -> None:
    text = "a = 1   \nb = 2\t\nc = 3\n"
    splice = find_and_replace(text, "a = 1\nb = 2\n", "a = 10\nb = 20\n")
    assert splice.text == "a = 10\nb = 20\nc = 3\n"
    assert splice.recovery == "ignored trailing whitespace"


def test_tab_indented_file_stays_tab_indented() -> None:
    text = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
    old = "    if x {\n        return 1\n    }\n"
    new = "    if x {\n        log()\n        return 2\n    }\n"
    splice = find_and_replace(text, old, new)
    assert splice.text == "func f() {\n\tif x {\n\t\tlog()\n\t\treturn 2\n\t}\n}\n"
    assert splice.recovery is not None
    assert splice.recovery.startswith("matched ignoring indentation")


def test_space_indented_block_reindented_to_file_width() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    old = "def f(self):\n  return 1"
    new = "def f(self):\n  if self:\n    return 2\n  return 1"
    splice = find_and_replace(text, old, new)
    assert splice.text == (
        "class A:\n    def f(self):\n        if self:\n            return 2\n        return 1\n"
    )


def test_recovery_refuses_when_two_candidates_match() -> None:
    text = "\tx = 1\n\ty = 2\n\n    x = 1\n    y = 2\n"
    with pytest.raises(EditMatchError, match="not found"):
        find_and_replace(text, "x = 1\ny = 2", "x = 3\ny = 4")


def test_not_found_shows_the_closest_region() -> None:
    text = "alpha\nbeta\ndef compute(a, b):\n    return a + b\ngamma\n"
    with pytest.raises(EditMatchError) as info:
        find_and_replace(text, "def compute(a, c):", "def compute(a, b, c):", label="m.py")
    assert str(info.value) == (
        "old_string was not found in m.py. The closest match is near line 3:\n"
        "1\talpha\n2\tbeta\n3\tdef compute(a, b):\n4\t    return a + b\n5\tgamma\n"
        "Read the file again and copy old_string exactly, including whitespace."
    )
