"""``--toolset`` never imports from the current directory: a repository's ``openai.py``,
``concurrent.py`` or ``difflib.py`` must not replace the modules toolbelt (or the toolset)
imports, even for an installed toolset such as ``toolbelt:build_toolset``; a toolset file is
named by path and loaded alone. The real console script runs in a planted repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support import toolbelt_cli
from tests.support.shadow_modules import marks_left, plant_shadows

SHADOWS = ["openai", "anthropic", "httpx", "concurrent", "difflib", "json", "toolbelt_toolset_file"]

MY_TOOLS = """
import difflib

import toolbelt


class EchoInput(toolbelt.ToolInput):
    text: str


class EchoTool(toolbelt.Tool[EchoInput]):
    name = "echo"
    title = "Echo"
    description = "Say the text back with difflib's ratio to itself."
    input_model = EchoInput
    example = {"text": "hi"}
    readonly = True

    async def run(self, args: EchoInput, ctx: toolbelt.ToolContext) -> toolbelt.ToolOutput:
        ratio = difflib.SequenceMatcher(None, args.text, args.text).ratio()
        return toolbelt.ToolOutput.text(f"{args.text} {ratio}")


def toolset() -> toolbelt.Toolset:
    return toolbelt.build_toolset(extra=[EchoTool()])
"""


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A cloned repository whose modules of common names each leave a mark when imported."""
    repo = tmp_path / "repo"
    repo.mkdir()
    plant_shadows(repo, tmp_path / "marks", SHADOWS)
    (repo / "my_tools.py").write_text(MY_TOOLS)
    return repo


def toolbelt(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return toolbelt_cli.toolbelt(*args, cwd=repo, launcher=True)


def marks(repo: Path) -> list[str]:
    return marks_left(repo.parent / "marks")


def test_an_installed_toolset_runs_none_of_the_repositorys_modules(repository: Path) -> None:
    done = toolbelt(
        repository, "call", "think", '{"thought": "x"}', "--toolset", "toolbelt:build_toolset"
    )
    assert done.returncode == 0, done.stderr
    assert marks(repository) == []


def test_a_toolset_file_named_by_path_is_loaded_alone(repository: Path) -> None:
    done = toolbelt(
        repository, "call", "echo", '{"text": "hi"}', "--toolset", "./my_tools.py:toolset"
    )
    assert (done.returncode, done.stdout.strip()) == (0, "hi 1.0"), done.stderr
    assert marks(repository) == []  # its `import difflib` got the standard one


def test_a_module_only_in_the_current_directory_is_refused_with_the_way_to_name_it(
    repository: Path,
) -> None:
    done = toolbelt(repository, "call", "echo", '{"text": "hi"}', "--toolset", "my_tools:toolset")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "toolbelt: --toolset: 'my_tools' is not an installed module, and toolbelt never imports "
        "from the current directory (its files could shadow installed modules); name the file "
        "instead: --toolset ./my_tools.py:ATTR."
    )
    assert marks(repository) == []


def test_a_toolset_path_that_is_not_a_python_file_is_a_usage_error(repository: Path) -> None:
    done = toolbelt(repository, "call", "think", "{}", "--toolset", "./missing.py:toolset")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "toolbelt: --toolset: './missing.py' is not a Python file; name an existing .py file."
    )
