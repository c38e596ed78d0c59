"""apply_patch never removes what a symbolic link leads to when asked to delete or move the
link: the plan works on real paths, so ``*** Delete File: link.txt`` would delete the file
outside the workspace (after an approval that named the link) and leave the link dangling.
It refuses with one sentence, and nothing on disk changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState

pytestmark = pytest.mark.anyio


def patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


async def test_deleting_a_link_to_a_file_outside_removes_nothing(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "out" / "t.txt"
    root.mkdir()
    outside.parent.mkdir()
    outside.write_text("OUTSIDE\n")
    (root / "link.txt").symlink_to(outside)
    h = Harness(root, mode="default", approve=True)
    read = await h.call("read_file", path="link.txt")  # approved: the model has seen it
    assert "OUTSIDE" in read.text
    result = await h.call("apply_patch", input=patch("*** Delete File: link.txt\n"))
    assert result.state is not CallState.SUCCESS
    assert result.text == (
        "link.txt is a symbolic link (patch line 2); `*** Delete File` would remove the file "
        "it leads to, not the link. To remove the link itself, use bash (`rm` on the link)."
    )
    assert outside.read_text() == "OUTSIDE\n"
    assert (root / "link.txt").is_symlink()


async def test_moving_a_link_does_not_remove_the_file_it_leads_to(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("one\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    h = Harness(tmp_path, mode="bypass")
    assert "one" in (await h.call("read_file", path="link.txt")).text
    moved = patch("*** Update File: link.txt\n*** Move to: new.txt\n@@\n-one\n+two\n")
    result = await h.call("apply_patch", input=moved)
    assert result.state is not CallState.SUCCESS
    assert "link.txt is a symbolic link (patch line 2); `*** Move to` would remove" in result.text
    assert (tmp_path / "real.txt").read_text() == "one\n"
    assert not (tmp_path / "new.txt").exists()
    # editing through the link in place still works: it changes the file it leads to
    edited = await h.call("apply_patch", input=patch("*** Update File: link.txt\n@@\n-one\n+two\n"))
    assert edited.state is CallState.SUCCESS, edited.text
    assert (tmp_path / "real.txt").read_text() == "two\n"
    assert (tmp_path / "link.txt").is_symlink()
