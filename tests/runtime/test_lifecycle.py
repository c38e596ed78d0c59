"""Toolsets have a lifecycle (open, list asynchronously, aclose) and the runtime drives it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolbelt import CombinedToolset, Runtime, ToolRegistry, Toolset
from toolbelt.core.errors import UsageError
from toolbelt.core.registry import AnyTool
from toolbelt.core.shared_toolset import SharedToolset

pytestmark = pytest.mark.anyio


class Connected(Toolset):
    """Stands for a toolset backed by a connection: it logs when it opens and closes."""

    def __init__(self, name: str, log: list[str], *, fail_open: bool = False) -> None:
        self.name, self.log, self.fail_open = name, log, fail_open

    def tools(self) -> tuple[AnyTool, ...]:
        return ()

    async def list_tools(self) -> tuple[AnyTool, ...]:
        self.log.append(f"list {self.name}")
        return ()

    async def open(self) -> None:
        if self.fail_open:
            raise ConnectionError(f"{self.name} is unreachable")
        self.log.append(f"open {self.name}")

    async def aclose(self) -> None:
        self.log.append(f"close {self.name}")


async def test_the_runtime_opens_its_toolset_and_closes_it_after_the_session(
    tmp_path: Path,
) -> None:
    log: list[str] = []
    async with Runtime(tmp_path, toolset=Connected("a", log)) as runtime:
        assert log == ["open a"]
        assert await runtime.toolset.list_tools() == ()
    assert log == ["open a", "list a", "close a"]
    assert runtime.session.closed


async def test_a_combined_toolset_closes_what_it_opened_when_a_member_fails(
    tmp_path: Path,
) -> None:
    log: list[str] = []
    combined = CombinedToolset(Connected("a", log), Connected("b", log, fail_open=True))
    with pytest.raises(ConnectionError, match="b is unreachable"):
        async with combined:
            pass
    assert log == ["open a", "close a"]


async def test_filtered_and_combined_toolsets_forward_the_lifecycle() -> None:
    log: list[str] = []
    combined = CombinedToolset(Connected("a", log), Connected("b", log).readonly())
    async with combined:
        await combined.list_tools()
    assert log == ["open a", "open b", "list a", "list b", "close b", "close a"]


def test_a_bad_mode_fails_before_anything_is_opened(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="Unknown permission mode 'fast'"):
        Runtime(tmp_path, toolset=ToolRegistry(), mode="fast")


async def test_a_toolset_that_fails_to_open_leaves_the_session_closed(tmp_path: Path) -> None:
    runtime = Runtime(tmp_path, toolset=Connected("a", [], fail_open=True))
    with pytest.raises(ConnectionError, match="a is unreachable"):
        async with runtime:
            pass
    assert runtime.session.closed


async def test_a_shared_toolset_is_opened_by_its_first_holder_and_closed_by_its_last(
    tmp_path: Path,
) -> None:
    log: list[str] = []
    shared = SharedToolset(Connected("a", log))
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    first, second = shared.lease(), shared.lease()
    async with Runtime(tmp_path / "1", toolset=first), Runtime(tmp_path / "2", toolset=second):
        await first.open()  # a holder opening twice still holds it once
        assert log == ["open a"]
    assert log == ["open a", "close a"]
    await first.aclose()  # closing an ended lease again changes nothing
    async with Runtime(tmp_path / "1", toolset=shared.lease()):
        assert log == ["open a", "close a", "open a"]
    assert log == ["open a", "close a", "open a", "close a"]
