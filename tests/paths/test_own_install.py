"""toolbelt's own installation inside the workspace (installed in the project's ``.venv``, or
an editable install of the repository that is the workspace) is protected for the write tools
like ``.git/``: write_file and edit_file ask in every mode, accept_edits and bypass included,
so a model cannot rewrite the code that decides what it may do the next time toolbelt starts.
The real CLI, run by the interpreter of a real virtualenv that imports that installation."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolbelt.paths.own_install import OwnInstall, install_places

PACKAGE = Path(str(__import__("toolbelt").__file__)).resolve().parent
DEPENDENCIES = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())


def make_venv(ws: Path) -> Path:
    """A virtualenv in ``ws/.venv`` (toolbelt's dependencies from ours); its site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
    (site,) = (ws / ".venv" / "lib").glob("python*/site-packages")
    (site / "zz_deps.pth").write_text(f"{DEPENDENCIES}\n")
    return site


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace whose ``.venv`` has a copy of toolbelt installed; (workspace, package)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    site = make_venv(ws)
    shutil.copytree(PACKAGE, site / "toolbelt", ignore=shutil.ignore_patterns("__pycache__"))
    return ws, site / "toolbelt"


@pytest.fixture
def editable(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace that is toolbelt's repository, installed editable in its ``.venv``."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    shutil.copytree(PACKAGE, ws / "src" / "toolbelt", ignore=shutil.ignore_patterns("__pycache__"))
    site = make_venv(ws)
    (site / "_toolbelt_editable.pth").write_text(f"{ws / 'src'}\n")
    return ws, ws / "src" / "toolbelt"


def call(
    ws: Path, tool: str, arguments: dict[str, str], mode: str
) -> subprocess.CompletedProcess[str]:
    main = "import sys; from toolbelt.cli.main import main; sys.exit(main())"
    argv = [str(ws / ".venv" / "bin" / "python"), "-c", main, "call", tool, json.dumps(arguments)]
    return subprocess.run(
        [*argv, "--root", str(ws), "--mode", mode],
        env={**os.environ, "HOME": str(ws.parent)},
        cwd=ws,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("mode", ["accept_edits", "bypass"])
@pytest.mark.parametrize("layout", ["installed", "editable"])
def test_write_tools_ask_before_changing_toolbelts_own_installation(
    request: pytest.FixtureRequest, layout: str, mode: str
) -> None:
    ws, package = request.getfixturevalue(layout)
    policy = package / "policy" / "policy.py"
    before = policy.read_text()
    edit = {
        "path": str(policy.relative_to(ws)),
        "old_string": "return Allow(",
        "new_string": "return Allow(  #",
        "replace_all": "true",
    }
    out = call(ws, "edit_file", edit, mode)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "toolbelt's own installation" in out.stdout
    assert policy.read_text() == before
    planted = {"path": str((package / "zz_planted.py").relative_to(ws)), "content": "x = 1\n"}
    out = call(ws, "write_file", planted, mode)
    assert out.returncode == 3, out.stdout + out.stderr
    assert not (package / "zz_planted.py").exists()


def test_the_rest_of_the_workspace_is_written_in_accept_edits(
    editable: tuple[Path, Path],
) -> None:
    ws, _ = editable
    out = call(ws, "write_file", {"path": "tests/app.py", "content": "x = 1\n"}, "accept_edits")
    assert out.returncode == 0, out.stdout + out.stderr
    assert (ws / "tests" / "app.py").read_text() == "x = 1\n"


def test_a_module_beside_the_editable_package_is_part_of_the_installation(
    editable: tuple[Path, Path],
) -> None:
    """The editable ``.pth`` puts all of ``src/`` on ``sys.path``; every start of toolbelt
    looks there for modules it lacks (``copy`` imports ``org.python.core``)."""
    ws, _ = editable
    planted = {"path": "src/org/__init__.py", "content": "x = 1\n"}
    out = call(ws, "write_file", planted, "bypass")
    assert out.returncode == 3, out.stdout + out.stderr
    assert "toolbelt's own installation" in out.stdout
    assert not (ws / "src" / "org").exists()


def test_the_launcher_and_interpreter_are_places_of_the_installation() -> None:
    places = install_places()
    assert PACKAGE in places
    assert Path(os.path.realpath(sys.executable)) in places
    protected = OwnInstall.around([Path("/nonexistent-root")])
    launcher = Path(sys.prefix) / "bin" / "toolbelt"
    assert protected.protection(launcher) is not None
    assert protected.protection(Path("/nonexistent-root/app.py")) is None


def test_a_place_that_holds_the_workspace_is_not_protected() -> None:
    """A workspace inside Python's base installation stays writable: protecting the place
    would protect the whole workspace (the sandbox leaves it writable too)."""
    inside = Path(sys.base_prefix).resolve() / "project"
    own = OwnInstall.around([inside])
    assert own.protection(inside / "app.py") is None
    assert own.protection(PACKAGE / "cli" / "main.py") is not None
