"""bash, bash_output and kill_shell with real processes, checked in /proc afterwards."""

from __future__ import annotations

import os
import re
import resource
from pathlib import Path

import anyio
import pytest
from tests.support.processes import live_pids
from tests.support.waiting import wait_until, wait_until_async
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState, ProgressEvent
from toolbelt.core.executor import ToolCall
from toolbelt.core.wording import counted
from toolbelt.procs.ending import marked_processes

pytestmark = pytest.mark.anyio


TAG = str(os.getpid())
"""Our sleeps carry this run's pid (`sleep 1000` → `sleep 100<pid>0`), so a test suite running
beside this one (a second checkout, CI) can never be mistaken for a process we left behind."""


def tagged(command: str) -> str:
    return command.replace("sleep 100", f"sleep 100{TAG}")


def pids_running(pattern: str) -> list[int]:
    """The live processes running ``pattern``, not counting the anchors (``shell.subreaper``)
    whose argv repeats the command they start."""
    return [pid for pid in live_pids(tagged(pattern)) if not _anchor(pid)]


def _anchor(pid: int) -> bool:
    try:
        return b"toolbelt.procs.anchor" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # it ended meanwhile: not running either way
        return True


@pytest.fixture
async def h(tmp_path: Path):  # type: ignore[no-untyped-def]
    harness = Harness(tmp_path, mode="bypass")
    yield harness
    await harness.session.aclose()


async def test_cwd_and_exports_persist(h: Harness, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert (
        await h.call("bash", command="cd sub && export GREETING=hello")
    ).state is CallState.SUCCESS
    result = await h.call("bash", command='pwd; echo "$GREETING"')
    assert result.text == f"{tmp_path}/sub\nhello"
    assert h.session.cwd == tmp_path / "sub"


async def test_exports_and_cwd_survive_a_killed_shell(h: Harness, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    await h.call("bash", command="export GREETING=hello")
    await h.call("bash", command="read -r LINE <<< 'from read'; export LINE")
    await h.call("bash", command="cd sub")
    await h.call("bash", command="ls")  # a plain command: the saved variables are not rewritten
    killed = await h.call("bash", command=tagged("sleep 1009"), timeout_ms=300)
    assert killed.state is CallState.ERROR  # the shell died with it and was restarted
    after = await h.call("bash", command='pwd; echo "$GREETING / $LINE"')
    assert after.text == f"{tmp_path}/sub\nhello / from read"


async def test_cd_out_of_the_workspace_is_undone(h: Harness, tmp_path: Path) -> None:
    result = await h.call("bash", command="cd / && pwd")
    assert (
        result.text
        == f"/\n\n[Shell cwd was reset to {tmp_path}: cd out of the workspace is not allowed.]"
    )
    assert (await h.call("bash", command="pwd")).text == str(tmp_path)


async def test_exit_codes_and_stderr_in_order(h: Harness) -> None:
    result = await h.call("bash", command="echo out; echo err >&2; exit 3")
    assert (result.state, result.text) == (CallState.ERROR, "Exit code 3\nout\nerr")
    assert (await h.call("bash", command="echo still alive")).text == "still alive"


async def test_stdin_is_empty_so_reads_do_not_hang(h: Harness) -> None:
    with anyio.fail_after(60):  # a read that hangs never ends; a loaded machine is slow to start
        result = await h.call("bash", command="cat; read x; echo done $?")
    assert result.text == "done 1"


async def test_environment_drops_secrets_and_marks_toolbelt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_API_KEY", "sk-live-123")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_x")
    monkeypatch.setenv("HARMLESS", "ok")
    harness = Harness(tmp_path, mode="bypass")
    try:
        result = await harness.call(
            "bash", command='echo "[$MY_API_KEY][$GITHUB_TOKEN][$HARMLESS][$TOOLBELT]"'
        )
    finally:
        await harness.session.aclose()
    assert result.text == "[][][ok][1]"


@pytest.mark.parametrize(
    "command",
    [
        "sleep 1000",
        "nohup sleep 1001 >/dev/null 2>&1 & sleep 1000",
        "setsid sleep 1002 & sleep 1000",
        "( ( sleep 1003 & ) & ) ; sleep 1000",
        "sh -c 'trap \"\" TERM; sleep 1004' & sleep 1000",
    ],
)
async def test_timeout_kills_everything_the_command_started(h: Harness, command: str) -> None:
    result = await h.call("bash", command=tagged(command), timeout_ms=500)
    assert result.state is CallState.ERROR
    assert result.text.startswith("Command timed out after 0.5 s and was killed")
    assert pids_running("sleep 100") == []
    assert (await h.call("bash", command="echo usable")).text == "usable"


async def test_background_children_of_a_finished_command_are_ended(h: Harness) -> None:
    result = await h.call("bash", command=tagged("sleep 1005 & echo started"))
    assert result.text == "started"
    assert pids_running("sleep 1005") == []


async def test_huge_output_is_capped_spilled_and_memory_stays_bounded(h: Harness) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = await h.call("bash", command="yes | head -c 100000000")
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert result.state is CallState.SUCCESS
    assert len(result.text) <= 30_500
    match = re.search(
        r"\[\.\.\. ([\d,]+) characters omitted; the output was 100,000,000 bytes, of which "
        r"only the first 67,108,864 bytes were kept, in (\S+) \(the rest is lost",
        result.text,
    )
    assert match is not None
    spill = Path(match.group(2))
    assert spill.stat().st_size == 64 * 1024 * 1024  # the spill file's limit
    assert spill.stat().st_mode & 0o777 == 0o600
    assert grown_mb < 60


async def test_binary_and_invalid_utf8_output(h: Harness) -> None:
    result = await h.call("bash", command=r"printf 'a\xff\xfeb\x00c\n'")
    assert result.text == "a\ufffd\ufffdb\x00c"


async def test_output_streams_as_progress(h: Harness) -> None:
    seen: list[str] = []
    h.executor.events.subscribe(
        lambda e: seen.append(e.message) if isinstance(e, ProgressEvent) else None
    )
    await h.call("bash", command="echo one; sleep 0.3; echo two")
    assert "".join(seen) == "one\ntwo\n"


async def test_each_line_reaches_progress_while_the_command_runs(h: Harness) -> None:
    # the command waits for the test, which waits to see each line: held-back output deadlocks
    seen: list[str] = []
    h.executor.events.subscribe(
        lambda e: seen.append(e.message) if isinstance(e, ProgressEvent) else None
    )
    wait = "until [ -e {0} ]; do sleep 0.01; done"
    command = f"echo one; {wait.format('step')}; echo two; {wait.format('go')}; echo end"

    async def step_through() -> None:
        for shown, flag in (("one\n", "step"), ("one\ntwo\n", "go")):
            await wait_until_async(
                lambda shown=shown: "".join(seen) == shown, f"the progress {shown!r}"
            )
            (h.root / flag).touch()

    async with anyio.create_task_group() as group:
        group.start_soon(step_through)
        result = await h.call("bash", command=command, timeout_ms=30_000)
    assert (result.text, "".join(seen)) == ("one\ntwo\nend", "one\ntwo\nend\n")


async def test_output_that_looks_like_the_end_marker_is_kept(h: Harness) -> None:
    result = await h.call("bash", command="printf '__toolbelt_end_'; printf '__toolbelt_en'")
    assert result.text == "__toolbelt_end___toolbelt_en"


async def test_cancel_mid_command_kills_and_keeps_the_session(h: Harness) -> None:
    async with anyio.create_task_group() as group:

        async def run() -> None:
            await h.executor.run_one(ToolCall("c", "bash", {"command": tagged("sleep 1006")}))

        group.start_soon(run)
        await wait_until_async(lambda: pids_running("sleep 1006"), "the command to start")
        h.executor.cancel()
    assert pids_running("sleep 1006") == []
    assert (await h.call("bash", command="echo ok")).text == "ok"


async def test_background_job_lifecycle(h: Harness) -> None:
    started = await h.call(
        "bash",
        command=tagged("echo first; sleep 0.2; echo second; sleep 1007"),
        run_in_background=True,
    )
    assert started.output.structured is not None
    job = str(started.output.structured["id"])
    output: list[str] = []
    with anyio.fail_after(10):
        while "second" not in output:
            polled = await h.call("bash_output", id=job)
            header, body = polled.text.split("\n", 1)
            assert header == f"[{job}: running]"
            output += [line for line in body.splitlines() if line != "(no new output)"]
            await anyio.sleep(0.05)
    assert output == ["first", "second"]
    again = await h.call("bash_output", id=job)
    assert again.text == f"[{job}: running]\n(no new output)"
    running = len(pids_running("sleep 1007"))
    assert running == 1
    stopped = await h.call("kill_shell", id=job)
    assert stopped.output.structured is not None
    ended = stopped.output.structured["processes"]
    assert ended >= running  # the job's shell and its sleep, not "0 processes ended"
    assert stopped.text == f"Stopped {job} ({counted(ended, 'process', 'processes')} ended)."
    assert pids_running("sleep 1007") == []
    final = await h.call("bash_output", id=job)
    assert final.text.startswith(f"[{job}: killed]")


async def test_unknown_job_id(h: Harness) -> None:
    result = await h.call("bash_output", id="bg-nope")
    assert result.text == "There is no background job 'bg-nope'; known jobs: none."


async def test_closing_the_session_ends_background_jobs(tmp_path: Path) -> None:
    harness = Harness(tmp_path, mode="bypass")
    await harness.call("bash", command=tagged("sleep 1008"), run_in_background=True)
    await harness.call("bash", command="echo warm")
    assert pids_running("sleep 1008")
    await harness.session.aclose()
    assert pids_running("sleep 1008") == []
    assert pids_running("bash --noprofile --norc") == [] or all(
        not marked_processes(str(p)) for p in pids_running("bash --noprofile --norc")
    )


async def test_permissions_read_only_runs_dangerous_asks(tmp_path: Path) -> None:
    harness = Harness(tmp_path, mode="default", approve=False)
    try:
        ls = await harness.call("bash", command="ls -la | head -3")
        assert ls.state is CallState.SUCCESS
        rm = await harness.call("bash", command="r''m -rf build")
        assert rm.error_kind == "permission_denied"
        assert (
            harness.requester.asked[-1][1]
            == "`r''m -rf build` is potentially dangerous (rm deletes files)."
        )
        plan = Harness(tmp_path, mode="plan")
        made = await plan.call("bash", command="touch x")
        assert made.text.startswith("Plan mode is on, so `bash` cannot run a command")
        await plan.session.aclose()
    finally:
        await harness.session.aclose()


def test_interpreter_exit_without_closing_ends_background_jobs(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = f"""
import anyio
from toolbelt.core.context import Session
from toolbelt.core.executor import Executor, ToolCall
from toolbelt.config.factory import build_policy
from toolbelt.tools import builtin_toolset

async def main():
    session = Session({str(tmp_path)!r})
    policy = build_policy(session, "bypass")
    executor = Executor(builtin_toolset(), session, policy=policy)
    job = {{"command": "sleep 4545", "run_in_background": True}}
    await executor.run_one(ToolCall("1", "bash", job))
    await executor.run_one(ToolCall("2", "bash", {{"command": "echo warm"}}))
    # exit without session.aclose(): the atexit reaper must end the job and the shell

anyio.run(main)
"""
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    wait_until(lambda: not pids_running("sleep 4545"), "the reaper to end the job")
