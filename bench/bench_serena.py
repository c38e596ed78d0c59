"""toolbelt's code tools side by side with Serena (``serena-agent`` 2.1.0), both over MCP
stdio with the official client, both on the same basedpyright 1.40.2, on the same project
(the medium project of ``bench_code``: the standard library's email, json, http, logging).

- start: from spawning the server to its first answer about code: a file's symbols (toolbelt
  answers from tree-sitter, with no server), and references (both start basedpyright);
- per call, warm: a file's symbols, a symbol found by name, its references, its definition,
  a file's diagnostics (median of interleaved rounds);
- and which operations each offers.

Serena is installed for this benchmark only, in the git-ignored ``.peers/serena`` venv:
``python3 -m venv .peers/serena && .peers/serena/bin/pip install serena-agent==2.1.0``. It
runs with the LSP backend, the ``ide`` context and one tool per operation, its Python server
pointed at toolbelt's own basedpyright (``ls_path``): it would otherwise fetch pyright with
uvx, which has no network here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_code import WORK, make_project
from harness import Case, fmt_time, interleave, table, write_section
from peers import McpPeer

REPO = Path(__file__).resolve().parent.parent
SERENA = REPO / ".peers" / "serena" / "bin" / "serena"
BASEDPYRIGHT = Path(sys.prefix) / "bin" / "basedpyright-langserver"
ROUNDS = 11
TARGET = "email/message.py"


def serena_home() -> Path:
    home = WORK / "serena-home"
    config = home / ".serena" / "serena_config.yml"
    if not config.exists():
        home.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(SERENA), "init"], env={**os.environ, "HOME": str(home)}, check=True)
        text = config.read_text()
        text = text.replace(
            "ls_specific_settings: {}",
            f'ls_specific_settings:\n  python_basedpyright:\n    ls_path: "{BASEDPYRIGHT}"',
        )
        config.write_text(text)
    return home


def project_copy(name: str) -> Path:
    root = WORK / name
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(make_project(), root)
    return root


def open_serena(root: Path, home: Path) -> McpPeer:
    if not (root / ".serena" / "project.yml").exists():
        _create_project(root, home)
    command = [str(SERENA), "start-mcp-server", "--project", str(root), "--context", "ide",
               "--agent-interface", "tools", "--enable-web-dashboard", "false",
               "--open-web-dashboard", "false", "--enable-gui-log-window", "false",
               "--log-level", "ERROR"]  # fmt: skip
    return McpPeer(command, root, env={**os.environ, "HOME": str(home)})


def _create_project(root: Path, home: Path) -> None:
    subprocess.run(
        [str(SERENA), "project", "create", "--ls", "python_basedpyright", str(root)],
        env={**os.environ, "HOME": str(home)},
        check=True,
        capture_output=True,
    )


def open_toolbelt(root: Path) -> McpPeer:
    env = {**os.environ}
    env.pop("TOOLBELT_DIAGNOSTICS", None)
    toolbelt = Path(sys.prefix) / "bin" / "toolbelt"
    return McpPeer([str(toolbelt), "mcp", "--root", str(root)], root, env=env)


def call(peer: McpPeer, tool: str, args: dict[str, Any]) -> Callable[[], None]:
    def run() -> None:
        result = peer.call(tool, args)
        assert not result.is_error, (tool, result.content[0].text[:500])

    return run


SERENA_CALLS = {
    "a file's symbols": ("get_symbols_overview", {"relative_path": TARGET}),
    "find a symbol by name": (
        "find_symbol",
        {"name_path_pattern": "Message/get_payload", "relative_path": TARGET},
    ),
    "references": (
        "find_referencing_symbols",
        {"name_path": "Message/get_payload", "relative_path": TARGET},
    ),
    "definition": (
        "find_declaration",
        {"relative_path": "email/generator.py", "regex": r"g\.flatten\(msg\.(get_payload)\(0\)"},
    ),
    "diagnostics of a file": ("get_diagnostics_for_file", {"relative_path": TARGET}),
}
_REFERENCED = {"path": TARGET, "symbol": "Message.get_payload"}
_DEFINED = {"path": "email/generator.py", "line": 361, "symbol": "get_payload"}
TOOLBELT_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "a file's symbols": ("lsp", {"operation": "symbols", "path": TARGET}),
    "find a symbol by name": (
        "lsp",
        {"operation": "symbols", "path": ".", "symbol": "get_payload"},
    ),
    "references": ("lsp", {"operation": "references", **_REFERENCED}),
    "definition": ("lsp", {"operation": "definition", **_DEFINED}),
    "diagnostics of a file": ("lsp", {"operation": "diagnostics", "path": TARGET}),
}


def _timed_start(
    opened: Callable[[], McpPeer], first: tuple[str, dict[str, Any]]
) -> tuple[float, McpPeer]:
    """Seconds from spawning the server to its answer to ``first``, and the server."""
    started = time.perf_counter()
    peer = opened()
    call(peer, *first)()
    return time.perf_counter() - started, peer


def side_by_side() -> str:
    home = serena_home()
    roots = {"serena": project_copy("serena-project"), "toolbelt": project_copy("tb-project")}
    starts: list[tuple[str, float, float]] = []
    for label in ("a file's symbols", "references"):  # each from fresh processes
        serena_took, serena = _timed_start(
            lambda: open_serena(roots["serena"], home), SERENA_CALLS[label]
        )
        toolbelt_took, toolbelt = _timed_start(
            lambda: open_toolbelt(roots["toolbelt"]), TOOLBELT_CALLS[label]
        )
        starts.append((f"**start, to the first answer: {label}**", serena_took, toolbelt_took))
        if label != "references":
            serena.close()
            toolbelt.close()
    groups = []
    try:
        for label in SERENA_CALLS:
            groups.append(
                (
                    label,
                    [
                        Case("Serena", call(serena, *SERENA_CALLS[label])),
                        Case("toolbelt", call(toolbelt, *TOOLBELT_CALLS[label])),
                    ],
                )
            )
        interleave([case for _, group in groups for case in group], ROUNDS)
    finally:
        serena.close()
        toolbelt.close()
    rows = [[label, fmt_time(ser), fmt_time(tb), f"×{tb / ser:.2f}"] for label, ser, tb in starts]
    for label, (ser, tb) in groups:
        rows.append(
            [label, fmt_time(ser.median), fmt_time(tb.median), f"×{tb.median / ser.median:.2f}"]
        )
    return (
        "### side by side with Serena\n\n"
        f"Serena 2.1.0 and `toolbelt mcp`, each over MCP stdio (official client), each on its own "
        f"copy of the project and on basedpyright 1.40.2; medians of {ROUNDS} interleaved "
        "rounds after the start; ×N = toolbelt / Serena.\n\n"
        + table(rows, ["case", "Serena", "toolbelt", "ratio"])
        + "\n\n"
        + OPERATIONS
    )


OPERATIONS = """\
| Serena tool | toolbelt |
|---|---|
| get_symbols_overview | `lsp` symbols (a file; tree-sitter outline without a server) |
| find_symbol | `lsp` symbols with `symbol` (workspace search); read_file `outline` |
| find_referencing_symbols | `lsp` references (by name path or line) |
| find_declaration | `lsp` definition |
| find_implementations | `lsp` implementations |
| get_diagnostics_for_file | `lsp` diagnostics; and after every edit, new and fixed ones |
| rename_symbol | `symbol_edit` rename (all files or none, a diff each, one permission) |
| replace_symbol_body | `symbol_edit` replace_body |
| insert_before_symbol / insert_after_symbol | `symbol_edit` insert_before / insert_after |
| safe_delete_symbol | `symbol_edit` safe_delete |
| — | `lsp` hover; `lsp` symbols of a directory: the ranked repository map |
| replace_content, search_for_pattern, list_dir, read_file, execute_shell_command | \
edit_file, grep, glob/ls, read_file, bash (toolbelt's own) |
| memories, onboarding | — (not code intelligence) |"""


def main() -> None:
    if not SERENA.exists():
        raise SystemExit(
            "Serena is not installed: python3 -m venv .peers/serena && "
            ".peers/serena/bin/pip install serena-agent==2.1.0"
        )
    body = "Command: `.venv/bin/python bench/run.py serena`\n\n" + side_by_side()
    write_section("serena", body)
    print(body)
