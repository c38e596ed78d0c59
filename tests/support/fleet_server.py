"""Start the real `toolbelt mcp` as a fleet starts it: `--port 0`, `--ready-file`, the token
in `$TOOLBELT_MCP_TOKEN`; wait for the ready file, read the URL from it."""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.toolbelt_cli import TOOLBELT

__all__ = ["FleetServer", "serve"]


@dataclass
class FleetServer:
    process: subprocess.Popen[str]
    url: str
    token: str
    ready: Path

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        finally:
            self.process.kill()
            self.process.wait()


def serve(
    root: Path, ready: Path, *args: str, token: str = "t0k-fleet", port: int = 0
) -> FleetServer:
    """The server on ``port`` (0: one the system picks), once its ready file says it serves."""
    process = subprocess.Popen(
        [
            *TOOLBELT,
            "mcp",
            "--port",
            str(port),
            "--ready-file",
            str(ready),
            "--root",
            str(root),
            *args,
        ],
        env={**os.environ, "TOOLBELT_MCP_TOKEN": token},
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not ready.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            _, err = process.communicate()
            raise AssertionError(f"the server did not become ready: {err}")
        time.sleep(0.02)
    return FleetServer(process, json.loads(ready.read_text())["url"], token, ready)
