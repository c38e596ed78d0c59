"""No file is read by path with a plain ``open``, ``read_text`` or ``read_bytes`` but where that
is known to be safe: a workspace file read that way blocks forever on a FIFO (``.git/HEAD``
made one stopped ``toolbelt run`` before its first request) and reads ``/dev/zero`` without
end. Workspace files are read through the path guard (the tools) or ``paths.small_read``
(what toolbelt reads on its own: git pointers, configuration a launch entry names, AGENTS.md,
skills); this test keeps it that way by listing every other read in the source."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "toolbelt"

ALLOWED = {
    "sandbox/mounts.py": "/proc/self/mountinfo and the uid/gid maps, which the kernel serves",
    "shell/session.py": "/proc/PID/stat",
    "shell/jobs.py": "the background job's output file, which toolbelt created",
    "procs/ending.py": "/proc",
    "procs/identity.py": "/proc",
    "procs/spill_owners.py": "/proc",
    "config/settings.py": "the lock file beside settings.local.json, opened to append",
    "cli/notices.py": "toolbelt's own record of notices shown, in its state directory",
    "cli/mcp_command.py": "the token file the user named on the command line",
    "agent/sessions.py": "saved conversations, in toolbelt's own state directory",
    "checkpoints/objects.py": "the checkpoint store, in toolbelt's own state directory",
    "checkpoints/records.py": "the checkpoint journal (state directory) and /proc/PID/stat",
    "checkpoints/restore.py": "a before-image kept in the checkpoint store",
    "checkpoints/snapshots.py": "the shadow repository's own files, in the state directory",
    "checkpoints/states.py": "/proc/self/status",
    "checkpoints/store.py": "the store's own copy of a file, just written (to fsync it)",
    "mcp_client/config_edit.py": "the lock file beside an MCP configuration, opened to append",
    "mcp/ready_file.py": "the ready file this process wrote, where --ready-file named it",
    "remote/toolset.py": "the token file the program using RemoteToolset named",
}
"""Module → why its reads by path are safe (none reads a file the workspace wrote)."""


def raw_reads(source: str) -> list[int]:
    """Lines of ``open(…)``, ``….read_text(…)``, ``….read_bytes(…)`` and ``….open("r…")``
    calls (``os.open`` takes flags; ``Path.open()`` without a mode cannot be told from a
    toolset's ``open()`` and is left to review)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        by_name = isinstance(func, ast.Name) and func.id == "open"
        reading = isinstance(func, ast.Attribute) and func.attr in ("read_text", "read_bytes")
        if by_name or reading:
            found.append(node.lineno)
        elif isinstance(func, ast.Attribute) and func.attr == "open":
            modes = [a for a in node.args[:1] if isinstance(a, ast.Constant)]
            modes += [k.value for k in node.keywords if k.arg == "mode"]
            if any(isinstance(m, ast.Constant) and "r" in str(m.value) for m in modes):
                found.append(node.lineno)
    return found


def test_every_read_by_path_is_one_known_to_be_safe() -> None:
    unexpected = {}
    for path in sorted(SRC.rglob("*.py")):
        name = str(path.relative_to(SRC))
        lines = raw_reads(path.read_text(encoding="utf-8"))
        if lines and name not in ALLOWED:
            unexpected[name] = lines
    assert unexpected == {}, (
        "read these with paths.small_read (or through the path guard), or add the module "
        "to ALLOWED with the reason its reads cannot reach a file the workspace wrote"
    )


def test_the_check_finds_each_form() -> None:
    code = "open(p)\nq.read_text()\nq.read_bytes()\np.open('rb')\nos.open(p, 0)\nt.open(s)\n"
    assert raw_reads(code) == [1, 2, 3, 4]
