"""The ``toolbelt`` command as a user runs it: a real subprocess, exact output, exit codes."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.support import toolbelt_cli


def toolbelt(
    *args: str, cwd: Path | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return toolbelt_cli.toolbelt(*args, cwd=cwd, stdin=stdin, env={"COLUMNS": "120"})


def test_version() -> None:
    out = toolbelt("--version")
    assert (out.returncode, out.stdout) == (0, "toolbelt 0.1.0\n")


def test_tools_plain_listing() -> None:
    out = toolbelt("tools")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert "think\tread-only\tThink" in lines
    assert "todo_write\tmutating\tWrite task list" in lines


def test_tools_json_has_schemas() -> None:
    out = toolbelt("tools", "--json")
    listing = json.loads(out.stdout)
    think = next(t for t in listing if t["name"] == "think")
    assert think["input_schema"]["required"] == ["thought"]
    assert think["input_schema"]["additionalProperties"] is False


def test_call_prints_what_the_model_sees(tmp_path: Path) -> None:
    out = toolbelt("call", "think", '{"thought": "x"}', "--root", str(tmp_path))
    assert (out.returncode, out.stdout, out.stderr) == (0, "Thought recorded.\n", "")


def test_call_reads_arguments_from_stdin(tmp_path: Path) -> None:
    out = toolbelt("call", "think", "-", "--root", str(tmp_path), stdin='{"thought": "from stdin"}')
    assert (out.returncode, out.stdout) == (0, "Thought recorded.\n")


def test_call_json_output(tmp_path: Path) -> None:
    out = toolbelt("call", "think", '{"thought": "x"}', "--json", "--root", str(tmp_path))
    data = json.loads(out.stdout)
    assert data["status"] == "success"
    assert data["content"] == [{"type": "text", "text": "Thought recorded."}]
    assert data["structured"] == {"thought_number": 1}
    assert data["error_kind"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["call", "think", '{"thougt": "x"}'],
            "Invalid arguments for `think`: `thought` is required",
        ),
        (["call", "think", "{not json"], "The arguments for `think` are not valid JSON"),
        (["call", "nothing", "{}"], "There is no tool named `nothing`."),
    ],
)
def test_invalid_input_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    out = toolbelt(*args, "--root", str(tmp_path))
    assert out.returncode == 2
    assert out.stdout.startswith(message)


def test_missing_root_exits_2(tmp_path: Path) -> None:
    out = toolbelt("call", "think", '{"thought": "x"}', "--root", str(tmp_path / "nope"))
    assert out.returncode == 2
    assert "is not an existing directory" in out.stderr


def test_unknown_mode_is_rejected(tmp_path: Path) -> None:
    out = toolbelt("call", "think", "{}", "--mode", "yolo", "--root", str(tmp_path))
    assert out.returncode == 2
    assert "invalid choice: 'yolo'" in out.stderr


def test_help_explains_read_before_write_and_exit_codes() -> None:
    out = toolbelt("call", "--help")
    assert (
        "exit status: 0 success, 1 tool error, 2 invalid input, 3 permission denied." in out.stdout
    )
    assert "does not\napply here" in out.stdout


def test_demo_runs_on_a_directory(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\n")
    out = toolbelt("demo", "--root", str(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "$ toolbelt call think" in out.stdout
    assert out.stdout.rstrip().splitlines()[-1].split(", ")[1] == "0 failed"


def test_demo_shows_each_call_as_a_line_a_shell_would_run(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\n")
    out = toolbelt("demo", "--root", str(tmp_path))
    shown = [line[2:] for line in out.stdout.splitlines() if line.startswith("$ toolbelt call ")]
    assert len(shown) == 8
    for line in shown:  # pasted into a shell, each is the call the demo made
        words = shlex.split(line)
        assert words[:2] == ["toolbelt", "call"] and len(words) == 4, line
        assert isinstance(json.loads(words[3]), dict), line


def test_demo_goes_through_the_runtime_and_its_settings(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# demo\n")
    user_config = Path(os.environ["XDG_CONFIG_HOME"]) / "toolbelt"
    user_config.mkdir(parents=True, exist_ok=True)
    deny = {"permissions": {"deny": ["Read(./README.md)"]}}
    (user_config / "settings.json").write_text(json.dumps(deny))
    out = toolbelt("demo", "--root", str(tmp_path))
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stdout.rstrip().splitlines()[-1].split(", ")[1] == "1 failed"
    assert "Read(./README.md)" in out.stdout


def test_permission_denied_exits_3_with_a_hint(tmp_path: Path) -> None:
    # without the sandbox (with it, a write inside the workspace needs no prompt)
    out = toolbelt(
        "call", "bash", '{"command": "touch made.txt"}', "--root", str(tmp_path), "--sandbox", "off"
    )
    assert out.returncode == 3
    assert out.stdout.startswith(
        "`touch made.txt` runs a command. No one could be asked; re-run with --yes"
    )
    assert not (tmp_path / "made.txt").exists()
    approved = toolbelt(
        "call", "bash", '{"command": "touch made.txt"}', "--yes", "--root", str(tmp_path)
    )
    assert approved.returncode == 0
    assert (tmp_path / "made.txt").exists()


def test_tool_error_exits_1(tmp_path: Path) -> None:
    out = toolbelt("call", "bash", '{"command": "exit 4"}', "--yes", "--root", str(tmp_path))
    assert (out.returncode, out.stdout) == (1, "Exit code 4\n")
