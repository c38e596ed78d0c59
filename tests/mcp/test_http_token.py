"""The HTTP door's own token, against the real `toolbelt mcp --http` on 127.0.0.1: kept per port
across restarts (so a saved client configuration keeps working), renewed by --rotate-token,
and a 401 that tells a client which file holds it (``WWW-Authenticate: Bearer``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from tests.mcp.http_server import free_port

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}
TOOLBELT = [sys.executable, "-m", "toolbelt.cli.main"]
SERVE = [*TOOLBELT, "mcp"]


@contextmanager
def serving(root: Path, port: int, *args: str, lines: int = 3) -> Iterator[list[str]]:
    """The server on ``port`` until the block ends (SIGTERM); its first ``lines`` stderr
    lines (it serves once they are written)."""
    process = subprocess.Popen(
        [*SERVE, "--http", str(port), "--root", root, *args],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        said = [process.stderr.readline() for _ in range(lines)]
        deadline = time.monotonic() + 30
        while not _live(port):  # up, and so past installing its SIGTERM handling
            assert time.monotonic() < deadline, "the server never answered /livez"
            time.sleep(0.05)
        yield said
    finally:
        process.terminate()
        assert process.wait(30) == 0
        if process.stderr is not None:
            process.stderr.close()


def _live(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/livez", timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def kept(port: int) -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "toolbelt" / "tokens" / f"mcp-{port}.token"


def post(port: int, token: str | None) -> httpx.Response:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {})}
    return httpx.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers=headers)


def test_the_token_is_kept_per_port_until_rotated(tmp_path: Path) -> None:
    port = free_port()
    token_file = kept(port)
    with serving(tmp_path, port) as said:
        assert said == [
            f"toolbelt mcp: serving http://127.0.0.1:{port}/mcp\n",
            "toolbelt mcp: clients send the header 'Authorization: Bearer TOKEN' with the token "
            f"from {token_file}\n",
            f"toolbelt mcp: the token stays the same for port {port} across restarts; "
            "--rotate-token replaces it\n",
        ]
        assert token_file.stat().st_mode & 0o777 == 0o600
        assert token_file.parent.stat().st_mode & 0o777 == 0o700
        first = token_file.read_text().strip()
        assert len(first) >= 40
        assert post(port, first).status_code == 200
    assert token_file.read_text().strip() == first  # kept when the server stops
    with serving(tmp_path, port):  # a saved client configuration still works
        assert post(port, first).status_code == 200
    with serving(tmp_path, port, "--rotate-token", lines=4) as said:
        assert said[3] == (
            f"toolbelt mcp: a new token was made for port {port} (--rotate-token): update "
            "saved clients\n"
        )
        second = token_file.read_text().strip()
        assert second != first
        assert post(port, first).status_code == 401
        assert post(port, second).status_code == 200


def test_a_token_file_others_can_read_is_replaced(tmp_path: Path) -> None:
    port = free_port()
    token_file = kept(port)
    token_file.parent.mkdir(mode=0o700, parents=True)
    token_file.write_text("known-to-everyone\n")
    token_file.chmod(0o644)
    with serving(tmp_path, port, lines=4) as said:
        assert said[3] == (
            f"toolbelt mcp: a new token was made for port {port}: the old file could be read "
            "by other users\n"
        )
        assert post(port, "known-to-everyone").status_code == 401
        assert post(port, token_file.read_text().strip()).status_code == 200
    assert token_file.stat().st_mode & 0o777 == 0o600


def test_a_401_names_the_token_file_in_a_bearer_challenge(tmp_path: Path) -> None:
    port = free_port()
    with serving(tmp_path, port):
        missing, wrong = post(port, None), post(port, "wrong")
    where = f"send the token in {kept(port)} as the header 'Authorization: Bearer TOKEN'"
    assert (missing.status_code, wrong.status_code) == (401, 401)
    assert missing.headers["WWW-Authenticate"] == (
        f'Bearer realm="toolbelt", error_description="Missing bearer token: {where}"'
    )
    assert wrong.headers["WWW-Authenticate"] == (
        f'Bearer realm="toolbelt", error="invalid_token", error_description="Wrong bearer '
        f'token: {where}"'
    )
    assert missing.text == f"Missing bearer token: {where}\n"


def test_a_given_token_file_is_the_one_named(tmp_path: Path) -> None:
    port = free_port()
    given = tmp_path / "my.token"
    given.write_text("my-own-token\n")
    with serving(tmp_path, port, "--token-file", str(given), lines=2):
        missing = post(port, None)
        assert post(port, "my-own-token").status_code == 200
    assert f"send the token in {given} as" in missing.headers["WWW-Authenticate"]
    assert not kept(port).exists()  # nothing of toolbelt's own is made


@pytest.mark.parametrize("other", ["--no-auth", "--token-file"])
def test_rotate_token_with_a_token_of_ones_own_is_a_usage_error(other: str, tmp_path: Path) -> None:
    given = tmp_path / "my.token"
    given.write_text("t\n")
    extra = [other, str(given)] if other == "--token-file" else [other]
    done = subprocess.run(
        [*SERVE, "--http", str(free_port()), "--root", str(tmp_path), "--rotate-token", *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (
        2,
        f"toolbelt: --rotate-token renews the token toolbelt keeps for a port; with {other} "
        "there is none to renew, so leave one of them out.\n",
    )


def test_the_kept_token_is_a_secret_to_the_tools(tmp_path: Path) -> None:
    port = free_port()
    with serving(tmp_path, port):
        pass
    read = subprocess.run(
        [
            *TOOLBELT,
            "call",
            "read_file",
            json.dumps({"path": str(kept(port))}),
            "--root",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert read.returncode == 3
    assert kept(port).read_text().strip() not in read.stdout + read.stderr
