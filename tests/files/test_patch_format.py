"""The V4A parser: the operations a patch holds, its leniencies, and the refusals it words."""

from __future__ import annotations

import pytest

from toolbelt.files.patch_format import (
    AddFile,
    DeleteFile,
    Hunk,
    PatchSyntaxError,
    UpdateFile,
    parse_patch,
)


def test_every_operation_in_order() -> None:
    text = (
        "*** Begin Patch\n"
        "*** Add File: path/add.py\n"
        "+abc\n"
        "+\n"
        "+def\n"
        "*** Delete File: path/delete.py\n"
        "*** Update File: path/update.py\n"
        "*** Move to: path/update2.py\n"
        "@@ class A\n"
        "@@     def f():\n"
        "-    pass\n"
        "+    return 123\n"
        "\n"
        "@@\n"
        " last\n"
        "+more\n"
        "*** End of File\n"
        "*** End Patch"
    )
    assert parse_patch(text) == [
        AddFile("path/add.py", "abc\n\ndef\n", 2),
        DeleteFile("path/delete.py", 6),
        UpdateFile(
            "path/update.py",
            "path/update2.py",
            (
                Hunk(
                    ("class A", "def f():"),
                    ("    pass",),
                    ("    return 123",),
                    at_end=False,
                    line=9,
                ),
                Hunk((), ("last",), ("last", "more"), at_end=True, line=14),
            ),
            7,
        ),
    ]


@pytest.mark.parametrize(
    ("wrapped", "shift"),
    [
        ("<<'EOF'\n{patch}\nEOF", 1),
        ('apply_patch <<"EOF"\n{patch}\nEOF\n', 1),
        ("```\n{patch}\n```", 1),
        ("  {patch}  \n\n", 0),
        ("\n\n{patch}\n", 2),
    ],
)
def test_wrappers_a_model_puts_around_the_patch_are_taken_off(wrapped: str, shift: int) -> None:
    """Line numbers still count the lines as the model sent them."""
    patch = "*** Begin Patch\n*** Update File: a.txt\n@@ -1 +1 @@\n-x\n+y\n*** End Patch"
    assert parse_patch(wrapped.format(patch=patch)) == [
        UpdateFile(
            "a.txt", None, (Hunk((), ("x",), ("y",), at_end=False, line=3 + shift),), 2 + shift
        )
    ]


def test_a_first_hunk_without_an_at_line_and_blank_lines_between_sections() -> None:
    text = "*** Begin Patch\n*** Update File: a\n x\n-y\n\n\n*** Delete File: b\n*** End Patch"
    assert parse_patch(text) == [
        UpdateFile("a", None, (Hunk((), ("x", "y"), ("x",), at_end=False, line=3),), 2),
        DeleteFile("b", 7),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "*** Begin Patch\n*** Add File: a.txt\n+one\ntwo\n*** End Patch",
            "Line 4 of the patch, `two`, is inside `*** Add File: a.txt` but does not start "
            "with '+'; every line of a new file starts with '+' (an empty line is a lone '+').",
        ),
        (
            "*** Begin Patch\n*** Update File: a.txt\n@@\n*** End Patch",
            "The hunk at line 3 of the patch (a.txt) has no lines; follow each `@@` line with "
            "the lines to change, each starting with ' ' (context), '-' (removed) or '+' "
            "(added).",
        ),
        (
            "*** Begin Patch\n*** Update File: a.txt\n*** End Patch",
            "`*** Update File: a.txt` (line 2 of the patch) has no hunks; add the lines to "
            "change (' ' context, '-' removed, '+' added) after an `@@` line, or leave the "
            "section out.",
        ),
    ],
)
def test_refusals_name_the_patch_line(text: str, message: str) -> None:
    with pytest.raises(PatchSyntaxError) as info:
        parse_patch(text)
    assert str(info.value) == message
