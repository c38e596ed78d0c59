"""Tool configuration that makes a program run code when it starts in the workspace
(``rust-toolchain.toml``'s ``path``, ``.pdbrc``, ``.hg/hgrc`` hooks, ``.jj/repo/config.toml``,
``mise.toml``, ``.tool-versions``…) is protected like ``.git/hooks``: write_file asks in every
mode, a sandboxed command that creates one has it removed when it ends, and an existing one
stays read-only — so running ``python -m pdb`` or ``cargo`` there later runs nothing planted."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.sandboxes import backend_params
from tests.tools.helpers import Harness
from toolbelt.core.events import CallState
from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.sandbox import SandboxSettings

pytestmark = pytest.mark.anyio

CONFIGS = [
    "rust-toolchain.toml",
    "crate/rust-toolchain",
    "rust-analyzer.toml",
    ".pdbrc",
    ".octaverc",
    ".hg/hgrc",
    ".jj/repo/config.toml",
    ".jj/repo/config/hooks.toml",
    "mise.toml",
    ".mise.local.toml",
    ".config/mise/config.toml",
    ".tool-versions",
    "lefthook.yml",
    ".zed/settings.json",
    ".helix/languages.toml",
]


@pytest.fixture
async def edits(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = Harness(tmp_path, mode="accept_edits", approve=False)
    yield harness
    await harness.session.aclose()


@pytest.mark.parametrize("name", CONFIGS)
async def test_write_file_asks_for_a_tool_configuration_in_accept_edits(
    edits: Harness, name: str
) -> None:
    result = await edits.call("write_file", path=name, content="[hooks]\n")
    assert result.state is CallState.ERROR
    ((tool, reason),) = edits.requester.asked
    assert tool == "write_file" and "touches a protected path" in reason
    assert not (edits.root / name).exists()


@pytest.mark.parametrize("name", ["docs/mise.md", "config.toml", "src/toolchain.rs", "lefthook"])
async def test_names_that_only_look_alike_are_written_in_accept_edits(
    edits: Harness, name: str
) -> None:
    result = await edits.call("write_file", path=name, content="x\n")
    assert result.state is CallState.SUCCESS, result.text
    assert (edits.root / name).read_text() == "x\n"


def pdb_ran(root: Path) -> bool:
    """Start pdb in ``root`` as the person would later; whether a planted ``.pdbrc`` ran."""
    (root / "s.py").write_text("print('hi')\n")
    subprocess.run(
        [sys.executable, "-m", "pdb", "s.py"],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    return (root.parent / "PDB_RAN").exists()


# a script of the workspace: the analysis cannot see what it writes, only the sandbox can stop it
PLANT = """\
import os, sys
os.makedirs("tc/bin"); os.makedirs(".hg"); os.makedirs(".jj/repo")
open("rust-toolchain.toml", "w").write('[toolchain]\\npath = "tc"\\n')
open(".pdbrc", "w").write(f"!open({sys.argv[1]!r}, 'w').write('x')\\ncontinue\\n")
open(".hg/hgrc", "w").write("[hooks]\\npre-status = touch x\\n")
open(".jj/repo/config.toml", "w").write("[ui]\\n")
open("tc/bin/cargo", "w").write("#!/bin/sh\\n")
"""


@pytest.fixture
async def sandboxed(tmp_path: Path) -> AsyncIterator[Harness]:
    (tmp_path / "ws").mkdir()
    harness = Harness(tmp_path / "ws", mode="default", approve=True)
    yield harness
    await harness.session.aclose()


@pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")
async def test_a_sandboxed_command_cannot_plant_tool_configuration(sandboxed: Harness) -> None:
    root = sandboxed.root
    mark = root.parent / "PDB_RAN"
    (root / "plant.py").write_text(PLANT)
    result = await sandboxed.call("bash", command=f"python3 plant.py {mark}")
    assert result.state is CallState.SUCCESS, result.text
    assert len(sandboxed.requester.asked) == 1  # approved: what it writes, the sandbox decides
    for shown in ("rust-toolchain.toml", ".pdbrc", ".hg", ".jj"):
        assert f"The sandbox removed {shown}, which the command created" in result.text
    assert sorted(p.name for p in root.iterdir()) == ["plant.py", "tc"]  # the ordinary files stay
    assert (root / "tc" / "bin" / "cargo").is_file()
    assert not pdb_ran(root)


@pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)")
async def test_a_sandboxed_command_cannot_change_an_existing_toolchain_file(
    sandboxed: Harness,
) -> None:
    toolchain = sandboxed.root / "rust-toolchain.toml"
    toolchain.write_text('[toolchain]\nchannel = "stable"\n')
    (sandboxed.root / "edit.py").write_text("open('rust-toolchain.toml', 'a').write('path = 1')\n")
    result = await sandboxed.call("bash", command="python3 edit.py")
    assert len(sandboxed.requester.asked) == 1
    assert result.state is CallState.ERROR
    assert "Read-only file system" in result.text or "Permission denied" in result.text
    assert toolchain.read_text() == '[toolchain]\nchannel = "stable"\n'


NESTED = ["sub/.envrc", "crate/rust-toolchain.toml", "sub/.git/hooks/pre-commit", "lib/.pdbrc"]


def nested_harness(root: Path, sandbox: str, *, approve: bool = False) -> Harness:
    for name in NESTED:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("kept\n")
    (root / "append.sh").write_text("".join(f"echo evil >> {name}\n" for name in NESTED))
    harness = Harness(root, mode="default", approve=approve)
    harness.session.resource(SandboxSettings, lambda: SandboxSettings(mode=sandbox))
    return harness


@pytest.mark.parametrize("sandbox", backend_params(minimum_landlock_abi=4))
async def test_existing_nested_configuration_stays_read_only(tmp_path: Path, sandbox: str) -> None:
    """Below the top level too: a nested repository's hooks, a crate's toolchain file."""
    h = nested_harness(tmp_path, sandbox, approve=True)
    try:
        result = await h.call("bash", command="sh append.sh; echo done > sub/ok.txt")
        assert len(h.requester.asked) == 1  # approved: what it writes, the sandbox decides
        assert result.text.count("Read-only file system") == len(NESTED), result.text
        assert [(tmp_path / name).read_text() for name in NESTED] == ["kept\n"] * len(NESTED)
        assert (tmp_path / "sub" / "ok.txt").read_text() == "done\n"  # the rest is writable
    finally:
        await h.session.aclose()


@pytest.mark.parametrize("sandbox", backend_params(minimum_landlock_abi=4))
async def test_nested_configuration_made_between_commands_is_read_only_next(
    tmp_path: Path, sandbox: str
) -> None:
    h = nested_harness(tmp_path, sandbox, approve=True)
    try:
        assert (await h.call("bash", command="echo first")).text == "first"  # the shell runs
        made = await h.call("write_file", path="deep/er/.envrc", content="kept\n")  # approved
        assert made.state is CallState.SUCCESS, made.text
        (tmp_path / "later.sh").write_text("echo evil >> deep/er/.envrc\n")
        result = await h.call("bash", command="sh later.sh")
        assert "Read-only file system" in result.text
        assert (tmp_path / "deep" / "er" / ".envrc").read_text() == "kept\n"
    finally:
        await h.session.aclose()


def make_repo(repo: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for key, value in (("user.email", "a@example.com"), ("user.name", "A")):
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
    return repo


@pytest.mark.parametrize("sandbox", backend_params(minimum_landlock_abi=4))
async def test_a_nested_repository_commits_in_the_git_profile_but_its_hooks_stay_read_only(
    tmp_path: Path, sandbox: str
) -> None:
    repo = make_repo(tmp_path / "sub")
    (repo / "x.txt").write_text("x\n")
    (repo / "hook.sh").write_text("echo evil > .git/hooks/pre-commit\n")
    h = Harness(tmp_path, mode="default", approve=True)
    h.session.resource(SandboxSettings, lambda: SandboxSettings(mode=sandbox))
    try:
        await h.call("bash", command="cd sub")
        for command in ("git add x.txt", "git commit -qm first"):  # asked, then git's profile
            result = await h.call("bash", command=command)
            assert result.state is CallState.SUCCESS, result.text
        assert (await h.call("bash", command="git log --format=%s")).text == "first"
        planted = await h.call("bash", command="sh hook.sh")
        assert "Read-only file system" in planted.text
        assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    finally:
        await h.session.aclose()
