"""``toolbelt run`` as a user runs it: a real subprocess, its output and exit status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.toolbelt_cli import toolbelt_run


def test_without_a_model_it_says_how_to_choose_one(tmp_path: Path) -> None:
    done = toolbelt_run("fix the bug", "--root", str(tmp_path), home=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "toolbelt: No model given: pass --model PROVIDER:MODEL (e.g. anthropic:claude-sonnet-4-5 "
        "or ollama:qwen3-coder) or set TOOLBELT_MODEL.\n"
    )


def test_an_empty_prompt_on_stdin_is_invalid_usage(tmp_path: Path) -> None:
    done = toolbelt_run("-", "--model", "ollama:x", home=tmp_path, stdin="  \n")
    assert done.returncode == 2
    assert (
        done.stderr == "toolbelt: The prompt from standard input is empty; say what the task is.\n"
    )


def test_bad_numbers_formats_and_roots_are_invalid_usage(tmp_path: Path) -> None:
    turns = toolbelt_run("go", "--model", "ollama:x", "--max-turns", "0", home=tmp_path)
    assert (turns.returncode, turns.stderr) == (
        2,
        "toolbelt: --max-turns must be at least 1, not 0.\n",
    )
    fmt = toolbelt_run(
        "go",
        "--model",
        "ollama:x",
        "--tool-format",
        "smoke-signals",
        "--root",
        str(tmp_path),
        home=tmp_path,
    )
    assert fmt.returncode == 2
    assert fmt.stderr == (
        "toolbelt: Unknown tool format 'smoke-signals'; choose native, auto or one of: hermes, "
        "qwen3-coder, glm-4.5, glm-4.7, mistral, mistral-v11, llama3, deepseek-v3, "
        "deepseek-v3.1, deepseek-v3.2, kimi-k2, harmony.\n"
    )
    root = toolbelt_run(
        "go", "--model", "ollama:x", "--root", str(tmp_path / "nope"), home=tmp_path
    )
    assert root.returncode == 2 and "nope" in root.stderr
    flag = toolbelt_run("go", "--max-turns", "many", home=tmp_path)
    assert flag.returncode == 2 and "invalid int value: 'many'" in flag.stderr


def test_toolbelt_call_loads_nothing_of_the_agent() -> None:
    code = (
        "import sys; from toolbelt.cli.main import main; main(['call', 'think', "
        '\'{"thought": "x"}\']); print(sorted(m for m in sys.modules '
        "if m.startswith(('toolbelt.agent', 'toolbelt.providers.open', 'anthropic', 'openai'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[]"
