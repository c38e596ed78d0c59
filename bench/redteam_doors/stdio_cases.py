"""`toolbelt mcp` on stdio against a hostile client: roots, malformed frames, huge lines."""

from __future__ import annotations

import json
import os
import pathlib
import select
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from common import TB, private_env, record


def run_session(env, cwd, messages, roots=None, timeout=30, extra_args=()):
    """Send initialize (+roots capability), answer roots/list with ``roots``, then messages; return replies."""
    p = subprocess.Popen(
        [TB, "mcp", "--mode", "default", "--sandbox", "off", *extra_args],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    caps = {"roots": {}} if roots is not None else {}

    def send(m):
        p.stdin.write((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n")
        p.stdin.flush()

    send(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": caps,
                "clientInfo": {"name": "h", "version": "0"},
            },
        }
    )
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    replies, buf = [], b""
    deadline = time.monotonic() + timeout
    sent_rest = roots is None
    if sent_rest:
        for m in messages:
            send(m)
    want = len([m for m in messages if isinstance(m, bytes) or "id" in m]) + 1
    while (
        time.monotonic() < deadline
        and len([r for r in replies if "id" in r and "method" not in r]) < want
    ):
        r, _, _ = select.select([p.stdout], [], [], 0.5)
        if not r:
            if p.poll() is not None:
                break
            continue
        chunk = os.read(p.stdout.fileno(), 1 << 20)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            replies.append(msg)
            if msg.get("method") == "roots/list":
                send({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": roots}})
                if not sent_rest:
                    sent_rest = True
                    for m in messages:
                        send(m)
    try:
        p.stdin.close()
    except OSError:
        pass
    try:
        p.wait(20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    err = p.stderr.read().decode(errors="replace")
    return replies, p.returncode, err


def texts(replies):
    out = {}
    for r in replies:
        if "id" in r and "method" not in r:
            if "error" in r:
                out[r["id"]] = "ERROR " + r["error"]["message"]
            else:
                out[r["id"]] = (
                    "".join(c.get("text", "") for c in r["result"].get("content", []))
                    if isinstance(r.get("result"), dict) and "content" in r["result"]
                    else json.dumps(r.get("result"))[:100]
                )
    return out


def main():
    base = pathlib.Path(tempfile.mkdtemp(prefix="rt2stdio-"))
    home = base / "home" / "me"
    home.mkdir(parents=True)
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL\n")
    (home / "notes.txt").write_text("HOME-NOTES\n")
    proj = base / "proj"
    proj.mkdir()
    (proj / "a.txt").write_text("in project\n")
    os.symlink("/", base / "slash-link")
    os.symlink(home, base / "home-link")
    env = private_env(base)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local/share"),
    )
    probe = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": str(home / "notes.txt")}},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "/etc/hostname"}},
        },
    ]
    cases = {
        "first root /": [{"uri": "file:///"}],
        "first root home": [{"uri": home.as_uri()}],
        "first root home via symlink": [{"uri": (base / "home-link").as_uri()}],
        "first root / via symlink": [{"uri": (base / "slash-link").as_uri()}],
        "first root /tmp/../": [{"uri": "file:///tmp/.."}],
        "first root %2F-encoded": [{"uri": "file:///%2F"}],
        "first root file://localhost/": [{"uri": "file://localhost/"}],
        "first root parent of home": [{"uri": (base / "home").as_uri()}],
        "first root /etc": [{"uri": "file:///etc"}],
        "second root /": [{"uri": proj.as_uri()}, {"uri": "file:///"}],
        "second root home": [{"uri": proj.as_uri()}, {"uri": home.as_uri()}],
        "second root parent of home": [{"uri": proj.as_uri()}, {"uri": (base / "home").as_uri()}],
        "second root /etc": [{"uri": proj.as_uri()}, {"uri": "file:///etc"}],
        "root on another host": [{"uri": "file://evil.example/etc"}],
        "root not a list": "nope",
    }
    for name, roots in cases.items():
        replies, rc, err = run_session(
            env, proj, probe, roots=roots if not isinstance(roots, str) else [], timeout=25
        )
        t = texts(replies)
        home_read = "HOME-NOTES" in t.get(1, "")
        etc_read = (
            not t.get(2, "ERROR").startswith("ERROR")
            and "Permission" not in t.get(2, "")
            and t.get(2) is not None
            and "denied" not in t.get(2, "").lower()
            and "refus" not in t.get(2, "").lower()
        )
        record(
            "roots",
            name,
            not home_read,
            f"rc {rc}; home read={home_read}; /etc/hostname read={etc_read}; {t.get(1, '')[:90]!r}",
        )
    # malformed frames / huge lines (with --root)
    frames = {
        "not json": b"hello there",
        "binary": b"\x00\x01\x02\xff\xfe",
        "huge line 20 MB": b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"'
        + b"a" * (20 << 20)
        + b'"}}',
        "batch": b'[{"jsonrpc":"2.0","id":6,"method":"ping"}]',
        "deep nesting": b"[" * 100000 + b"]" * 100000,
        "CRLF frame": b'{"jsonrpc":"2.0","id":7,"method":"ping"}\r',
        "escape in method": json.dumps(
            {"jsonrpc": "2.0", "id": 8, "method": "\x1b]0;pwned\x07\x1b[2J"}
        ).encode(),
    }
    for name, frame in frames.items():
        follow = {"jsonrpc": "2.0", "id": 99, "method": "ping"}
        replies, rc, err = run_session(
            env, proj, [frame, follow], roots=None, timeout=40, extra_args=("--root", str(proj))
        )
        ids = [r.get("id") for r in replies]
        ok = 99 in ids and "Traceback" not in err and "\x1b" not in err
        record("stdio", name, ok, f"rc {rc}; ids {ids[:6]}; stderr {err[-160:]!r}")


if __name__ == "__main__":
    main()
