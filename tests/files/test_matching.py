"""edit matching: exact first, then labelled recoveries that refuse to guess."""

from __future__ import annotations

import pytest

from toolbelt.files.folding import fold_units
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
    assert splice.recovery == (
        "matched Unicode look-alikes (left double quote for '\"', right double quote for '\"')"
    )
    assert splice.notes == (
        "line 1 holds a left double quote (U+201C) where old_string had '\"'",
        "line 1 holds a right double quote (U+201D) where old_string had '\"'",
    )


def test_trailing_whitespace_is_ignored_and_kept() -> None:
    text = "a = 1   \nb = 2\t\nc = 3\n"
    splice = find_and_replace(text, "a = 1\nb = 2\n", "a = 10\nb = 20\n")
    assert splice.text == "a = 10   \nb = 20\t\nc = 3\n"
    assert splice.recovery == "ignored trailing whitespace"
    assert splice.notes == (
        "line 1 ends with 3 spaces where old_string had no blanks",
        "line 2 ends with 1 tab where old_string had no blanks",
    )


def test_markdown_hard_breaks_on_context_lines_survive() -> None:
    text = "# Title\n\nRoses are red,  \nviolets are blue.  \nSugar is sweet.\n"
    old = "Roses are red,\nviolets are blue.\nSugar is sweet."
    new = "Roses are red,\nviolets are blue.\nHoney is sweet."
    splice = find_and_replace(text, old, new)
    assert splice.text == ("# Title\n\nRoses are red,  \nviolets are blue.  \nHoney is sweet.\n")


def test_a_quote_the_file_holds_straight_stays_straight() -> None:
    text = "const apostrophe = /['’]/;\nconst label = “it’s”;\n"
    old = "const apostrophe = /['']/;\nconst label = \"it's\";"
    new = "const apostrophe = /['']/g;\nconst label = \"it's\";"
    splice = find_and_replace(text, old, new)
    assert splice.text == "const apostrophe = /['’]/g;\nconst label = “it’s”;\n"


def test_inserted_quotes_take_the_files_curly_style_when_it_has_no_straight_ones() -> None:
    text = "She said “hi” and left.\n"
    splice = find_and_replace(text, 'said "hi" and', 'said "hi", "bye" and')
    assert splice.text == "She said “hi”, “bye” and left.\n"


@pytest.mark.parametrize(
    ("text", "old", "new", "expected", "label", "note"),
    [
        (
            "range: 1990–2000 — inclusive\n",
            "range: 1990-2000 - inclusive",
            "range: 1990-2010 - inclusive",
            "range: 1990–2010 — inclusive\n",
            "matched Unicode look-alikes (en dash for '-', em dash for '-')",
            "line 1 holds an en dash (U+2013) where old_string had '-'",
        ),
        (
            "x = a − b\n",
            "x = a - b",
            "x = a - 2*b",
            "x = a − 2*b\n",
            "matched Unicode look-alikes (minus sign for '-')",
            "line 1 holds a minus sign (U+2212) where old_string had '-'",
        ),
        (
            "prix : 10\u00a0€ TTC\n",
            "prix : 10 € TTC",
            "prix : 12 € TTC",
            "prix : 12\u00a0€ TTC\n",
            "matched Unicode look-alikes (no-break space for ' ')",
            "line 1 holds a no-break space (U+00A0) where old_string had ' '",
        ),
        (
            "name = 'Cafe\u0301 Noir'\n",
            "name = 'Café Noir'",
            "name = 'Café Blanc'",
            "name = 'Cafe\u0301 Blanc'\n",
            "matched Unicode look-alikes ('é' decomposed (U+0065 + U+0301) for 'é' precomposed"
            " (U+00E9))",
            "line 1 holds 'é' decomposed (U+0065 + U+0301) where old_string had 'é' precomposed"
            " (U+00E9)",
        ),
        (
            "Loading…\n",
            "Loading...",
            "Still loading...",
            "Still loading…\n",
            "matched Unicode look-alikes (ellipsis for '...')",
            "line 1 holds an ellipsis (U+2026) where old_string had '...'",
        ),
    ],
)
def test_unicode_look_alikes(
    text: str, old: str, new: str, expected: str, label: str, note: str
) -> None:
    splice = find_and_replace(text, old, new)
    assert splice.text == expected
    assert splice.recovery == label
    assert splice.notes[0] == note


def test_quotes_inside_a_code_span_are_code_and_stay_straight() -> None:
    splice = find_and_replace("She said “hi”.\n", 'said "hi".', 'said "hi"; run `f("x")`.')
    assert splice.text == 'She said “hi”; run `f("x")`.\n'


def test_indentation_that_does_not_follow_the_files_structure_is_refused() -> None:
    text = "def f():\n    if x:\n        y()\n"
    with pytest.raises(EditMatchError, match="its indentation does not follow the file's"):
        find_and_replace(text, "def f():\nif x:\n    y()", "def f():\nif x:\n  q()\n    y()")
    # a line indented like one the file shows unambiguously can still be placed
    splice = find_and_replace(text, "def f():\nif x:\n    y()", "def f():\nif x:\n    y()\n    z()")
    assert splice.text == "def f():\n    if x:\n        y()\n        z()\n"


def test_a_dash_the_model_changes_on_purpose_is_written_as_typed() -> None:
    splice = find_and_replace("a — b\n", "a - b", "a – b")
    assert splice.text == "a – b\n"


def test_ambiguous_after_normalisation_lists_every_candidate() -> None:
    text = "a — b\nc\na – b\na - c\n"
    with pytest.raises(EditMatchError) as info:
        find_and_replace(text, "a - b", "x", label="d.md")
    assert str(info.value) == (
        "old_string does not match d.md exactly, and ignoring Unicode look-alikes it matches 2 "
        "places (at lines 1, 3), so nothing was changed. Copy old_string exactly from the file, "
        "with enough surrounding lines to match one place."
    )


def test_no_change_once_fitted_to_the_file_is_refused() -> None:
    with pytest.raises(EditMatchError, match="already reads that way"):
        find_and_replace("s = “x”\n", 's = "x"', "s = “x”")


def test_tab_context_lines_keep_their_tabs_and_trailing_blanks() -> None:
    text = "func f() {\n\tx := 1 \n\treturn x\n}\n"
    old = "    x := 1\n    return x"
    new = "    x := 1\n    return x + 1"
    splice = find_and_replace(text, old, new)
    assert splice.text == "func f() {\n\tx := 1 \n\treturn x + 1\n}\n"


def test_line_numbers_and_look_alikes_together() -> None:
    text = "intro\nwait — what?\nend\n"
    splice = find_and_replace(text, "2\twait - what?", "2\twait - why?")
    assert splice.text == "intro\nwait — why?\nend\n"
    assert splice.recovery == (
        "stripped read_file line-number prefixes, matched Unicode look-alikes (em dash for '-')"
    )


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
    with pytest.raises(EditMatchError, match=r"it matches 2 places \(at lines 1, 4\)"):
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


def test_a_final_newline_the_file_lacks_is_matched_and_the_file_keeps_lacking_it() -> None:
    splice = find_and_replace("a = 1\nb = 2", "b = 2\n", "b = 3\n")
    assert (splice.text, splice.first_line, splice.last_line) == ("a = 1\nb = 3", 2, 2)
    assert splice.recovery == (
        "matched old_string's final newline to the end of the file, which has none (the file "
        "still ends without one)"
    )


def test_lines_added_after_the_last_line_bring_their_newline() -> None:
    splice = find_and_replace("[tool]\nname = 'x'", "name = 'x'\n", "name = 'x'\nversion = 1\n")
    assert splice.text == "[tool]\nname = 'x'\nversion = 1\n"
    assert splice.recovery is not None and "now ends with a newline" in splice.recovery


def test_a_final_newline_never_stands_for_the_rest_of_a_longer_line() -> None:
    with pytest.raises(EditMatchError, match="old_string was not found"):
        find_and_replace("x = 1\nreturn foobar", "return foo\n", "return bar\n")


def test_fold_units_keep_decomposed_hangul_syllables_whole() -> None:
    decomposed = "  \u1112\u1161\u11ab\u1100\u1173\u11af x"
    assert fold_units(decomposed) == [
        " ",
        " ",
        "\u1112\u1161\u11ab",
        "\u1100\u1173\u11af",
        " ",
        "x",
    ]
