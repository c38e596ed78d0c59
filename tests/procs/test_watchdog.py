"""The watchdog that ends toolbelt's processes after a `kill -9` is started again, with the
same run-id prefix, if something killed it: what already runs stays covered."""

from __future__ import annotations

import os
import signal

from tests.support.waiting import wait_until
from toolbelt.procs.watchdog import new_run_id, run_id_prefix


def _watchdogs(prefix: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    args = handle.read().split(b"\0")
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    zombie = handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
            except OSError:
                continue
            ours = args[-2:] == [prefix.encode(), b""]
            if not zombie and ours and b"toolbelt.procs.watchdog" in b" ".join(args):
                found.append(int(entry))
    return found


def test_a_killed_watchdog_is_started_again_with_the_same_prefix() -> None:
    prefix = run_id_prefix()
    assert new_run_id().startswith(prefix)
    wait_until(lambda: len(_watchdogs(prefix)) == 1, "the watchdog to run")
    (first,) = _watchdogs(prefix)
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: not _watchdogs(prefix), "the killed watchdog to be gone")
    assert new_run_id().startswith(prefix)  # noticed (its pipe is broken) and restarted
    # the new watchdog is spawned, not yet surely exec'd: its command line comes with the exec
    wait_until(lambda: len(_watchdogs(prefix)) == 1, "the new watchdog to run")
    (second,) = _watchdogs(prefix)
    assert second != first
