"""toolbelt's own installation inside the workspace (installed in the project's ``.venv``, or
an editable install of its own repository): a sandboxed command must not rewrite what
toolbelt itself runs or imports unconfined — the launcher's modules, which it imports before
it confines, or the ``rg`` beside the interpreter that the grep tool prefers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolbelt.paths.protections import Protections
from toolbelt.sandbox.backends import namespaces_work
from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.profiles import workspace_grants

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(str(__import__("toolbelt").__file__)).resolve().parent

pytestmark = pytest.mark.skipif(
    abi_version() < 4 or not namespaces_work(), reason="needs Landlock ABI 4 and namespaces"
)


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A workspace whose ``.venv`` has toolbelt installed (its dependencies from ours), and
    the environment to run that toolbelt's CLI in."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
    (site,) = (ws / ".venv" / "lib").glob("python*/site-packages")
    shutil.copytree(PACKAGE, site / "toolbelt", ignore=shutil.ignore_patterns("__pycache__"))
    deps = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    (site / "zz_deps.pth").write_text(f"{deps}\n")
    (ws / ".venv" / "bin" / "rg").write_text("#!/bin/sh\necho genuine\n")
    (ws / ".venv" / "bin" / "rg").chmod(0o755)
    env = {**os.environ, "HOME": str(home)}
    env.pop("TOOLBELT_RG", None)
    return ws, site, env


def call_bash(
    ws: Path, env: dict[str, str], command: str, *options: str
) -> subprocess.CompletedProcess[str]:
    main = "import sys; from toolbelt.cli.main import main; sys.exit(main())"
    argv = [str(ws / ".venv" / "bin" / "python"), "-c", main, "call", "bash"]
    return subprocess.run(
        [*argv, f'{{"command": "{command}"}}', "--root", str(ws), *options],
        env=env,
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_sandboxed_command_cannot_rewrite_the_installed_launcher_or_rg(
    project: tuple[Path, Path, dict[str, str]],
) -> None:
    ws, site, env = project
    seccomp = site / "toolbelt" / "sandbox" / "seccomp.py"
    before = seccomp.read_text()
    target = seccomp.relative_to(ws)
    visible = call_bash(ws, env, f"echo 'import os' >> {target}")  # the analysis sees it
    assert visible.returncode == 3
    assert "toolbelt's own installation" in visible.stdout
    # a script of the workspace, approved: what it writes only the sandbox sees
    (ws / "append.sh").write_text(f"echo 'import os' >> {target}\n")
    appended = call_bash(ws, env, "sh append.sh", "--yes")
    assert appended.returncode == 1
    assert "Read-only file system" in appended.stdout
    assert seccomp.read_text() == before
    (ws / "replace.sh").write_text("echo evil > .venv/bin/rg; echo new > .venv/bin/new-tool\n")
    replaced = call_bash(ws, env, "sh replace.sh", "--yes")
    assert "Read-only file system" in replaced.stdout
    assert (ws / ".venv" / "bin" / "rg").read_text() == "#!/bin/sh\necho genuine\n"
    assert not (ws / ".venv" / "bin" / "new-tool").exists()
    rest = call_bash(ws, env, "echo ok > notes.txt && cat notes.txt")  # the rest stays writable
    assert (rest.returncode, rest.stdout.strip()) == (0, "ok")


def test_a_sandboxed_command_cannot_add_a_module_to_the_editable_installs_path_entry(
    tmp_path: Path,
) -> None:
    """An editable install's ``.pth`` puts the whole ``src/`` on ``sys.path``, and every start
    of toolbelt looks there for modules that are not installed (``copy`` imports
    ``org.python.core``): a ``src/org/__init__.py`` would run unconfined at the next start."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    shutil.copytree(PACKAGE, ws / "src" / "toolbelt", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
    (site,) = (ws / ".venv" / "lib").glob("python*/site-packages")
    (site / "_toolbelt.pth").write_text(f"{ws / 'src'}\n")  # what an editable install writes
    deps = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    (site / "zz_deps.pth").write_text(f"{deps}\n")
    env = {**os.environ, "HOME": str(home)}
    visible = call_bash(ws, env, "mkdir -p src/org && echo 'import os' > src/org/__init__.py")
    assert visible.returncode == 3
    assert "toolbelt's own installation" in visible.stdout
    (ws / "plant.sh").write_text("mkdir -p src/org && echo 'import os' > src/org/__init__.py\n")
    planted = call_bash(ws, env, "sh plant.sh", "--yes")
    assert "Read-only file system" in planted.stdout
    assert not (ws / "src" / "org").exists()
    rest = call_bash(ws, env, "mkdir -p docs && echo ok > docs/a.txt && cat docs/a.txt")
    assert (rest.returncode, rest.stdout.strip()) == (0, "ok")


def test_the_own_install_in_a_root_is_protected_and_never_granted_writable() -> None:
    """The editable install of this repository: its ``.venv`` and ``src/toolbelt`` are kept
    read-only by mounts, and the entry-by-entry grants (Landlock without namespaces) step
    around them instead of granting ``.venv/`` or ``src/`` whole."""
    protections = Protections([REPO], home=REPO / "no-home")
    own = protections.installation_inside_roots()
    if not any(path == PACKAGE or path in PACKAGE.parents for path in own):
        pytest.skip("toolbelt is not installed from this repository")
    grants = workspace_grants([REPO], protections=protections)
    assert str(REPO / "src") in grants.protected  # the editable install's whole path entry
    for entry in map(Path, grants.entries):
        for path in own:
            assert not (entry == path or entry in path.parents), (entry, path)
