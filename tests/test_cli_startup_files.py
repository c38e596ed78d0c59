"""Files an interpreter runs by itself at start-up (a ``.pth`` in a virtualenv's
site-packages, ``sitecustomize.py``, ``pyvenv.cfg``, ``.Rprofile``…) are protected like git
hooks: write_file asks even in accept_edits and bypass, a sandboxed command cannot create one
(it is removed when the command ends) nor change an existing one — so nothing planted runs
unsandboxed at the next ``python`` start. The real CLI on a real virtualenv."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import toolbelt_cli
from tests.support.sandboxes import backend_params
from toolbelt.sandbox.backends import namespaces_work


def toolbelt(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return toolbelt_cli.toolbelt(
        *args, "--root", str(root), cwd=root.parent, env={"HOME": str(root.parent)}, timeout=90
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a virtualenv (no pip: fast) whose site-packages holds a ``.pth``."""
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    (site_packages(root) / "_virtualenv.pth").write_text("import _virtualenv\n")
    (site_packages(root) / "_virtualenv.py").write_text("")
    return root


def site_packages(root: Path) -> Path:
    (found,) = (root / ".venv" / "lib").glob("python*/site-packages")
    return found


def payload(root: Path) -> str:
    """A .pth line that leaves a mark when the virtualenv's Python starts."""
    return f"import os; open({str(root.parent / 'RAN')!r}, 'w').write('unsandboxed')"


def python_started(root: Path) -> bool:
    """Start the virtualenv's Python as the person would later; whether the payload ran."""
    subprocess.run([str(root / ".venv" / "bin" / "python"), "-c", "pass"], check=True, cwd=root)
    return (root.parent / "RAN").exists()


STARTUP_FILES = [
    ".venv/lib/python3.11/site-packages/zz_helper.pth",
    "lib/dist-packages/x.pth",
    "sitecustomize.py",
    "src/usercustomize.py",
    "sitecustomize/__init__.py",
    ".venv/pyvenv.cfg",
    ".Rprofile",
    ".irbrc",
    "bunfig.toml",
]


@pytest.mark.parametrize("name", STARTUP_FILES)
@pytest.mark.parametrize("mode", ["accept_edits", "bypass"])
def test_write_file_asks_for_a_start_up_file(tmp_path: Path, name: str, mode: str) -> None:
    args = json.dumps({"path": name, "content": "import os\n"})
    out = toolbelt(tmp_path, "call", "write_file", args, "--mode", mode)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "touches a protected path" in out.stdout
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("name", ["models/model.pth", "docs/site-packages.md", "src/site.py"])
def test_files_that_only_look_alike_are_written_in_accept_edits(tmp_path: Path, name: str) -> None:
    args = json.dumps({"path": name, "content": "weights\n"})
    out = toolbelt(tmp_path, "call", "write_file", args, "--mode", "accept_edits")
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tmp_path / name).read_text() == "weights\n"


@pytest.mark.parametrize("sandbox", backend_params())
def test_a_sandboxed_command_cannot_plant_a_pth_or_sitecustomize(
    project: Path, sandbox: str
) -> None:
    site = site_packages(project).relative_to(project)
    command = f"echo {json.dumps(payload(project))} | tee {site}/zz.pth sitecustomize.py"
    out = toolbelt(
        project, "call", "bash", json.dumps({"command": command}), "--sandbox", sandbox, "--yes"
    )
    assert f"The sandbox removed {site}/zz.pth, which the command created" in out.stdout
    assert "The sandbox removed sitecustomize.py, which the command created" in out.stdout
    assert not (project / site / "zz.pth").exists()
    assert not (project / "sitecustomize.py").exists()
    assert not python_started(project)


@pytest.mark.parametrize("sandbox", backend_params())
def test_a_sandboxed_command_cannot_change_an_existing_pth(project: Path, sandbox: str) -> None:
    if sandbox == "landlock" and not namespaces_work():
        pytest.skip("without user namespaces Landlock cannot keep a nested file read-only")
    pth = site_packages(project) / "_virtualenv.pth"
    command = f"echo {json.dumps(payload(project))} >> {pth.relative_to(project)}"
    out = toolbelt(
        project, "call", "bash", json.dumps({"command": command}), "--sandbox", sandbox, "--yes"
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Read-only file system" in out.stdout
    assert pth.read_text() == "import _virtualenv\n"
    assert not python_started(project)
    ordinary = site_packages(project) / "helper.py"  # the rest of the virtualenv stays writable
    out = toolbelt(
        project,
        "call",
        "bash",
        json.dumps({"command": f"echo x > {ordinary}"}),
        "--sandbox",
        sandbox,
        "--yes",
    )
    assert (out.returncode, ordinary.read_text()) == (0, "x\n"), out.stdout
