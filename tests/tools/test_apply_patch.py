"""apply_patch through the real executor: a table of patches with the exact bytes every file
holds afterwards, the refusals (nothing written), permissions per file, and the rollback."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.tools.helpers import Harness, call_once

from toolbelt.config.settings import Settings
from toolbelt.core.context import Session
from toolbelt.core.events import CallState, DiffEvent
from toolbelt.core.permission import Answer, Approval, Ask, PermissionRequest, PermissionRequester
from toolbelt.policy.rules import parse_rule

pytestmark = pytest.mark.anyio

BOM = "\ufeff".encode()


def patch(*lines: str) -> str:
    return "\n".join(("*** Begin Patch", *lines, "*** End Patch")) + "\n"


@dataclass(frozen=True)
class Case:
    """Files before (bytes), the patch, and every file of the workspace afterwards."""

    name: str
    files: dict[str, bytes]
    patch: str
    after: dict[str, bytes]
    read: tuple[str, ...] | None = None
    """Files read before the patch (None: every file)."""
    result: str | None = None
    """The whole result text, when the case checks it."""
    notes: tuple[str, ...] = field(default=())
    """Substrings the result must hold (recoveries, notes)."""


CASES = [
    Case(
        "update-add-delete-across-files",
        {
            "app.py": b"import os\n\n\ndef main():\n    print('hi')\n    return 0\n",
            "old.txt": b"obsolete\n",
        },
        patch(
            "*** Update File: app.py",
            "@@",
            " import os",
            "+import sys",
            "@@ def main():",
            "-    print('hi')",
            "+    print('hello', file=sys.stderr)",
            "     return 0",
            "*** Add File: pkg/util.py",
            "+def helper():",
            "+    return 1",
            "*** Delete File: old.txt",
        ),
        {
            "app.py": b"import os\nimport sys\n\n\ndef main():\n"
            b"    print('hello', file=sys.stderr)\n    return 0\n",
            "pkg/util.py": b"def helper():\n    return 1\n",
        },
        result=(
            "Success. Updated the following files:\nM app.py (+2 -1)\nA pkg/util.py (+2 -0)\n"
            "D old.txt (+0 -1)"
        ),
    ),
    Case(
        "move-with-update",
        {"src/app.py": b"def greet():\n    print('Hi')\n", "src/keep.py": b"x = 1\n"},
        patch(
            "*** Update File: src/app.py",
            "*** Move to: src/cli/main.py",
            "@@ def greet():",
            "-    print('Hi')",
            "+    print('Hello')",
        ),
        {"src/cli/main.py": b"def greet():\n    print('Hello')\n", "src/keep.py": b"x = 1\n"},
        result=(
            "Success. Updated the following files:\n"
            "M src/cli/main.py (moved from src/app.py) (+1 -1)"
        ),
    ),
    Case(
        "move-only",
        {"notes.md": b"# Notes\n"},
        patch("*** Update File: notes.md", "*** Move to: docs/notes.md"),
        {"docs/notes.md": b"# Notes\n"},
    ),
    Case(
        "context-drift-lines-added-above",
        {
            "calc.py": b"# added since the model read it\nimport math\n\n\n"
            b"def area(r):\n    return 3.14 * r * r\n"
        },
        patch(
            "*** Update File: calc.py",
            "@@",
            " def area(r):",
            "-    return 3.14 * r * r",
            "+    return math.pi * r * r",
        ),
        {
            "calc.py": b"# added since the model read it\nimport math\n\n\n"
            b"def area(r):\n    return math.pi * r * r\n"
        },
    ),
    Case(
        "repeated-block-chosen-by-anchor",
        {
            "m.py": b"def first():\n    x = 1\n    return x\n\n\n"
            b"def second():\n    x = 1\n    return x\n"
        },
        patch("*** Update File: m.py", "@@ def second():", "-    x = 1", "+    x = 2"),
        {
            "m.py": b"def first():\n    x = 1\n    return x\n\n\n"
            b"def second():\n    x = 2\n    return x\n"
        },
    ),
    Case(
        "nested-anchors-narrow-step-by-step",
        {
            "s.py": b"class A:\n    def run(self):\n        go()\n\n\n"
            b"class B:\n    def run(self):\n        go()\n"
        },
        patch(
            "*** Update File: s.py",
            "@@ class B:",
            "@@     def run(self):",
            "-        go()",
            "+        stop()",
        ),
        {
            "s.py": b"class A:\n    def run(self):\n        go()\n\n\n"
            b"class B:\n    def run(self):\n        stop()\n"
        },
    ),
    Case(
        "crlf-file-keeps-crlf",
        {"w.txt": b"one\r\ntwo\r\nthree\r\n"},
        patch("*** Update File: w.txt", "@@", " one", "-two", "+2", "+2.5", " three"),
        {"w.txt": b"one\r\n2\r\n2.5\r\nthree\r\n"},
    ),
    Case(
        "bom-crlf-curly-quotes-kept",
        {"t.md": BOM + "Title: “Draft”\r\nBody\r\n".encode()},
        patch("*** Update File: t.md", "@@", '-Title: "Draft"', '+Title: "Final"', " Body"),
        {"t.md": BOM + "Title: “Final”\r\nBody\r\n".encode()},
        notes=("t.md: lines did not match exactly; recovered by: matched Unicode look-alikes",),
    ),
    Case(
        "tabs-typed-as-spaces",
        {"f.go": b"func f() {\n\tif ok {\n\t\treturn 1\n\t}\n}\n"},
        patch(
            "*** Update File: f.go",
            "@@",
            "     if ok {",
            "-        return 1",
            "+        log()",
            "+        return 2",
            "     }",
        ),
        {"f.go": b"func f() {\n\tif ok {\n\t\tlog()\n\t\treturn 2\n\t}\n}\n"},
        notes=("matched ignoring indentation and re-indented the '+' lines",),
    ),
    Case(
        "trailing-spaces-of-context-kept",
        {"a.md": b"Address:  \n12 Main St  \nSpringfield\n"},
        patch("*** Update File: a.md", "@@", " Address:", " 12 Main St", "-Springfield", "+Shelby"),
        {"a.md": b"Address:  \n12 Main St  \nShelby\n"},
    ),
    Case(
        "no-final-newline-kept",
        {"v.txt": b"alpha\nbeta"},
        patch("*** Update File: v.txt", "@@", "-alpha", "+ALPHA", " beta"),
        {"v.txt": b"ALPHA\nbeta"},
    ),
    Case(
        "no-final-newline-lines-added-at-end",
        {"v.txt": b"alpha\nbeta"},
        patch("*** Update File: v.txt", "@@", " beta", "+gamma", "*** End of File"),
        {"v.txt": b"alpha\nbeta\ngamma\n"},
    ),
    Case(
        "end-of-file-hunk-prefers-the-end",
        {"r.txt": b"}\nmiddle\n}\n"},
        patch("*** Update File: r.txt", "@@", "-}", "+};", "*** End of File"),
        {"r.txt": b"}\nmiddle\n};\n"},
    ),
    Case(
        "gbk-file-keeps-its-encoding",
        {"c.txt": "// 这是一个用于说明变量含义的中文注释\r\nint a = 1;\r\n".encode("gbk")},
        patch("*** Update File: c.txt", "@@", "-int a = 1;", "+int a = 2;"),
        {"c.txt": "// 这是一个用于说明变量含义的中文注释\r\nint a = 2;\r\n".encode("gbk")},
    ),
    Case(
        "pure-insertion-below-anchor",
        {"k.py": b"class K:\n    def f(self):\n        pass\n"},
        patch("*** Update File: k.py", "@@ class K:", "+    x = 1"),
        {"k.py": b"class K:\n    x = 1\n    def f(self):\n        pass\n"},
    ),
    Case(
        "two-sections-on-one-file",
        {"n.txt": b"a\nb\nc\n"},
        patch(
            "*** Update File: n.txt",
            "@@",
            "-a",
            "+A",
            "*** Update File: n.txt",
            "@@",
            "-c",
            "+C",
        ),
        {"n.txt": b"A\nb\nC\n"},
    ),
    Case(
        "delete-then-add-the-same-path",
        {"d.txt": b"old\n"},
        patch("*** Delete File: d.txt", "*** Add File: d.txt", "+new"),
        {"d.txt": b"new\n"},
    ),
    Case(
        "heredoc-around-the-patch",
        {"h.txt": b"x\n"},
        "<<'EOF'\n" + patch("*** Update File: h.txt", "@@", "-x", "+y") + "EOF\n",
        {"h.txt": b"y\n"},
    ),
    Case(
        "empty-lines-in-hunk-and-added-file",
        {"e.py": b"a = 1\n\nb = 2\n"},
        patch(
            "*** Update File: e.py",
            "@@",
            " a = 1",
            "",
            "-b = 2",
            "+b = 3",
            "*** Add File: f.py",
            "+x = 1",
            "",
            "+y = 2",
        ),
        {"e.py": b"a = 1\n\nb = 3\n", "f.py": b"x = 1\n\ny = 2\n"},
    ),
]


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


async def read_all(harness: Harness, names: list[str] | tuple[str, ...]) -> None:
    for name in names:
        result = await harness.call("read_file", path=name)
        assert result.state is CallState.SUCCESS, result.text


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_patch(case: Case, tmp_path: Path) -> None:
    write_tree(tmp_path, case.files)
    harness = Harness(tmp_path, mode="accept_edits")
    await read_all(harness, list(case.files) if case.read is None else case.read)
    result = await harness.call("apply_patch", input=case.patch)
    assert result.state is CallState.SUCCESS, result.text
    assert tree(tmp_path) == case.after
    if case.result is not None:
        assert result.text == case.result
    for note in case.notes:
        assert note in result.text


async def test_a_hunk_that_does_not_apply_writes_nothing(tmp_path: Path) -> None:
    files = {"a.py": b"x = 1\ny = 2\n", "b.py": b"def f():\n    return 1\n"}
    write_tree(tmp_path, files)
    harness = Harness(tmp_path, mode="accept_edits")
    await read_all(harness, list(files))
    result = await harness.call(
        "apply_patch",
        input=patch(
            "*** Update File: a.py",
            "@@",
            "-x = 1",
            "+x = 10",
            "*** Add File: c.py",
            "+z = 3",
            "*** Update File: b.py",
            "@@ def f():",
            "-    return 2",
            "+    return 3",
        ),
    )
    assert result.state is CallState.ERROR
    assert result.text == (
        "The hunk of b.py (patch line 9) did not apply, so nothing was changed: its context and "
        "'-' lines (from `return 2`) are not in the file; read b.py again and copy them exactly "
        "as it shows them. The closest match is near line 2:\n1\tdef f():\n2\t    return 1\n3\t"
    )
    assert tree(tmp_path) == files


async def test_the_second_hunk_is_named(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.txt": b"one\ntwo\nthree\n"})
    harness = Harness(tmp_path, mode="accept_edits")
    await read_all(harness, ["a.txt"])
    result = await harness.call(
        "apply_patch",
        input=patch("*** Update File: a.txt", "@@", "-one", "+1", "@@", "-one", "+uno"),
    )
    assert result.text.startswith(
        "Hunk 2 of a.txt (patch line 6) did not apply, so nothing was changed: its context and "
        "'-' lines (from `one`) are not in the file below line 1; read a.txt again"
    )
    assert (tmp_path / "a.txt").read_bytes() == b"one\ntwo\nthree\n"


@pytest.mark.parametrize(
    ("files", "text", "message"),
    [
        (
            {},
            patch("*** Update File: gone.py", "@@", "-a", "+b"),
            "gone.py does not exist (patch line 2); `*** Update File` changes existing files — "
            "create it with `*** Add File`.",
        ),
        (
            {"a.py": b"def f():\n    pass\n"},
            patch("*** Update File: a.py", "@@ def g():", "-    pass", "+    return 1"),
            "The hunk of a.py (patch line 3) did not apply, so nothing was changed: its line "
            "`@@ def g():` names no line of the file; after `@@` copy a line of the file above "
            "the change (the class or function it is in) exactly, or leave the `@@` line bare.",
        ),
        (
            {"a.py": b"x = 1\n"},
            "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n",
            "The patch must end with the line `*** End Patch`; it may have been cut off, so "
            "nothing was changed: send the whole patch again, ending with `*** End Patch`.",
        ),
        (
            {"a.py": b"x = 1\n"},
            patch("*** Update File: a.py", "@@", "x = 1", "+x = 2"),
            "Line 4 of the patch, `x = 1`, is inside a hunk of a.py but starts with none of "
            "' ' (context), '-' (removed) or '+' (added); prefix every hunk line with one of "
            "them (a context line keeps its own indentation after the space).",
        ),
        (
            {"a.py": b"x = 1\n"},
            patch("*** Delete File: missing.py"),
            "missing.py does not exist (patch line 2), or the patch already removed or moved "
            "it; leave out its `*** Delete File` section.",
        ),
        (
            {"a.py": b"\tx = 1\n\n    x = 1\n"},
            patch("*** Update File: a.py", "@@", "-  x = 1", "+  x = 2"),
            "The hunk of a.py (patch line 3) did not apply, so nothing was changed: its lines "
            "match only when indentation, trailing whitespace and Unicode look-alikes are "
            "ignored, and then 2 places (lines 1, 3); copy its context and '-' lines exactly "
            "from the file, or add an `@@` line naming the function or class above the change.",
        ),
    ],
    ids=["update-missing", "anchor-missing", "no-end", "bad-line", "delete-missing", "ambiguous"],
)
async def test_refusals_name_the_file_and_what_to_do(
    tmp_path: Path, files: dict[str, bytes], text: str, message: str
) -> None:
    write_tree(tmp_path, files)
    harness = Harness(tmp_path, mode="accept_edits")
    await read_all(harness, list(files))
    result = await harness.call("apply_patch", input=text)
    assert (result.state, result.text) == (CallState.ERROR, message)
    assert tree(tmp_path) == files


async def test_a_file_not_read_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    files = {"seen.py": b"a = 1\n", "unseen.py": b"b = 1\n"}
    write_tree(tmp_path, files)
    harness = Harness(tmp_path, mode="accept_edits")
    await read_all(harness, ["seen.py"])
    result = await harness.call(
        "apply_patch",
        input=patch(
            "*** Update File: seen.py",
            "@@",
            "-a = 1",
            "+a = 2",
            "*** Delete File: unseen.py",
        ),
    )
    assert (result.state, result.text) == (
        CallState.ERROR,
        "unseen.py has not been read in this session. Read it with read_file first, so the "
        "change is based on its current content.",
    )
    assert tree(tmp_path) == files


async def test_adding_over_a_file_changed_since_it_was_read_is_refused(tmp_path: Path) -> None:
    write_tree(tmp_path, {"c.txt": b"v1\n"})
    harness = Harness(tmp_path, mode="accept_edits")
    await read_all(harness, ["c.txt"])
    (tmp_path / "c.txt").write_bytes(b"v2, written by someone else\n")
    result = await harness.call("apply_patch", input=patch("*** Add File: c.txt", "+mine"))
    assert result.text == (
        "c.txt has changed since you read it (another program or the user edited it). Read it "
        "again with read_file before replacing or deleting it."
    )
    assert (tmp_path / "c.txt").read_bytes() == b"v2, written by someone else\n"


async def test_a_moved_file_keeps_its_mode_and_one_diff_per_file_is_published(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"run.sh": b"echo hi\n", "a.txt": b"a\n"})
    os.chmod(tmp_path / "run.sh", 0o750)
    harness = Harness(tmp_path, mode="accept_edits")
    await read_all(harness, ["run.sh", "a.txt"])
    diffs: list[DiffEvent] = []
    harness.executor.events.subscribe(
        lambda event: diffs.append(event) if isinstance(event, DiffEvent) else None
    )
    result = await harness.call(
        "apply_patch",
        input=patch(
            "*** Update File: run.sh",
            "*** Move to: bin/run.sh",
            "@@",
            "-echo hi",
            "+echo hello",
            "*** Update File: a.txt",
            "@@",
            "-a",
            "+b",
        ),
    )
    assert result.state is CallState.SUCCESS, result.text
    assert stat.S_IMODE((tmp_path / "bin/run.sh").stat().st_mode) == 0o750
    assert [(d.path, d.unified) for d in diffs] == [
        (
            "bin/run.sh",
            "--- a/run.sh\n+++ b/bin/run.sh\n@@ -1 +1 @@\n-echo hi\n+echo hello\n",
        ),
        ("a.txt", "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n"),
    ]


# -- permissions: every path judged --------------------------------------------------------


async def test_a_protected_path_asks_even_when_edits_are_accepted(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": b"x = 1\n"})
    harness = Harness(tmp_path, mode="accept_edits", approve=False)
    await read_all(harness, ["a.py"])
    result = await harness.call(
        "apply_patch",
        input=patch(
            "*** Update File: a.py",
            "@@",
            "-x = 1",
            "+x = 2",
            "*** Add File: .vscode/tasks.json",
            '+{"tasks": []}',
        ),
    )
    assert result.state is CallState.ERROR
    [(tool, reason)] = harness.requester.asked
    assert tool == "apply_patch"
    assert reason.startswith("apply patch: update a.py (+1 -1), add .vscode/tasks.json (+1 -0)")
    assert "protected path" in reason
    assert tree(tmp_path) == {"a.py": b"x = 1\n"}


async def test_a_path_outside_the_workspace_asks(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    harness = Harness(root, mode="accept_edits", approve=False)
    result = await harness.call(
        "apply_patch",
        input=patch("*** Add File: inside.txt", "+in", "*** Add File: ../outside.txt", "+out"),
    )
    assert result.state is CallState.ERROR
    [(_, reason)] = harness.requester.asked
    assert reason.endswith("changes files outside the workspace.")
    assert not (root / "inside.txt").exists() and not (tmp_path / "outside.txt").exists()


async def test_a_deny_rule_on_one_file_denies_the_whole_patch(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": b"x = 1\n"})
    session = Session(tmp_path)
    settings = Settings(deny=[parse_rule("Edit(secret/**)")])
    result, requester = await call_once(
        session,
        "apply_patch",
        {"input": patch("*** Add File: ok.txt", "+fine", "*** Add File: secret/key.txt", "+k")},
        mode="bypass",
        settings=settings,
    )
    assert (result.state, result.text) == (
        CallState.ERROR,
        "the rule `Edit(secret/**)` denies this call. Do not retry it; choose another approach "
        "or ask the user to change the rule.",
    )
    assert requester.asked == []
    assert tree(tmp_path) == {"a.py": b"x = 1\n"}


# -- all or nothing: a failure while writing puts every file back ---------------------------


class ChangesTheTree(PermissionRequester):
    """Approves, after changing the workspace the way another program might meanwhile."""

    def __init__(self, change: object) -> None:
        self.change = change

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        assert callable(self.change)
        self.change()
        return Answer(Approval.ONCE)


async def test_a_write_that_fails_rolls_back_the_files_already_written(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": b"x = 1\n"})
    harness = Harness(tmp_path)
    await read_all(harness, ["a.py"])
    harness.executor.requester = ChangesTheTree(lambda: (tmp_path / "new").write_bytes(b"file"))
    result = await harness.call(
        "apply_patch",
        input=patch(
            "*** Update File: a.py",
            "@@",
            "-x = 1",
            "+x = 2",
            "*** Add File: made/deep/b.py",
            "+y = 1",
            "*** Add File: new/c.py",
            "+z = 1",
        ),
    )
    assert result.state is CallState.ERROR
    assert result.text.startswith("Writing new/c.py failed (")
    assert result.text.endswith(
        "so the patch was rolled back: every file is as it was before; check that path and "
        "send the patch again."
    )
    assert tree(tmp_path) == {"a.py": b"x = 1\n", "new": b"file"}
    assert not (tmp_path / "made").exists()


async def test_a_removal_that_fails_puts_back_a_removed_file_with_its_mode(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    write_tree(root, {"a.sh": b"echo a\n", "sub/b.txt": b"b\n"})
    os.chmod(root / "a.sh", 0o755)
    harness = Harness(root)
    await read_all(harness, ["a.sh", "sub/b.txt"])

    def swap_sub_for_a_symlink() -> None:  # b.txt itself stays the same file
        (root / "sub").rename(tmp_path / "elsewhere")
        (root / "sub").symlink_to(tmp_path / "elsewhere")

    harness.executor.requester = ChangesTheTree(swap_sub_for_a_symlink)
    result = await harness.call(
        "apply_patch", input=patch("*** Delete File: a.sh", "*** Delete File: sub/b.txt")
    )
    assert result.state is CallState.ERROR
    assert result.text.startswith("Removing sub/b.txt failed (")
    assert result.text.endswith(
        "so the patch was rolled back: every file is as it was before; check that path and "
        "send the patch again."
    )
    assert (root / "a.sh").read_bytes() == b"echo a\n"
    assert stat.S_IMODE((root / "a.sh").stat().st_mode) == 0o755
    assert (tmp_path / "elsewhere" / "b.txt").read_bytes() == b"b\n"
