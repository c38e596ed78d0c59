"""Which workspace files an entry names, and so which ``toolbelt trust`` pins
(``config.launch_files``): what can run, not data; inside the workspace, not outside."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from toolbelt.config.launch_files import file_digests, hook_files, named_files


def make(path: Path, text: str = "x\n", mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    return path


def test_the_program_scripts_and_runnable_arguments_are_named_data_is_not(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    srv = make(ws / "srv", mode=0o755)  # executable, no suffix
    script = make(ws / "server")  # no suffix, not executable: named as python's script
    plugin = make(ws / "plugins" / "extra.py")  # a source file as an option's value
    shebang = make(ws / "hook", "#!/bin/sh\necho\n")
    make(ws / "notes.db")
    make(ws / "config.json")
    assert named_files(["./srv", "--db", "notes.db", "config.json"], ws, ws) == [srv]
    argv = [sys.executable, "-u", "server", "--plugin=plugins/extra.py", "hook", "notes.db"]
    assert named_files(argv, ws, ws) == [script, plugin, shebang]
    # the interpreter's script is its first operand: a data file after it is not promoted
    assert named_files([sys.executable, "missing.py", "notes.db"], ws, ws) == []


def test_only_files_in_the_workspace_count_symlinks_leading_in_or_out_included(
    tmp_path: Path,
) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "elsewhere"
    make(outside / "tool.py")
    (ws / "bin").mkdir(parents=True)
    (ws / "bin" / "tool.py").symlink_to(outside / "tool.py")  # committed link leading out
    (outside / "into.py").symlink_to(make(ws / "real.py"))  # a path outside leading in
    argv = ["python3", str(outside / "tool.py"), "bin/tool.py", str(outside / "into.py")]
    assert named_files(argv, ws, ws) == [ws / "bin" / "tool.py", outside / "into.py"]
    # the program found on PATH's absolute entries, when that is in the workspace
    tool = make(ws / "bin" / "ws-tool", mode=0o755)
    path = f"bin:{ws / 'bin'}:{os.environ['PATH']}"
    assert named_files(["ws-tool"], tmp_path, ws, path) == [tool]
    assert named_files(["sh", "-c", "true"], ws, ws, path) == []  # /bin/sh is not the workspace's


def test_a_hooks_shell_command_is_parsed_not_split(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    check = make(ws / ".toolbelt" / "hooks" / "check.sh", mode=0o755)
    lint = make(ws / "scripts" / "lint.py")
    command = (
        'jq -r .tool_input.file_path | xargs python3 scripts/lint.py && "$CLAUDE_PROJECT_DIR"'
        "/.toolbelt/hooks/check.sh; cd scripts && sh -c 'python3 lint.py'"
    )
    assert hook_files(command, ws) == [lint, check]
    assert hook_files("python3 -m black -q . || true", ws) == []


def test_digests_read_regular_files_only(tmp_path: Path) -> None:
    file = make(tmp_path / "a.py", "print(1)\n")
    (tmp_path / "dir.py").mkdir()
    digests = file_digests([file, tmp_path / "dir.py", tmp_path / "gone.py"])
    assert digests == {
        str(file): "cc42155088fca5730758db72b2a5bca33112a941dfaa2d43098ec422ce4ea213"
    }


def test_a_package_runners_project_local_program_is_named(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    bins, venv = ws / "node_modules" / ".bin", ws / ".venv" / "bin"
    server = make(ws / "node_modules" / "srv" / "index.js")
    bins.mkdir(parents=True)
    (bins / "mcp-server-x").symlink_to(server)  # how npm installs a bin
    make(venv / "srv", mode=0o755)
    assert named_files(["npx", "-y", "@scope/mcp-server-x@1.2", "."], ws, ws) == [
        bins / "mcp-server-x"
    ]
    assert named_files(["npm", "exec", "mcp-server-x"], ws, ws) == [bins / "mcp-server-x"]
    assert named_files(["uv", "run", "srv", "--port", "1"], ws, ws) == [venv / "srv"]
    assert named_files(["npx", "not-installed"], ws, ws) == []
    assert named_files(["npm", "test"], ws, ws) == []


def test_one_parser_follows_sh_c_inline_code_scripts_and_task_files(tmp_path: Path) -> None:
    from toolbelt.config.launch_files import ScriptPin, launch_of_argv

    ws = tmp_path / "ws"
    srv = make(ws / "srv.py")
    run = make(ws / "lib" / "run.js")
    lint = make(ws / "scripts" / "lint.sh", mode=0o755)
    makefile = make(ws / "Makefile", "serve:\n\tpython3 srv.py\n")
    package = make(
        ws / "package.json", '{"scripts": {"lint": "sh scripts/lint.sh", "prelint": "true"}}'
    )
    assert named_files(["sh", "-c", "exec python3 srv.py"], ws, ws) == [srv]
    assert named_files(["python3", "-c", "import runpy; runpy.run_path('srv.py')"], ws, ws) == [srv]
    assert named_files(["node", "-e", "require('./lib/run.js')"], ws, ws) == [run]
    assert named_files(["make", "serve"], ws, ws) == [makefile]
    npm = launch_of_argv(["npm", "run", "lint"], ws, ws)
    assert npm.pinned == [ScriptPin(package, "prelint"), ScriptPin(package, "lint"), lint]
    assert launch_of_argv(["npm", "run", "missing"], ws, ws).unpinned[-1] == (
        f"`npm` runs the script `missing`, which {package} does not hold"
    )
    assert "`yarn` runs `cowsay` from the package registry" in (
        launch_of_argv(["yarn", "dlx", "cowsay"], ws, ws).unpinned
    )
