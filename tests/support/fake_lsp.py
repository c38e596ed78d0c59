"""A language server for tests, in plain Python (no toolbelt import): LSP over stdio, and one
misbehaviour chosen by its argument.

- ``hang``: never answers ``initialize``;
- ``crash``: answers ``initialize``, then exits as soon as a document is opened;
- ``silent``: answers everything and never publishes diagnostics;
- ``slow:SECONDS``: publishes each document's diagnostics that many seconds late;
- ``echo:MESSAGE``: says MESSAGE of each problem.

Unless ``hang``, a document's diagnostics are an error for each line holding ``BROKEN``,
"BROKEN is not allowed" (or MESSAGE).
More arguments are ignored: a test passes a token of its own, to find its processes by.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "silent"


def read() -> dict[str, object] | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


_lock = threading.Lock()


def send(message: dict[str, object]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    with _lock:
        sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        sys.stdout.buffer.flush()


def publish(uri: str, version: int, text: str) -> None:
    message = MODE[5:] if MODE.startswith("echo:") else "BROKEN is not allowed"
    found = [(n, message) for n, line in enumerate(text.splitlines()) if "BROKEN" in line]
    diagnostics = [
        {
            "range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 1}},
            "severity": 1,
            "code": "fake",
            "message": message,
        }
        for n, message in found
    ]
    send({"method": "textDocument/publishDiagnostics",
          "params": {"uri": uri, "version": version, "diagnostics": diagnostics}})  # fmt: skip


def later(uri: str, version: int, text: str) -> None:
    if MODE == "silent":
        return
    if MODE.startswith("slow:"):
        delay = float(MODE[5:])
        threading.Timer(delay, publish, (uri, version, text)).start()
        return
    publish(uri, version, text)


def main() -> None:
    while True:
        message = read()
        if message is None:
            return
        method = message.get("method")
        params = message.get("params") or {}
        assert isinstance(params, dict)
        if method == "initialize":
            if MODE == "hang":
                time.sleep(3600)
            send({"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        elif method == "shutdown":
            send({"id": message["id"], "result": None})
        elif method == "exit":
            return
        elif method == "textDocument/didOpen":
            if MODE == "crash":
                os._exit(3)
            document = params["textDocument"]
            later(document["uri"], document["version"], document["text"])
        elif method == "textDocument/didChange":
            document = params["textDocument"]
            later(document["uri"], document["version"], params["contentChanges"][-1]["text"])
        elif "id" in message:
            send({"id": message["id"], "result": None})


if __name__ == "__main__":
    main()
