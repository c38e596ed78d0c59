"""The distribution as a user installs it: ``python -m build`` makes the sdist and, from it, the
wheel; the wheel goes into a fresh virtual environment with the pip Python ships, without the
lock (pip resolves the ranges in ``[project].dependencies``), and the command answers. A second
environment installs it beside an older minor of each main dependency, as an application that
embeds ``toolbelt.Agent`` with its own pins would.

Slow (``-m slow`` selects them, ``-m 'not slow'`` leaves them out; CI runs them): the build
takes about 10 s and each environment about 30 to 60 s with pip's cache warm (the bootstrap
fills it), minutes when every package is downloaded. pip uses the real user's cache
(``PIP_CACHE_DIR``), since each test has a private, empty home.
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
VERSION = "0.1.0"
PIP_CACHE = os.environ.get("PIP_CACHE_DIR") or str(
    Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "pip"
)
PIP_OPTIONS = ("--disable-pip-version-check", "--no-input")
NEIGHBOURS = {"pydantic": "2.13", "anyio": "4.15", "httpx": "0.27", "mcp": "2.2"}
"""One minor (for httpx one release) below the locked version of each main dependency."""


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel, the sdist), built by ``python -m build`` with the locked backend."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = out.glob("*.whl")
    [sdist] = out.glob("*.tar.gz")
    return wheel, sdist


def fresh_venv(where: Path, *requirements: str) -> Path:
    """A new virtual environment with ``requirements`` installed by its own pip; its bin/."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=120)
    installed = subprocess.run(
        [str(where / "bin" / "python"), "-m", "pip", "install", *PIP_OPTIONS, *requirements],
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_CACHE_DIR": PIP_CACHE},
        timeout=800,
    )
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    return where / "bin"


def run(*argv: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_the_wheel_and_sdist_carry_the_name_ranges_and_licence(dist: tuple[Path, Path]) -> None:
    wheel, sdist = dist
    assert (wheel.name, sdist.name) == (
        f"agent_toolbelt-{VERSION}-py3-none-any.whl",
        f"agent_toolbelt-{VERSION}.tar.gz",
    )
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"agent_toolbelt-{VERSION}.dist-info/METADATA").decode()
        licence = archive.read(f"agent_toolbelt-{VERSION}.dist-info/licenses/LICENSE").decode()
    assert {"toolbelt/__init__.py", "toolbelt/__main__.py", "toolbelt/py.typed"} <= names
    assert licence.startswith("MIT License\n")
    fields = [line.split(": ", 1) for line in metadata.split("\n\n", 1)[0].splitlines()]
    values: dict[str, list[str]] = {}
    for name, value in fields:
        values.setdefault(name, []).append(value)
    assert values["Name"] == ["agent-toolbelt"]
    assert values["License-Expression"] == ["MIT"]
    assert values["License-File"] == ["LICENSE"]
    assert "Typing :: Typed" in values["Classifier"]
    requires = values["Requires-Dist"]
    assert "pydantic<3,>=2.13" in requires
    assert "anthropic<3,>=2.10; extra == 'providers'" in requires
    assert not [r for r in requires if "==" in r.split(";")[0]]  # exact pins: the lock only
    with tarfile.open(sdist) as archive:
        members = set(archive.getnames())
    top = f"agent_toolbelt-{VERSION}"
    assert {f"{top}/LICENSE", f"{top}/pyproject.toml", f"{top}/src/toolbelt/__main__.py"} <= members


def test_the_wheel_installs_without_the_lock_and_runs(
    dist: tuple[Path, Path], tmp_path: Path
) -> None:
    wheel, _ = dist
    bin_dir = fresh_venv(tmp_path / "venv", str(wheel))
    assert run(bin_dir / "toolbelt", "--version", cwd=tmp_path).stdout == f"toolbelt {VERSION}\n"
    module = run(bin_dir / "python", "-m", "toolbelt", "--version", cwd=tmp_path)
    assert (module.returncode, module.stdout) == (0, f"toolbelt {VERSION}\n")
    called = run(bin_dir / "toolbelt", "call", "think", '{"thought": "x"}', cwd=tmp_path)
    assert (called.returncode, called.stdout, called.stderr) == (0, "Thought recorded.\n", "")


def test_the_wheel_installs_beside_older_minors_of_its_main_dependencies(
    dist: tuple[Path, Path], tmp_path: Path
) -> None:
    wheel, _ = dist
    pins = [f"{name}=={minor}.*" for name, minor in NEIGHBOURS.items()]
    bin_dir = fresh_venv(tmp_path / "venv", str(wheel), *pins)
    listed = run(bin_dir / "python", "-m", "pip", "list", "--format", "json", cwd=tmp_path)
    versions = {p["name"].lower(): p["version"] for p in json.loads(listed.stdout)}
    for name, minor in NEIGHBOURS.items():
        assert versions[name].startswith(minor + "."), (name, versions[name])
    called = run(bin_dir / "toolbelt", "call", "think", '{"thought": "x"}', cwd=tmp_path)
    assert (called.returncode, called.stdout) == (0, "Thought recorded.\n")
    # the mcp SDK of that older minor, as toolbelt's MCP client, calling toolbelt's own server
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "toolbelt" / "mcp.json"
    config.parent.mkdir(parents=True)
    server = {"command": str(bin_dir / "toolbelt"), "args": ["mcp", "--root", str(tmp_path)]}
    config.write_text(json.dumps({"mcpServers": {"self": server}}))
    proxied = run(
        bin_dir / "toolbelt", "call", "mcp__self__think", '{"thought": "y"}', "--yes", cwd=tmp_path
    )
    assert (proxied.returncode, proxied.stdout) == (0, "Thought recorded.\n"), proxied.stderr
