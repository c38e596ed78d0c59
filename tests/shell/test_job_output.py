"""A background job's output file is held to a size: the head and the tail are kept, and
bash_output says what was dropped in between (and, while the job runs, what will be)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from tests.support.waiting import wait_until_async
from tests.tools.helpers import Harness
from toolbelt.core.wording import counted
from toolbelt.shell.job_output import TAIL_BYTES
from toolbelt.shell.jobs import JobManager
from toolbelt.shell.output import MAX_SPILL_BYTES

pytestmark = pytest.mark.anyio

PRINTED = "".join(f"{n}\n" for n in range(1, 100_001))
"""What `seq 1 100000` prints: 588,895 bytes."""
NARROW = "to see more, run the command again narrowed or piped through grep"


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = Harness(tmp_path, mode="bypass")
    yield harness
    await harness.session.aclose()


def small_limits(h: Harness) -> JobManager:
    """The session's jobs, with a 4,000-byte output file and a 90-byte tail."""
    return h.session.resource(
        JobManager, lambda: JobManager(h.session.id, output_limit=4000, output_tail=90)
    )


async def start(h: Harness, command: str) -> tuple[str, Path]:
    started = await h.call("bash", command=command, run_in_background=True)
    assert started.output.structured is not None, started.text
    return str(started.output.structured["id"]), Path(started.output.structured["output_path"])


async def until_ended(jobs: JobManager, job: str) -> None:
    await wait_until_async(lambda: jobs.get(job).status().state != "running", "the job to end")


async def test_an_ended_job_shows_head_notice_and_tail(h: Harness) -> None:
    jobs = small_limits(h)
    job, path = await start(h, "seq 1 100000")
    await until_ended(jobs, job)
    shown = await h.call("bash_output", id=job)
    head, tail = PRINTED[:4000], PRINTED[-90:]
    notice = (
        f"[... {counted(len(PRINTED) - 4090, 'byte')} dropped here: the job printed "
        f"{counted(len(PRINTED), 'byte')}, its output file keeps the first 4,000 bytes and the "
        f"last 90 bytes, which follow; {NARROW} ...]"
    )
    separator = "" if head.endswith("\n") else "\n"
    expected = f"[{job}: exited with code 0]\n{head}{separator}{notice}\n{tail.rstrip()}"
    assert shown.text == expected
    assert path.read_bytes() == (head + tail).encode()
    again = await h.call("bash_output", id=job)
    assert again.text == f"[{job}: exited with code 0]\n(no new output)"


async def test_a_running_job_past_the_limit_says_what_will_be_kept(h: Harness) -> None:
    small_limits(h)
    job, _ = await start(h, f"seq 1 100000; sleep 9400{os.getpid()}")
    notice = (
        f"[the job has printed {counted(len(PRINTED), 'byte')} so far; its output file keeps "
        f"only the first 4,000 bytes and the last 90 bytes, shown here when the job ends; "
        f"{NARROW}]"
    )
    seen = ""
    with anyio.fail_after(30):
        while notice not in seen:  # the count grows until seq is done
            seen = (await h.call("bash_output", id=job)).text
            await anyio.sleep(0.02)
    assert seen.endswith(f"\n{notice}")  # after the head (or what was left of it)
    again = await h.call("bash_output", id=job)
    assert again.text == f"[{job}: running]\n{notice}"  # said again while the job runs
    stopped = await h.call("kill_shell", id=job)
    assert stopped.output.structured is not None
    last = await h.call("bash_output", id=job)
    assert last.text.startswith(f"[{job}: killed]\n[... ")
    assert last.text.endswith(PRINTED[-90:].rstrip())


async def test_a_job_printing_fast_past_64_mib_stops_its_file_there(h: Harness) -> None:
    total = MAX_SPILL_BYTES + 6_000_000
    job, path = await start(h, f"yes | head -c {total}")
    jobs = h.session.resource(JobManager)
    await until_ended(jobs, job)
    await jobs.settle(jobs.get(job))
    assert path.stat().st_size == MAX_SPILL_BYTES + TAIL_BYTES
    with path.open("rb") as handle:
        assert handle.read(8) == b"y\ny\ny\ny\n"
        handle.seek(MAX_SPILL_BYTES - 2)
        assert handle.read() == b"y\n" * (1 + TAIL_BYTES // 2)
    notice = jobs.get(job).output.notice()
    dropped = total - MAX_SPILL_BYTES - TAIL_BYTES
    assert notice is not None and notice.startswith(f"[... {counted(dropped, 'byte')} dropped")
