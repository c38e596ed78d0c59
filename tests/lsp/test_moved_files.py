"""Diagnostics after a move (apply_patch's ``*** Move to:``) are matched rename-aware: the
file's problems before are those it had where it was, so a move that breaks a relative import
reports it as new and a problem it carried along does not; they are reported under the new
path, and nothing is reported or kept any more under the old one."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.lsp.test_diagnostics_after_edit import (
    diagnostics_part,
    edit,
    fake,
    harness,
    needs_basedpyright,
    until,
)
from tests.tools.helpers import Harness

from toolbelt.lsp.service import CodeDiagnostics
from toolbelt.lsp.settings import LspSettings

pytestmark = pytest.mark.anyio

MODULE = "from .helper import helper\n\nprint(helper())\nprint(missing)\n"


async def patch(h: Harness, *lines: str) -> str:
    result = await h.call(
        "apply_patch", input="\n".join(["*** Begin Patch", *lines, "*** End Patch", ""])
    )
    assert not result.is_error, result.text
    return result.text


def package(root: Path) -> None:
    for directory in (root / "pkg", root / "pkg" / "sub"):
        directory.mkdir(parents=True)
        (directory / "__init__.py").write_text("")
    (root / "pkg" / "helper.py").write_text("def helper() -> int:\n    return 1\n")
    (root / "pkg" / "mod.py").write_text(MODULE)
    (root / "pkg" / "user.py").write_text("from pkg.mod import helper\n\nprint(helper())\n")


@needs_basedpyright
async def test_a_move_reports_what_it_broke_under_the_new_path_and_not_what_it_carried(
    tmp_path: Path,
) -> None:
    package(tmp_path)
    h = harness(tmp_path, LspSettings(timeout=60))
    try:
        await h.call("read_file", path="pkg/mod.py")
        text = await patch(
            h,
            "*** Update File: pkg/mod.py",
            "*** Move to: pkg/sub/mod.py",
            "@@",
            " print(missing)",
            "+print(helper() + 1)",
        )
        # `.helper` resolved in pkg/, not in pkg/sub/: new; `missing` was there before
        assert diagnostics_part(text) == [
            "New diagnostics in pkg/sub/mod.py (basedpyright): 1 error",
            '  pkg/sub/mod.py:1:6: error [reportMissingImports] Import ".helper" could not '
            "be resolved",
        ]
    finally:
        await h.session.aclose()


@needs_basedpyright
async def test_after_a_move_the_server_no_longer_sees_the_file_where_it_was(
    tmp_path: Path,
) -> None:
    package(tmp_path)
    h = harness(tmp_path, LspSettings(timeout=60))
    try:
        await h.call("read_file", path="pkg/mod.py")
        await edit(h, "pkg/mod.py", "print(missing)\n", "print(missing, 1)\n")  # now open there
        await patch(h, "*** Update File: pkg/mod.py", "*** Move to: pkg/sub/mod.py")
        # pkg/user.py still imports pkg.mod, which is gone: the server must not answer from
        # the copy of pkg/mod.py it was given before the move
        result = await h.call("lsp", operation="diagnostics", path="pkg/user.py")
        assert not result.is_error, result.text
        assert result.text == (
            "1 diagnostics in pkg/user.py (basedpyright), errors first:\n"
            '  pkg/user.py:1:21: error [reportAttributeAccessIssue] "helper" is unknown import '
            "symbol"
        )
    finally:
        await h.session.aclose()


async def test_late_diagnostics_of_a_file_moved_since_are_not_reported_under_its_old_path(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    (tmp_path / "c.py").write_text("c = 1\n")
    h = harness(tmp_path, LspSettings(timeout=1.0, servers={"python": fake("slow:1.5")}))
    try:
        await h.call("read_file", path="a.py")
        await h.call("read_file", path="c.py")
        await edit(h, "a.py", "a = 1\n", "a = 2\n")  # starts the server
        service = h.session.peek(CodeDiagnostics)
        assert service is not None
        await until(lambda: bool(service.servers.running()))
        pending_text = await edit(h, "a.py", "a = 2\n", "a = 3  # BROKEN\n")
        assert "they will be reported with the next result" in pending_text
        pending = service._pending[tmp_path / "a.py"]
        moved = await patch(h, "*** Update File: a.py", "*** Move to: b.py")
        await until(pending.work.done)
        for text in (moved, await edit(h, "c.py", "c = 1\n", "c = 2\n")):
            assert not [line for line in diagnostics_part(text) if "a.py" in line], text
    finally:
        await h.session.aclose()
