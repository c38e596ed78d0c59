"""Files that protected configuration names as code — the hooks directory ``core.hooksPath``
names, yarn's ``yarnPath``, a jar ``.mvn/jvm.config`` loads, bazel's ``tools/bazel`` — are
read-only to commands, as the configuration is: a command the user approved (which still runs
in the sandbox's workspace profile) cannot make the user's next ``git commit``, ``yarn``,
``mvn`` or ``bazel`` run its code. Through the real ``toolbelt call bash --yes``, with writes
the analysis cannot see (``awk``); a command that needed no prompt runs in the create profile,
where nothing that exists can change at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.runners.cli import Place, git, needs_sandbox, place, toolbelt

__all__ = ["place"]

pytestmark = needs_sandbox


def hooks_path(ws: Path) -> Path:
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", ".githooks")
    return ws / ".githooks" / "pre-commit"


def included_hooks_path(ws: Path) -> Path:
    git(ws, "init", "-q")
    git(ws, "config", "include.path", "../shared.gitconfig")
    (ws / "shared.gitconfig").write_text("[core]\n\thooksPath = tools/hooks\n")
    return ws / "tools" / "hooks" / "pre-commit"


def nested_hooks_path(ws: Path) -> Path:
    """A repository nested in the workspace (a vendored clone) keeping its hooks in-tree."""
    (ws / "vendor").mkdir()
    git(ws / "vendor", "init", "-q")
    git(ws / "vendor", "config", "core.hooksPath", "hooks")
    return ws / "vendor" / "hooks" / "pre-commit"


def yarn_path(ws: Path) -> Path:
    (ws / ".yarnrc.yml").write_text("yarnPath: .yarn/releases/yarn-4.1.0.cjs\n")
    return ws / ".yarn" / "releases" / "yarn-4.1.0.cjs"


def maven_agent(ws: Path) -> Path:
    (ws / ".mvn").mkdir()
    (ws / ".mvn" / "jvm.config").write_text("-Xmx1g -javaagent:lib/agent.jar=verbose\n")
    return ws / "lib" / "agent.jar"


def bazel_wrapper(ws: Path) -> Path:
    (ws / "MODULE.bazel").write_text('module(name = "x")\n')
    return ws / "tools" / "bazel"


CASES = [hooks_path, included_hooks_path, nested_hooks_path, yarn_path, maven_agent, bazel_wrapper]


def bash(place: Place, command: str) -> str:
    done = toolbelt("call", "bash", json.dumps({"command": command}), "--yes", place=place)
    return done.stdout + done.stderr


@pytest.mark.parametrize("configure", CASES)
def test_an_existing_file_the_configuration_names_is_read_only(
    place: Place, configure: Callable[[Path], Path]
) -> None:
    target = configure(place.ws)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("original\n")
    relative = target.relative_to(place.ws)
    shown = bash(place, f'awk \'BEGIN {{ print "planted" >> "{relative}" }}\'')
    assert "Read-only file system" in shown or "Permission denied" in shown, shown
    assert target.read_text() == "original\n"


@pytest.mark.parametrize("configure", CASES)
def test_a_missing_one_a_command_creates_is_moved_aside(
    place: Place, configure: Callable[[Path], Path]
) -> None:
    target = configure(place.ws)
    relative = target.relative_to(place.ws)
    make = f"mkdir -p {relative.parent} && echo planted > {relative}"
    shown = bash(place, f"awk 'BEGIN {{ system(\"{make}\") }}'")
    assert not target.exists(), shown
    assert "The sandbox removed " in shown


def test_a_hooks_path_that_is_the_work_tree_protects_the_hooks_by_name(place: Place) -> None:
    git(place.ws, "init", "-q")
    git(place.ws, "config", "core.hooksPath", ".")
    shown = bash(place, "awk 'BEGIN { system(\"echo planted > pre-commit\") }'; echo x > notes.txt")
    assert not (place.ws / "pre-commit").exists(), shown
    assert (place.ws / "notes.txt").read_text() == "x\n"  # the rest of the root stays writable


def test_write_file_asks_for_it_in_every_mode(place: Place) -> None:
    target = hooks_path(place.ws)
    args = json.dumps({"path": str(target.relative_to(place.ws)), "content": "x\n"})
    done = toolbelt("call", "write_file", args, "--mode", "bypass", place=place)
    assert done.returncode == 3
    assert f"{place.ws / '.git' / 'config'} names it as git's hooks directory" in done.stdout
    assert not target.exists()
