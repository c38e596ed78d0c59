"""The ready file: how a launcher learns that a server on ``--port 0`` serves, and where.

A fleet starts servers on port 0 (two servers, or a server and anything else, never race for a
port) and needs the port the kernel chose. The server writes one JSON object —
``{"url", "pid", "version", "token_file"}`` — to ``--ready-file PATH`` once it accepts
requests, atomically (a temporary file renamed into place), so a launcher that polls for the
file never reads half of it; it is removed when the server stops, so a file left behind never
names a dead server. The token is never in it, only the file it is in when the server made
it (``--port 0`` without a token given): a launcher that gave the token knows it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from toolbelt.files.atomic import replace_file

__all__ = ["remove_ready_file", "write_ready_file"]


def write_ready_file(path: Path, url: str, token_file: Path | None) -> None:
    """Write ``{"url", "pid", "version", "token_file"}`` to ``path`` atomically
    (``token_file``: where the token is; None without one, or when it came from the
    environment)."""
    from toolbelt.core.distribution import installed_version

    written = {
        "url": url,
        "pid": os.getpid(),
        "version": installed_version(),
        "token_file": str(token_file) if token_file else None,
    }
    replace_file(path, (json.dumps(written) + "\n").encode(), mode=0o666)


def remove_ready_file(path: Path) -> None:
    """Remove the ready file if it is still the one this process wrote."""
    try:
        written = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(written, dict) and written.get("pid") == os.getpid():
        path.unlink(missing_ok=True)
