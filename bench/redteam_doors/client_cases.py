"""The MCP client and `toolbelt run` against a hostile server/model: what reaches the terminal."""

from __future__ import annotations

import json
import os
import pathlib
import pty
import select
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from common import RESULTS, TB, private_env, record
from tests.support.fake_provider import FakeProvider


def run_pty(argv, env, cwd, timeout=90):
    """Run with stdout and stderr on a pty (the person's terminal); returns what was written."""
    m, s = pty.openpty()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=s, stderr=s)
    os.close(s)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([m], [], [], 0.5)
        if r:
            try:
                d = os.read(m, 65536)
            except OSError:
                break
            if not d:
                break
            out += d
        elif p.poll() is not None:
            break
    if p.poll() is None:
        p.kill()
    p.wait()
    os.close(m)
    return p.returncode, out.decode(errors="replace")


HOSTILE = ["\rOVERWRITE", "\x1b]52", "\x1b]8;", "\x1b[2J", "\x9b", "\u202e", "\x07"]


def leaked(out):
    found = [h.encode("unicode_escape").decode() for h in HOSTILE if h in out]
    return found


def main():
    base = pathlib.Path(tempfile.mkdtemp(prefix="rt2client-"))
    env = private_env(base)
    env["TERM"] = "xterm-256color"
    env.pop("NO_COLOR", None)
    ws = base / "ws"
    ws.mkdir()
    cfg = pathlib.Path(env["XDG_CONFIG_HOME"]) / "toolbelt"
    cfg.mkdir(parents=True)
    (cfg / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "h": {
                        "command": sys.executable,
                        "args": [
                            "" + str(pathlib.Path(__file__).parent / "hostile_stdio_server.py") + ""
                        ],
                    }
                }
            }
        )
    )
    cmds = {
        "tools": [TB, "tools", "--root", str(ws)],
        "mcp-servers": [TB, "mcp-servers", "--root", str(ws)],
        "mcp-servers get": [TB, "mcp-servers", "get", "h", "--root", str(ws)],
        "call result": [TB, "call", "mcp__h__evil", "{}", "--yes", "--root", str(ws)],
        "call error": [TB, "call", "mcp__h__fails", "{}", "--yes", "--root", str(ws)],
        "call unknown (hostile name listed)": [
            TB,
            "call",
            "mcp__h__nope",
            "{}",
            "--yes",
            "--root",
            str(ws),
        ],
    }
    for name, argv in cmds.items():
        rc, out = run_pty(argv, env, ws)
        bad = leaked(out)
        record("term", name, not bad, f"rc {rc}; raw {bad}; {out[-150:]!r}")
    E = "\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b]8;;http://evil.example\x07LINK\x1b]8;;\x07\x1b[2J\x9b31m\u202e\rOVERWRITE"
    (ws / ("f" + "\x1b[31m" + ".txt")).write_text("x")
    script = [
        {
            "text": "Working" + E,
            "calls": [
                {"name": "mcp__h__evil", "arguments": {"a": "x" + E}},
                {"name": "mcp__h__fails", "arguments": {}},
                {
                    "name": "bash",
                    "arguments": {
                        "command": "printf 'OUT\\033]52;c;ZXZpbA==\\007\\033]8;;http://e\\007L\\033]8;;\\007'; echo "
                        + json.dumps("arg" + E)
                    },
                },
                {"name": "read_file", "arguments": {"path": "nope" + E}},
            ],
        },
        {"text": "Answer " + E + " [click](http://evil.example) done"},
    ]
    for mode in ("text", "stream-json"):
        with FakeProvider(script) as fake:
            argv = [
                TB,
                "run",
                "do it",
                "--model",
                "openai:gpt-test",
                "--base-url",
                fake.openai_url,
                "--root",
                str(ws),
                "--yes",
                "--sandbox",
                "off",
            ]
            if mode != "text":
                argv += ["--output-format", mode]
            e2 = dict(env, OPENAI_API_KEY="sk-test")
            rc, out = run_pty(argv, e2, ws, timeout=120)
        bad = leaked(out) if mode == "text" else [b for b in leaked(out)]
        record(
            "term", f"run ({mode}) at a terminal", not bad, f"rc {rc}; raw {bad}; {out[-300:]!r}"
        )
    print(json.dumps(RESULTS), file=open(base / "results.json", "w"))


if __name__ == "__main__":
    main()
