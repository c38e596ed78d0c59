"""A PDF built to be slow — pages whose content streams are zlib bombs within pypdf's own
limits — is parsed in a process of its own: read_file and web_fetch come back within the
time a PDF may take (``files.pdf_text.PDF_SECONDS``) with the pages that were extracted and a
note naming the rest, and Ctrl-C or SIGTERM ends the call, and the parser with it, at once.
Through the real ``toolbelt call``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests.support.pdf_bomb import bomb_pdf

# each call runs against its 20 s wall-time bound, and the parser is looked for in /proc:
# alone, another test's parser cannot be taken for this one's
pytestmark = pytest.mark.serial

PDF_SECONDS = 20  # files.pdf_text.PDF_SECONDS, the wall time one PDF may take

WORKER = "toolbelt.files.pdf_worker"


def toolbelt(*args: str, home: Path, cwd: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    return subprocess.Popen(
        [sys.executable, "-m", "toolbelt.cli.main", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
        env={**env, "HOME": str(home)},
    )


def finish(run: subprocess.Popen[str]) -> tuple[str, str]:
    """The call's output once it ended by itself within the bound; killed whatever happens."""
    try:
        return run.communicate(timeout=PDF_SECONDS + 60)
    finally:
        run.kill()


def workers(of: int | None = None) -> list[int]:
    """Pids of live PDF parsers; with ``of``, only those descending from that process (tests
    running beside this one have parsers of their own)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if WORKER.encode() in handle.read() and (of is None or _descends(int(entry), of)):
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def _descends(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                pid = int(handle.read().rpartition(b")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def setup(tmp_path: Path) -> tuple[Path, Path]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    # ~0.3 MB, minutes to extract whole, and no text: only the time bound can stop it
    (ws / "slow.pdf").write_bytes(bomb_pdf(20, 6, text=b""))
    return ws, home


def test_read_file_returns_what_was_extracted_in_time(tmp_path: Path) -> None:
    ws, home = setup(tmp_path)
    run = toolbelt("call", "read_file", '{"path": "slow.pdf"}', home=home, cwd=ws)
    stdout, stderr = finish(run)
    assert run.returncode == 0, stderr
    assert "slow.pdf: the extraction stopped after 20 s: pages " in stdout
    assert "not extracted (their content is slow to decode); ask for them with `pages`" in stdout
    assert workers() == []


def test_sigterm_ends_the_call_and_the_parser(tmp_path: Path) -> None:
    ws, home = setup(tmp_path)
    run = toolbelt("call", "read_file", '{"path": "slow.pdf"}', home=home, cwd=ws)
    try:
        deadline = time.monotonic() + 30
        while not workers(of=run.pid):
            assert time.monotonic() < deadline, "the parser never started"
            assert run.poll() is None, run.communicate()
            time.sleep(0.05)
        run.send_signal(signal.SIGTERM)
        run.communicate(timeout=10)  # well before the extraction's own deadline
        assert run.returncode == 143
        deadline = time.monotonic() + 5
        while workers() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert workers() == []
    finally:
        run.kill()


@contextmanager
def serving(body: bytes) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 answering every GET with ``body`` as a PDF; its origin."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/pdf")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_web_fetch_of_a_slow_pdf_returns_within_its_bound(tmp_path: Path) -> None:
    ws, home = setup(tmp_path)
    with serving((ws / "slow.pdf").read_bytes()) as origin:
        settings = {"webFetch": {"allowPrivateOrigins": [origin]}}
        (home / ".config" / "toolbelt").mkdir(parents=True)
        (home / ".config" / "toolbelt" / "settings.json").write_text(json.dumps(settings))
        args = json.dumps({"url": f"{origin}/slow.pdf"})
        run = toolbelt("call", "web_fetch", args, "--yes", home=home, cwd=ws)
        stdout, stderr = finish(run)
    assert run.returncode == 0, stderr
    assert "[The extraction stopped after 20 s: pages " in stdout
    assert workers() == []
