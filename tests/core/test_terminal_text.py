"""Text toolbelt did not write reaches a terminal in one escape form: what acts on the
terminal or hides text is written as Python writes it in a literal, the rest as it is."""

from __future__ import annotations

import pytest

from toolbelt.cli.json_output import terminal_safe_json
from toolbelt.core.terminal_text import escape_for_terminal, has_terminal_control


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ls -la", "ls -la"),
        ("a\rb", "a\\rb"),
        ("\x1b[2Kx", "\\x1b[2Kx"),
        ("tab\there", "tab\\there"),
        ("bell\x07", "bell\\x07"),
        ("del\x7f", "del\\x7f"),
        ("rtl\u202eexe.txt", "rtl\\u202eexe.txt"),  # a right-to-left override
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("nul\x00", "nul\\x00"),
        ("c1\x9b31m", "c1\\x9b31m"),  # the one-byte CSI
        ("next\x85line", "next\\x85line"),  # NEL, a C1 control
        ("line\nnext", "line\\nnext"),
        ("para\u2029graph", "para\\u2029graph"),
        ("private\U000f0000use", "private\\U000f0000use"),  # beyond U+FFFF: eight digits
        ("lone\ud800", "lone\\ud800"),
        ("naïve ✓ 日本", "naïve ✓ 日本"),
        ("no\u00a0break", "no\u00a0break"),  # a space, not a control: kept
        ("grep 'a\\.b'", "grep 'a\\.b'"),  # a typed backslash reads as typed
    ],
)
def test_every_character_that_acts_on_a_terminal_is_escaped(text: str, shown: str) -> None:
    assert escape_for_terminal(text) == shown


def test_newlines_and_tabs_are_kept_only_when_asked() -> None:
    text = "one\n\ttwo\r\x1b[8m"
    assert escape_for_terminal(text) == "one\\n\\ttwo\\r\\x1b[8m"
    assert escape_for_terminal(text, newlines=True) == "one\n\\ttwo\\r\\x1b[8m"
    assert escape_for_terminal(text, newlines=True, tabs=True) == "one\n\ttwo\\r\\x1b[8m"


def test_a_limit_cuts_between_escapes_and_says_so() -> None:
    assert escape_for_terminal("abcdef", limit=6) == "abcdef"
    assert escape_for_terminal("abcdefg", limit=6) == "abcde…"
    assert escape_for_terminal("ab\x1bcd", limit=8) == "ab\\x1bcd"
    assert escape_for_terminal("ab\x1bcd", limit=7) == "ab\\x1b…"
    assert escape_for_terminal("ab\x1bcd", limit=6) == "ab…"  # never half an escape


def test_has_terminal_control_uses_the_same_characters() -> None:
    assert not has_terminal_control("Database ✓ naïve")
    assert has_terminal_control("a\nb")
    assert has_terminal_control("Data\u2028base")
    assert has_terminal_control("x\u202e")


def test_json_for_a_terminal_escapes_the_same_characters_as_json_escapes() -> None:
    text = '{"a": "\x9b2J\u202e\U000f0000\x7f ✓\\n"}'
    assert terminal_safe_json(text) == '{"a": "\\u009b2J\\u202e\\udb80\\udc00\\u007f ✓\\n"}'
