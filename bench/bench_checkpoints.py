"""Checkpoints: what undo costs a call.

- edit: ``edit_file`` of a 200-line file through the runtime's executor, with checkpoints on
  and off (two runtimes, interleaved), so the difference is what recording costs an edit —
  reading the before-image, storing it (once per content) and the record, both fsynced (goal
  ≤ 2 ms at p50); and ``record_before_write``'s own time, beside one small write + fsync on
  the same disk in the same rounds (the journal's floor is one or two of them); and the edit
  of a 7.5 MB file on and off (its before-image is hard-linked, not copied);
- snapshot: an incremental snapshot of a 10,000-file workspace (100 directories, a git
  repository) after a command changed one file (goal ≤ 50 ms at p50), beside two peers in the
  same rounds: the user's own ``git status --porcelain`` there (the scan every git user waits
  for) and the naive snapshot ``git add -A && git write-tree`` on an index of its own (no size
  limit); what a mutating command pays in all (the snapshots before and after it, recorded), a
  whole ``bash`` call with checkpoints on and off, and the first snapshot of the workspace
  (once: every file hashed and stored).

The store lives in ``bench/.work/checkpoints/state`` (``XDG_STATE_HOME``), made afresh.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import time
from dataclasses import replace
from pathlib import Path

WORK = Path(__file__).resolve().parent / ".work" / "checkpoints"
os.environ["XDG_STATE_HOME"] = str(WORK / "state")
# what a checkpoint adds, alone: an edit's diagnostics (a language server's or a checker's
# answer, ~170 ms for a Python file) would bury it; ``bench/run.py code`` measures those
os.environ["TOOLBELT_DIAGNOSTICS"] = "0"

from harness import Case, fmt_time, interleave, table, write_section  # noqa: E402
from toolbelt.checkpoints.settings import CheckpointSettings  # noqa: E402
from toolbelt.checkpoints.snapshots import take_snapshot  # noqa: E402
from toolbelt.checkpoints.store import CallInfo, CheckpointStore  # noqa: E402
from toolbelt.config.settings import Settings  # noqa: E402
from toolbelt.core.context import SessionConfig  # noqa: E402
from toolbelt.core.executor import ToolCall  # noqa: E402
from toolbelt.core.requesters import AutoApprove  # noqa: E402
from toolbelt.runtime import Runtime, RuntimeOptions  # noqa: E402
from toolbelt.tools import builtin_toolset  # noqa: E402


def quiet(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    subprocess.run(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
    )


def fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def runtime(root: Path, *, enabled: bool) -> Runtime:
    settings = Settings(checkpoints=replace(CheckpointSettings(), enabled=enabled))
    return Runtime(
        root,
        toolset=builtin_toolset(),  # no MCP servers from the machine's configuration
        settings=settings,
        requester=AutoApprove(),
        options=RuntimeOptions(config=SessionConfig(require_read_before_write=False)),
    )


def edit_cost(rounds: int = 100) -> tuple[Case, ...]:
    loop = asyncio.new_event_loop()
    runtimes = {}
    for enabled in (True, False):
        root = fresh(WORK / f"edit-{'on' if enabled else 'off'}")
        lines = [f"line {i}: some ordinary source text of a typical width\n" for i in range(200)]
        lines[100] = "MARKER = 0\n"
        (root / "app.py").write_text("".join(lines))
        big = [f"value_{i} = compute({i}, factor=3)  # filler line\n" for i in range(150_000)]
        big[75_000] = "MARKER = 0\n"
        (root / "big.py").write_text("".join(big))  # 7.5 MB, as in the files benchmark
        runtimes[enabled] = runtime(root, enabled=enabled)
        loop.run_until_complete(runtimes[enabled].open())
    counters = {(on, path): 0 for on in (True, False) for path in ("app.py", "big.py")}

    def edit(*, enabled: bool, path: str = "app.py") -> None:
        n = counters[enabled, path]
        counters[enabled, path] += 1
        arguments = {
            "path": path,
            "old_string": f"MARKER = {n}",
            "new_string": f"MARKER = {n + 1}",
        }
        result = loop.run_until_complete(
            runtimes[enabled].run_one(ToolCall(f"e{n}", "edit_file", arguments))
        )
        assert not result.is_error, result.text

    store = runtimes[True].checkpoints.store
    target = store.root / "app.py"
    data = target.read_bytes()
    call = CallInfo("bench", "journal", "edit_file")
    scratch = os.open(WORK / "fsync-probe", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

    def one_fsync() -> None:
        os.write(scratch, b"x" * 256)
        os.fsync(scratch)

    cases = (
        Case("edit_file, checkpoints on", lambda: edit(enabled=True)),
        Case("edit_file, checkpoints off", lambda: edit(enabled=False)),
        Case("record_before_write alone", lambda: store.record_file(call, target, data + b"x")),
        Case("peer: one write + fsync on this disk", one_fsync),
        Case("edit_file of a 7.5 MB file, on", lambda: edit(enabled=True, path="big.py")),
        Case("edit_file of a 7.5 MB file, off", lambda: edit(enabled=False, path="big.py")),
    )
    interleave(cases, rounds, warmup=3)
    for rt in runtimes.values():
        loop.run_until_complete(rt.aclose())
    loop.close()
    os.close(scratch)
    return cases


def make_workspace(root: Path, files: int = 10_000) -> None:
    for index in range(files):
        folder = root / f"pkg{index // 1000}" / f"mod{index // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file{index}.py").write_text(
            f"# file {index}\n" + "".join(f"value_{i} = {i * index}\n" for i in range(30))
        )


def snapshot_cost(rounds: int = 25) -> tuple[float, list[Case]]:
    root = fresh(WORK / "ws10k")
    make_workspace(root)
    quiet(["git", "init", "-q"], cwd=root)
    quiet(["git", "add", "-A"], cwd=root)
    user_git = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "start"]
    quiet(user_git, cwd=root)
    naive_env = {**os.environ, "GIT_INDEX_FILE": str(WORK / "naive-index")}
    store = CheckpointStore(root)
    store.layout.ensure()
    started = time.perf_counter()
    with store.layout.locked():
        take_snapshot(store.git, store.settings.max_file_bytes)
    first = time.perf_counter() - started
    counter = [0]
    target = root / "pkg3" / "mod37" / "file3700.py"

    def change_one_file() -> None:
        counter[0] += 1
        with open(target, "a") as handle:
            handle.write(f"more = {counter[0]}\n")

    def incremental() -> None:
        change_one_file()
        with store.layout.locked():
            take_snapshot(store.git, store.settings.max_file_bytes)

    def git_status() -> None:
        quiet(["git", "status", "--porcelain"], cwd=root)

    def naive() -> None:
        change_one_file()
        for command in (["git", "add", "-A"], ["git", "write-tree"]):
            quiet(command, cwd=root, env=naive_env)

    naive()  # its first, full snapshot

    def bracket() -> None:
        pending = store.begin_snapshot(CallInfo("bench", f"b{counter[0]}", "bash"), "bench")
        change_one_file()
        store.finish_snapshot(pending)

    loop = asyncio.new_event_loop()
    on, off = runtime(root, enabled=True), runtime(root, enabled=False)
    for rt in (on, off):
        loop.run_until_complete(rt.open())

    def bash(rt: Runtime) -> None:
        counter[0] += 1
        command = f"echo {counter[0]} >> pkg3/mod37/file3700.py"
        result = loop.run_until_complete(rt.run_one(ToolCall("b", "bash", {"command": command})))
        assert not result.is_error, result.text

    cases = [
        Case("incremental snapshot (one file changed)", incremental),
        Case("peer: git status --porcelain (the user's repository)", git_status),
        Case("peer: git add -A && git write-tree (naive snapshot)", naive),
        Case("before + after snapshots of a command (recorded)", bracket),
        Case("bash call, checkpoints on", lambda: bash(on)),
        Case("bash call, checkpoints off", lambda: bash(off)),
    ]
    interleave(cases, rounds, warmup=2)
    for rt in (on, off):
        loop.run_until_complete(rt.aclose())
    loop.close()
    return first, cases


def main() -> None:
    fresh(WORK / "state")
    on, off, journal, fsync, big_on, big_off = edit_cost()
    first, (incremental, status, naive, bracket, bash_on, bash_off) = snapshot_cost()
    added = statistics.median(a - b for a, b in zip(on.samples, off.samples, strict=True))
    big_added = statistics.median(
        a - b for a, b in zip(big_on.samples, big_off.samples, strict=True)
    )
    rows = [
        [on.name, fmt_time(on.median), fmt_time(on.percentile(0.9))],
        [off.name, fmt_time(off.median), fmt_time(off.percentile(0.9))],
        [
            "**added to an edit** (median of the rounds' differences)",
            f"**{fmt_time(added)}**",
            "goal ≤ 2 ms at p50",
        ],
        [journal.name, fmt_time(journal.median), fmt_time(journal.percentile(0.9))],
        [fsync.name, fmt_time(fsync.median), fmt_time(fsync.percentile(0.9))],
        [big_on.name, fmt_time(big_on.median), fmt_time(big_on.percentile(0.9))],
        [big_off.name, fmt_time(big_off.median), fmt_time(big_off.percentile(0.9))],
        ["added to the big edit (hard-linked before-image)", fmt_time(big_added), ""],
        [
            f"**{incremental.name}**",
            f"**{fmt_time(incremental.median)}**",
            f"{fmt_time(incremental.percentile(0.9))}; goal ≤ 50 ms at p50",
        ],
        [
            status.name,
            f"{fmt_time(status.median)} (snapshot ×{incremental.median / status.median:.2f})",
            fmt_time(status.percentile(0.9)),
        ],
        [
            naive.name,
            f"{fmt_time(naive.median)} (snapshot ×{incremental.median / naive.median:.2f})",
            fmt_time(naive.percentile(0.9)),
        ],
        [bracket.name, fmt_time(bracket.median), fmt_time(bracket.percentile(0.9))],
        [bash_on.name, fmt_time(bash_on.median), fmt_time(bash_on.percentile(0.9))],
        [bash_off.name, fmt_time(bash_off.median), fmt_time(bash_off.percentile(0.9))],
        ["added to a mutating bash call", fmt_time(bash_on.median - bash_off.median), ""],
        ["first snapshot of the 10,000 files (once)", fmt_time(first), ""],
    ]
    body = (
        "Command: `.venv/bin/python bench/run.py checkpoints` — edits of a 200-line and of a "
        "7.5 MB file through the executor (100 interleaved rounds); snapshots of a 10,000-file "
        "workspace in 100 directories, one file changed per round (25 rounds); p90 in the "
        "last column. The machine is shared: compare each figure with its peer in the same "
        "run (fsync, git status), not with other sections.\n\n"
        + table(rows, ["case", "median", "p90"])
    )
    print(body)
    write_section("checkpoints", body)


if __name__ == "__main__":
    main()
