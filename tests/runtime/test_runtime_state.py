"""A runtime's life has states (built, opened, closed): a closed runtime refuses calls with a
clear error, it opens once, the sandbox is chosen before the first command, and a session can
be built without background jobs."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolbelt import (
    Runtime,
    RuntimeOptions,
    RuntimeState,
    SandboxSettings,
    SessionConfig,
    ToolCall,
    ToolRegistry,
    Toolset,
    UsageError,
)
from toolbelt.config.settings import Settings
from toolbelt.core.registry import AnyTool
from toolbelt.tools._shell import session_sandbox

pytestmark = pytest.mark.anyio

THINK = ToolCall("1", "think", {"thought": "late"})
CLOSED = (
    "This runtime is closed, so it cannot run tools; build a new Runtime (its session and every "
    "process it started ended with it)."
)


class Logged(Toolset):
    """A toolset that logs its lifecycle and may fail to open."""

    def __init__(self, log: list[str], *, fail_open: bool = False) -> None:
        self.log, self.fail_open = log, fail_open

    def tools(self) -> tuple[AnyTool, ...]:
        return ()

    async def open(self) -> None:
        if self.fail_open:
            raise ConnectionError("unreachable")
        self.log.append("open")

    async def aclose(self) -> None:
        self.log.append("close")


async def test_the_runtime_goes_from_built_to_opened_to_closed(tmp_path: Path) -> None:
    runtime = Runtime(tmp_path)
    assert runtime.state is RuntimeState.UNOPENED
    [result] = await runtime.run([THINK])  # a built runtime runs calls already
    assert not result.is_error
    async with runtime:
        assert runtime.state is RuntimeState.OPENED
    assert runtime.state is RuntimeState.CLOSED
    assert runtime.session.closed
    assert repr(runtime).endswith(" closed>")


async def test_a_closed_runtime_refuses_every_call_with_a_usage_error(tmp_path: Path) -> None:
    async with Runtime(tmp_path) as runtime:
        pass
    with pytest.raises(UsageError) as batch:
        await runtime.run([THINK])
    assert str(batch.value) == CLOSED
    with pytest.raises(UsageError) as one:
        await runtime.run_one(THINK)
    assert str(one.value) == CLOSED
    with pytest.raises(UsageError, match="it cannot choose a sandbox"):
        runtime.use_sandbox(SandboxSettings(mode="off"))
    await runtime.aclose()  # closing again changes nothing
    assert runtime.state is RuntimeState.CLOSED


async def test_a_runtime_opens_once(tmp_path: Path) -> None:
    log: list[str] = []
    runtime = Runtime(tmp_path, toolset=Logged(log))
    async with runtime:
        with pytest.raises(UsageError, match="already open; open it once"):
            await runtime.open()
    with pytest.raises(UsageError, match="closed, so it cannot open again"):
        await runtime.open()
    assert log == ["open", "close"]


async def test_a_toolset_that_fails_to_open_is_not_closed_and_the_runtime_is(
    tmp_path: Path,
) -> None:
    log: list[str] = []
    runtime = Runtime(tmp_path, toolset=Logged(log, fail_open=True))
    with pytest.raises(ConnectionError):
        await runtime.open()
    assert runtime.state is RuntimeState.CLOSED
    assert log == []
    with pytest.raises(UsageError):
        await runtime.run([THINK])


async def test_the_sandbox_is_chosen_before_the_first_command_and_the_last_choice_wins(
    tmp_path: Path,
) -> None:
    async with Runtime(tmp_path, mode="bypass", settings=Settings()) as runtime:
        runtime.use_sandbox(SandboxSettings(mode="auto"))
        runtime.use_sandbox(SandboxSettings(mode="off"))
        [ran] = await runtime.run([ToolCall("1", "bash", {"command": "echo ran"})])
        assert ran.text.strip() == "ran"
        assert session_sandbox(runtime.session).settings.mode == "off"
        with pytest.raises(UsageError) as late:
            runtime.use_sandbox(SandboxSettings(mode="auto"))
    assert str(late.value) == (
        "use_sandbox came after this runtime's first command, which already runs in the sandbox "
        "chosen then; choose it right after building the runtime, or pass "
        "RuntimeOptions(sandbox=...)."
    )


async def test_the_sandbox_can_be_an_option(tmp_path: Path) -> None:
    options = RuntimeOptions(sandbox=SandboxSettings(mode="off"))
    async with Runtime(tmp_path, toolset=ToolRegistry(), options=options) as runtime:
        assert session_sandbox(runtime.session).settings.mode == "off"


async def test_a_session_without_background_jobs_refuses_one_and_starts_nothing(
    tmp_path: Path,
) -> None:
    options = RuntimeOptions(
        config=SessionConfig(background_jobs=False), sandbox=SandboxSettings(mode="off")
    )
    async with Runtime(tmp_path, mode="bypass", settings=Settings(), options=options) as runtime:
        arguments = {"command": "touch started", "run_in_background": True}
        started, listed = await runtime.run(
            [ToolCall("1", "bash", arguments), ToolCall("2", "bash_output", {"id": "bg-0"})]
        )
    assert started.error_kind == "tool_error"
    assert started.text == (
        "Background jobs are off in this session, as no later call could be tied to this one to "
        "read the job's output or stop it: run the command in the foreground instead (raise "
        "timeout_ms if it takes long)."
    )
    assert listed.text.endswith("known jobs: none.")
    assert not (tmp_path / "started").exists()
