"""Options parsed as getopt_long parses them, and sed scripts as sed parses them."""

from __future__ import annotations

import pytest

from toolbelt.commands.getopt import OPTIONAL, REQUIRED, OptionSpec, parse
from toolbelt.commands.sed import sed_effects, sed_script

SPEC = OptionSpec(
    "fo", "i", {"file": REQUIRED, "files0-from": REQUIRED, "in-place": OPTIONAL, "quiet": 0}
)


@pytest.mark.parametrize(
    ("args", "options", "operands"),
    [
        (["-f", "x", "a"], [("-f", "x")], ["a"]),
        (["-fx", "a"], [("-f", "x")], ["a"]),
        (["-nfx"], [("-n", None), ("-f", "x")], []),  # inside a cluster
        (["a", "-f", "x"], [("-f", "x")], ["a"]),  # after an operand (GNU permutes)
        (["--file=x"], [("--file", "x")], []),
        (["--file", "x"], [("--file", "x")], []),
        (["--files0", "x"], [("--files0-from", "x")], []),  # abbreviation
        (["--fil", "x"], [("--file", "x"), ("--files0-from", "x")], []),  # ambiguous: both
        (["--in-place", "x"], [("--in-place", None)], ["x"]),  # optional: only after =
        (["--in=.bak", "x"], [("--in-place", ".bak")], ["x"]),
        (["-i.bak", "x"], [("-i", ".bak")], ["x"]),
        (["--", "-f", "x"], [], ["-f", "x"]),
        (["-", "x"], [], ["-", "x"]),
    ],
)
def test_options_as_getopt_long_reads_them(
    args: list[str], options: list[tuple[str, str | None]], operands: list[str]
) -> None:
    parsed = parse(args, SPEC)
    assert [(o.name, o.value) for o in parsed.options] == options
    assert [value for _, value in parsed.operands] == operands


@pytest.mark.parametrize(
    ("script", "runs", "writes", "reads"),
    [
        ("p", False, [], []),
        ("1e date", True, [], []),
        ("$!e date", True, [], []),
        ("/x/ e date", True, [], []),
        ("1,/re/{\n  e date\n}", True, [], []),
        ("s/a/b/e", True, [], []),
        ("s,a,b,ge", True, [], []),
        ("s/a\\/e/b/", False, [], []),  # an escaped delimiter: e is part of the regex
        ("s/a/b/w out.txt", False, ["out.txt"], []),
        ("s/x/y/w /dev/stdout", False, [], []),
        ("w a.txt\np", False, ["a.txt"], []),
        ("2W b.txt", False, ["b.txt"], []),
        ("r /etc/hostname", False, [], ["/etc/hostname"]),
        ("1R/etc/passwd", False, [], ["/etc/passwd"]),
        ("a\\\ntext e w r", False, [], []),  # appended text is no command
        ("i hello; e date", False, [], []),  # GNU one-line text runs to the end of the line
        ("y/e/w/", False, [], []),
        (":loop\nN;b loop", False, [], []),
        ("# e date\np", False, [], []),
        ("0~3{p;q}", False, [], []),
        ("\\%e%p", False, [], []),
        ("s/[/]/w x/e", True, [], []),  # a bracket expression holds the delimiter
        ("s/[]/]/x/", False, [], []),
        ("/[[:alpha:]/]/e date", True, [], []),
        (":a e date", True, [], []),  # a label ends at a blank
        ("v 4.2 e date", True, [], []),
        ("b;e date", True, [], []),
    ],
)
def test_sed_scripts(script: str, runs: bool, writes: list[str], reads: list[str]) -> None:
    parsed = sed_script(script)
    assert parsed is not None
    assert (parsed.runs, parsed.writes, parsed.reads) == (runs, writes, reads)


@pytest.mark.parametrize("script", ["k", "{p", "p}", "s/a/b", "s/a/b/x", "1,p", "w", "y/ab/c"])
def test_what_sed_would_refuse_or_we_cannot_read_is_unparsable(script: str) -> None:
    assert sed_script(script) is None


def test_sed_arguments() -> None:
    effects, files = sed_effects(["-n", "-e", "p", "--expression=2e id", "a", "b"])
    assert (effects.runs, files) == (True, [4, 5])
    in_place, files = sed_effects(["-i", "s/a/b/", "f"])
    assert (in_place.in_place, in_place.writes, files) == (True, ["f"], [2])
    from_file, _ = sed_effects(["-f", "script.sed", "f"])
    assert from_file.unsure
