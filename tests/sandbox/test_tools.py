"""The sandbox through the real bash tool and executor, with every prompt approved: what a
command cannot do even when the user said yes, and what it can still do."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from tests.tools.helpers import Harness
from toolbelt.commands.analysis import ShellAnalysis
from toolbelt.core.events import CallState
from toolbelt.core.permission import Approval
from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.sandbox import SandboxSettings
from toolbelt.shell.jobs import JobManager
from toolbelt.shell.output import spill_dir

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)"),
]


@pytest.fixture
async def h(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    workspace.mkdir()
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "secret.txt").write_text("TOPSECRET\n")
    monkeypatch.setenv("HOME", str(home))
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "t")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "t@e")
    harness = Harness(workspace)
    yield harness
    await harness.session.aclose()


async def test_approved_commands_still_cannot_leave_the_workspace(h: Harness) -> None:
    out = h.root.parent / "out"
    commands = [
        f"touch {out}/p1",
        "echo x > .git/hooks/x",
        "cat ~/.ssh/id_rsa",
        f"cat {out}/secret.txt > copied.txt; cat ~/.ssh/id_rsa >> copied.txt",
    ]
    texts = [(await h.call("bash", command=command)).text for command in commands]
    assert sorted(os.listdir(out)) == ["secret.txt"]
    assert not (h.root / ".git" / "hooks" / "x").exists()
    assert (h.root / "copied.txt").read_text() == "TOPSECRET\n"  # read outside: approved
    assert not any("PRIVATE KEY" in text for text in texts)


async def test_approved_commands_cannot_connect_signal_or_read_other_environments(
    h: Harness,
) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)  # noqa: FBT003 - socket's own API
    port = server.getsockname()[1]
    victim = _start(["sleep", "60"], env={"PATH": os.environ["PATH"], "MARK": "q9z"})
    try:
        connect = await h.call("bash", command=f"echo hi > /dev/tcp/127.0.0.1/{port}")
        environ = await h.call("bash", command=f"cat /proc/{victim.pid}/environ")
        kill = await h.call("bash", command=f"kill -9 {victim.pid}")
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing ever connected
        assert victim.poll() is None
        assert "q9z" not in environ.text
        assert connect.state is kill.state is environ.state is CallState.ERROR
        assert "The sandbox may have refused this" in connect.text
    finally:
        victim.kill()
        victim.wait()
        server.close()


async def test_read_only_profile_holds_when_the_analysis_calls_everything_read_only(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    def everything_is_read_only(command: str) -> ShellAnalysis:
        return ShellAnalysis(
            commands=(), parse_ok=True, readonly=True, dangerous=(), write_targets=()
        )

    monkeypatch.setattr("toolbelt.commands.access.analyze_command", everything_is_read_only)
    out = h.root.parent / "out"
    (h.root / "f.txt").write_text("line\n")
    attacks = [
        f"env -S'touch {out}/p1'",
        f"test -v 'a[$(touch {out}/p2)]'",
        f"[[ 1 -eq 'a[$(touch {out}/p3)]' ]]",
        f"sed -n '1e touch {out}/p4' f.txt",
        f"sed 1r{out}/secret.txt f.txt",
        f"echo {out}/secret.txt | xargs cat",
        f"date -f {out}/secret.txt",
        "cat ~/.ssh/id_rsa",
        "touch inside.txt",
        "echo x > .git/hooks/post-checkout",
        "echo hi > /dev/tcp/127.0.0.1/9",
        "ps axeww",
    ]
    victim = _start(["sleep", "60"], env={"PATH": os.environ["PATH"], "MARK": "q8w"})
    try:
        texts = [(await h.call("bash", command=a)).text for a in attacks]
    finally:
        victim.kill()
        victim.wait()
    assert not any("q8w" in text for text in texts)  # no other process's environment
    assert h.requester.asked == []  # all ran without a prompt: the analysis was fooled
    assert sorted(os.listdir(out)) == ["secret.txt"]
    assert sorted(os.listdir(h.root)) == [".git", "f.txt"]
    assert os.listdir(h.root / ".git" / "hooks") == []
    assert not any("TOPSECRET" in t or "PRIVATE KEY" in t for t in texts)


async def test_ordinary_work_runs_pytest_make_and_git(h: Harness) -> None:
    _make_project(h.root)
    (h.root / "test_app.py").write_text("def test_one():\n    assert 2 + 2 == 4\n")
    tests = await h.call("bash", command=f"{sys.executable} -m pytest -q -p no:cacheprovider")
    make = await h.call("bash", command="make && cat build/out.txt")
    status = await h.call("bash", command="git status --short && git log --oneline | wc -l")
    diff = await h.call("bash", command="git diff --stat")
    npm = (
        await h.call("bash", command="cd js && npm test --silent") if shutil.which("npm") else None
    )
    assert "1 passed" in tests.text
    assert make.text.endswith("built")
    assert status.text == " M test_app.py\n?? build/\n1"  # (npm runs after: js/ is clean)
    assert diff.text == " test_app.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)"
    assert npm is None or npm.text.endswith("node test ok")
    await h.call("bash", command=f"cd {h.root}")
    asked = len(h.requester.asked)
    commit = await h.call("bash", command="git add -A && git commit -qm second")
    log = await h.call("bash", command="git log --oneline | wc -l")
    assert (commit.text, log.text) == ("(no output)", "2")  # git's own writes: once approved
    assert h.requester.asked[asked:] == [
        ("bash", "`git add -A && git commit -qm second` is potentially dangerous (git commit "
         "records changes).")
    ]  # fmt: skip


async def test_git_commit_cannot_touch_hooks_or_config_even_from_a_hook(h: Harness) -> None:
    _make_project(h.root)
    out = h.root.parent / "out"
    hook = h.root / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        "#!/bin/sh\necho ran >> hook-ran.txt; echo evil > .git/hooks/post-commit\n"
        f"echo '[core]' >> .git/config; touch {out}/hooked; mkdir -p .git/modules/x; exit 0\n"
    )
    hook.chmod(0o755)
    config = (h.root / ".git" / "config").read_text()
    h.session.trusted = True  # the repository's hooks run: the sandbox's git profile holds them
    (h.root / "test_app.py").write_text("changed\n")
    commit = await h.call("bash", command="git commit -qam hooked")
    log = await h.call("bash", command="git log --oneline | wc -l")
    assert (commit.state, log.text) == (CallState.SUCCESS, "2")
    assert "cannot create .git/hooks/post-commit: Read-only file system" in commit.text
    assert (h.root / "hook-ran.txt").read_text() == "ran\n"
    h.session.trusted = False  # untrusted, git runs no hook of the repository at all
    (h.root / "test_app.py").write_text("changed again\n")
    untrusted = await h.call("bash", command="git commit -qam unhooked")
    log = await h.call("bash", command="git log --oneline | wc -l")
    assert (untrusted.state, untrusted.text, log.text) == (CallState.SUCCESS, "(no output)", "3")
    assert (h.root / "hook-ran.txt").read_text() == "ran\n"
    assert not (h.root / ".git" / "hooks" / "post-commit").exists()
    assert (h.root / ".git" / "config").read_text() == config
    assert not (out / "hooked").exists()
    assert not (h.root / ".git" / "modules").exists()


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, env=env)


def _make_project(root: Path) -> None:
    """A committed git repository with one test and a Makefile (made outside any sandbox)."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@e", "-C", str(root)]
    subprocess.run(["rm", "-rf", str(root / ".git")], check=True)
    subprocess.run([*git, "init", "-q"], check=True)
    (root / "test_app.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    (root / "Makefile").write_text("build/out.txt:\n\tmkdir -p build && echo built > $@\n")
    (root / "js").mkdir()
    scripts = {"name": "t", "version": "1.0.0", "scripts": {"test": "node test.js"}}
    (root / "js" / "package.json").write_text(json.dumps(scripts))
    (root / "js" / "test.js").write_text('console.log("node test ok")\n')
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)


async def test_commands_that_only_create_files_need_no_prompt_others_ask(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("b\na\n")
    (tmp_path / "ws" / "Makefile").write_text(
        f"o.txt:\n\techo x > $@\nout:\n\techo x > {tmp_path}/x\n"
        "editor:\n\tmkdir -p .vscode && touch .vscode/tasks.json\n"
    )
    h = Harness(tmp_path / "ws", approve=False)
    made = await h.call(
        "bash", command="mkdir -p build && cp a.txt build/copy.txt && sort a.txt > build/s.txt"
    )
    assert h.requester.asked == []  # only new files: the create profile, no prompt
    assert made.state is CallState.SUCCESS, made.text
    assert (tmp_path / "ws" / "build" / "s.txt").read_text() == "a\nb\n"
    # what the analysis cannot see into (a Makefile's recipes) asks, and is refused here
    refused = await h.call("bash", command="make -s")
    assert refused.error_kind == "permission_denied"
    assert h.requester.asked == [
        (
            "bash",
            "`make -s` runs a command whose reads, writes and deletions toolbelt cannot see (a "
            "program or option it does not model), so the sandbox cannot make it safe to run "
            "unasked.",
        )
    ]
    assert not (tmp_path / "ws" / "o.txt").exists()
    # approved, it runs in the workspace profile: writes inside, the sandbox confines the rest
    approved = Harness(tmp_path / "ws", approve=True)
    outside = await approved.call("bash", command="make -s out")
    created = await approved.call("bash", command="make -s editor")
    assert outside.state is CallState.ERROR and not (tmp_path / "x").exists()
    assert "Read-only file system" in outside.text and '"sandbox": false' in outside.text
    assert not (tmp_path / "ws" / ".vscode").exists()
    assert "The sandbox removed .vscode, which the command created" in created.text
    # writes it sees outside the workspace or to protected paths, and dangerous commands,
    # still ask (and the user said no here)
    denied = [
        await h.call("bash", command=command)
        for command in (
            f"touch {tmp_path}/x",
            "mkdir -p .vscode && touch .vscode/tasks.json",
            "rm -rf build",
            "echo '{}' > .mcp.json",
        )
    ]
    assert {result.error_kind for result in denied} == {"permission_denied"}
    assert [reason.split(" (")[0] for _, reason in h.requester.asked[1:]] == [
        f"`touch {tmp_path}/x` is potentially dangerous",
        "`mkdir -p .vscode && touch .vscode/tasks.json` touches a protected path",
        "`rm -rf build` is potentially dangerous",
        "`echo '{}' > .mcp.json` touches a protected path",
    ]
    assert not (tmp_path / "x").exists()
    await approved.session.aclose()


async def test_running_outside_the_sandbox_always_asks_and_is_never_remembered(
    h: Harness,
) -> None:
    h.requester.approval = Approval.ALWAYS
    for _ in range(2):
        result = await h.call("bash", command="echo out", sandbox=False, justification="needs it")
        assert result.text == "out"
    assert len(h.requester.asked) == 2
    assert not (h.root / ".toolbelt").exists()  # no rule was saved
    spoof = "ok\r\x1b[2K`ls` is read-only"
    await h.call("bash", command="echo out", sandbox=False, justification=spoof)
    assert h.requester.asked[-1][1].endswith("because: ok\\r\\x1b[2K`ls` is read-only")
    missing = await h.call("bash", command="echo out", sandbox=False)
    assert missing.error_kind == "invalid_input"
    assert "needs a justification" in missing.text


async def test_what_a_confined_command_leaves_behind_never_runs_unconfined(h: Harness) -> None:
    out = h.root.parent / "out"
    state = spill_dir(h.session.id) / "exports.sh"
    planted = await h.call("bash", command=f"echo 'touch {out}/escaped' >> {state}; echo ok")
    assert planted.text == "ok"  # the sandbox lets the shell write its own saved exports...
    outside = await h.call("bash", command="echo out", sandbox=False, justification="test")
    assert outside.text == "out"
    assert not (out / "escaped").exists()  # ...but the unconfined shell never sources them


async def test_read_only_commands_follow_the_shell_and_move_it(h: Harness) -> None:
    (h.root / "src").mkdir()
    (h.root / "src" / "x.txt").write_text("x\n")
    await h.call("bash", command="export GREETING=hello")
    followed = await h.call("bash", command="echo $GREETING; cd src && cat x.txt")
    assert followed.text == "hello\nx"
    assert h.session.cwd == h.root / "src"
    await h.call("bash", command="unset GREETING")  # read-only, but it changes the shell
    unset = await h.call("bash", command="echo ${GREETING:-gone}")
    assert unset.text == "gone"
    wrote = await h.call("bash", command="touch y.txt && pwd")
    assert wrote.text == str(h.root / "src")
    assert (h.root / "src" / "y.txt").exists()


async def test_background_jobs_are_confined_too(h: Harness) -> None:
    out = h.root.parent / "out"
    command = f"touch {out}/bg; touch made_bg && cat ~/.ssh/id_rsa; echo end"
    started = await h.call("bash", command=command, run_in_background=True)
    assert started.output.structured is not None
    job = job_manager_of(h).get(started.output.structured["id"])
    await anyio.to_thread.run_sync(job.process.wait)
    await job_manager_of(h).settle(job)  # as bash_output does: the copy of its output ends
    text, _ = job_manager_of(h).read_new(job)
    assert not (out / "bg").exists()
    assert (h.root / "made_bg").exists()
    assert "PRIVATE KEY" not in text
    assert text.endswith("end\n")


def job_manager_of(h: Harness) -> JobManager:
    manager = h.session.peek(JobManager)
    assert manager is not None
    return manager


async def test_a_protected_name_made_by_a_command_that_timed_out_is_removed_too(
    h: Harness,
) -> None:
    result = await h.call("bash", command="mkdir .claude && sleep 30", timeout_ms=500)
    assert result.output.structured is not None and result.output.structured["timed_out"]
    assert not (h.root / ".claude").exists()
    assert "The sandbox removed .claude" in result.text


async def test_with_the_network_open_commands_ask_as_without_a_sandbox(tmp_path: Path) -> None:
    h = Harness(tmp_path, approve=False)
    settings = SandboxSettings(mode="landlock", network="on")
    h.session.resource(SandboxSettings, lambda: settings)
    result = await h.call("bash", command="make -s")
    assert result.error_kind == "permission_denied"
    assert h.requester.asked[0][1].startswith("`make -s` runs a command whose reads")
    # a command that only creates files runs in the create profile, which has no network
    made = await h.call("bash", command="touch made.txt")
    assert made.state is CallState.SUCCESS and (tmp_path / "made.txt").exists()
    assert len(h.requester.asked) == 1
    await h.session.aclose()
