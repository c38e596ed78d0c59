"""`toolbelt mcp --http`: the SDK's streamable HTTP client, and the HTTP safety rules."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.mcp.http_server import HttpServer, start
from tests.support.homes import private_home
from tests.support.mcp_requests import INITIALIZE
from tests.support.processes import alive
from tests.support.toolbelt_cli import TOOLBELT, toolbelt
from tests.support.waiting import wait_until_async

from mcp import ClientSession
from toolbelt.sandbox.landlock import abi_version

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """One server for the tests that only talk to it (each in sessions of its own)."""
    base = tmp_path_factory.mktemp("http-server")
    (base / "ws").mkdir()
    running = start(base / "ws", "--mode", "bypass", env=private_home(base / "user"))
    yield running
    running.stop()


async def test_session_flow_with_progress_and_state(server: HttpServer) -> None:
    messages: list[str] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with server.transport() as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"read_file", "bash", "grep"} <= names
            result = await client.call_tool(
                "bash", {"command": "echo one; sleep 0.3; echo two"}, progress_callback=progress
            )
            assert result.content[0].text == "one\ntwo"
            await client.call_tool("bash", {"command": "cd /tmp 2>/dev/null; export X=7"})
            second = await client.call_tool("bash", {"command": "echo $X"})
            assert second.content[0].text == "7"
    assert "".join(messages) == "one\ntwo\n"


def test_health_and_dns_rebinding_protection(server: HttpServer) -> None:
    assert httpx.get(f"{server.base}/livez").text == "ok"
    assert httpx.get(f"{server.base}/readyz").text == "ready"
    auth = server.headers
    port = server.port
    for host in ("evil.example", f"localhost.:{port}", f"127.0.0.1.nip.io:{port}"):
        evil_host = httpx.post(server.url, headers={**auth, "Host": host}, json=INITIALIZE)
        assert (evil_host.status_code, evil_host.text) == (403, "Host not allowed")
    for host in (f"[::ffff:127.0.0.1]:{port}", "127.0.0.1", f"127.0.0.1:{port}0"):
        assert (
            httpx.post(server.url, headers={**auth, "Host": host}, json=INITIALIZE).status_code
            == 403
        )
    for host in (f"localhost:{port}", f"[::1]:{port}"):
        assert (
            httpx.post(server.url, headers={**auth, "Host": host}, json=INITIALIZE).status_code
            == 200
        )
    for origin in ("http://evil.example", "null", "file://", "http://localhost@evil.example"):
        evil = httpx.post(server.url, headers={**auth, "Origin": origin}, json=INITIALIZE)
        assert (evil.status_code, evil.text) == (403, "Origin not allowed")
        assert "access-control-allow-origin" not in evil.headers
    no_session = httpx.post(
        server.url, headers=auth, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    )
    assert no_session.status_code == 404


def test_the_token_is_required_even_on_loopback(server: HttpServer) -> None:
    assert httpx.post(server.url, json=INITIALIZE).status_code == 401
    wrong = httpx.post(server.url, json=INITIALIZE, headers={"Authorization": "Bearer nope"})
    assert (wrong.status_code, wrong.text) == (
        401,
        f"Wrong bearer token: send the token in {server.token_file} as the header "
        "'Authorization: Bearer TOKEN'\n",
    )
    in_query = httpx.post(f"{server.url}?token={server.token}", json=INITIALIZE)
    assert in_query.status_code == 401
    ok = httpx.post(server.url, json=INITIALIZE, headers=server.headers)
    assert ok.status_code == 200
    assert len(ok.headers["mcp-session-id"]) == 32  # 128 bits


def browser_post(server: HttpServer, origin: str, content_type: str) -> bytes:
    """What a web page's fetch() sends with no CORS preflight: a raw POST over a socket."""
    import socket

    body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
    request = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {origin}\r\n"
        f"Authorization: Bearer {server.token}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply.split(b"\r\n", 1)[0]


def test_a_local_web_page_on_another_port_or_scheme_cannot_call(server: HttpServer) -> None:
    same = f"http://127.0.0.1:{server.port}"
    assert browser_post(server, f"http://localhost:{server.port + 1}", "application/json") == (
        b"HTTP/1.1 403 Forbidden"
    )
    assert browser_post(server, f"https://127.0.0.1:{server.port}", "application/json") == (
        b"HTTP/1.1 403 Forbidden"
    )
    for simple in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        status = browser_post(server, same, simple)
        assert status == b"HTTP/1.1 415 Unsupported Media Type"
    assert browser_post(server, same, "application/json; charset=utf-8") == b"HTTP/1.1 200 OK"
    other_port = httpx.post(
        server.url,
        json=INITIALIZE,
        headers={**server.headers, "Host": f"127.0.0.1:{server.port + 1}"},
    )
    assert other_port.status_code == 403


def test_a_generated_token_in_a_private_file_named_on_stderr(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    root = tmp_path / "root"
    root.mkdir()
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    running = start(root, env=env, auth=False, stderr=subprocess.PIPE)  # --no-auth
    assert running.process.stderr is not None
    said = running.process.stderr.readline().decode() + running.process.stderr.readline().decode()
    running.stop()
    assert f"toolbelt mcp: serving http://127.0.0.1:{running.port}/mcp\n" in said
    assert "no token needed (--no-auth)" in said

    from tests.mcp.http_server import free_port

    port = free_port()
    process = subprocess.Popen(
        [*TOOLBELT, "mcp", "--http", str(port), "--root", root],
        env={**os.environ, **env},
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline().decode()
        second = process.stderr.readline().decode()
        assert first == f"toolbelt mcp: serving http://127.0.0.1:{port}/mcp\n"
        third = process.stderr.readline().decode()
        state = Path(os.environ["XDG_STATE_HOME"])
        token_file = state / "toolbelt" / "tokens" / f"mcp-{port}.token"
        assert second == (
            "toolbelt mcp: clients send the header 'Authorization: Bearer TOKEN' with the token "
            f"from {token_file}\n"
        )
        assert third == (
            f"toolbelt mcp: the token stays the same for port {port} across restarts; "
            "--rotate-token replaces it\n"
        )
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 40
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx.post(url, json=INITIALIZE).status_code == 401
        ok = httpx.post(url, json=INITIALIZE, headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200
    finally:
        process.terminate()
        process.wait(20)
        if process.stderr is not None:
            process.stderr.close()
    assert token_file.exists()  # kept for the next start (tests/mcp/test_http_token.py)


def test_a_port_in_use_exits_1_with_a_clear_message(server: HttpServer, tmp_path: Path) -> None:
    address = f"127.0.0.1:{server.port}"
    taken = toolbelt("mcp", "--root", str(tmp_path), "--http", address)
    assert taken.returncode == 1
    assert taken.stderr == (
        f"toolbelt: cannot listen on 127.0.0.1:{server.port}: the address is already in use; "
        "choose another port.\n"
    )


def test_remote_bind_needs_allow_remote_and_a_token(tmp_path: Path) -> None:
    base = [*TOOLBELT, "mcp", "--root", str(tmp_path)]
    refused = subprocess.run(
        [*base, "--http", "0.0.0.0:0"], capture_output=True, text=True, timeout=30
    )
    assert refused.returncode == 2
    assert "only loopback addresses are allowed unless you pass --allow-remote" in refused.stderr
    no_token = subprocess.run(
        [*base, "--http", "0.0.0.0:0", "--allow-remote"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert no_token.returncode == 2
    assert "--allow-remote needs a bearer token" in no_token.stderr
    empty = subprocess.run(
        [*base, "--http", "127.0.0.1:0"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "TOOLBELT_MCP_TOKEN": " "},
    )
    assert empty.returncode == 2
    assert "$TOOLBELT_MCP_TOKEN is empty" in empty.stderr


@pytest.mark.parametrize(
    "sandbox",
    [
        "off",
        pytest.param(
            "landlock",
            marks=pytest.mark.skipif(abi_version() < 1, reason="needs Landlock (Linux 5.13+)"),
        ),
    ],
)
async def test_no_tool_can_read_the_token_from_the_server_process(
    tmp_path: Path, sandbox: str
) -> None:
    running = start(tmp_path, "--mode", "bypass", "--sandbox", sandbox)
    try:
        pid = running.process.pid
        async with running.client() as client:
            # a script the command analysis cannot see into (`cat /proc/PID/environ` and `ps e`
            # ask in every mode): what matters is what a process the tools start can read
            (tmp_path / "reader.py").write_text(
                "import os, subprocess\n"
                f"for p in ({pid}, os.getppid()):\n"
                "    for part in ('environ', 'cmdline'):\n"
                "        try:\n"
                "            seen = open(f'/proc/{p}/{part}', 'rb').read()\n"
                "        except OSError as exc:\n"
                "            seen = f'{type(exc).__name__}: {exc}'.encode()\n"
                "        print(seen.replace(b'\\0', b'\\n').decode(errors='replace'))\n"
                "print(subprocess.run(['ps', 'axeww'], capture_output=True, text=True).stdout)\n"
            )
            environ = await client.call_tool("bash", {"command": "python3 reader.py"})
        seen = str(environ.content)
        assert running.token is not None and running.token_file is not None
        assert running.token not in seen
        if sandbox == "off":  # the environments were read, scrubbed of the token
            assert "HOME=" in seen and running.token_file in seen  # (its path, in cmdline)
        else:  # the sandbox shows no process directory of /proc, nor `ps` any process
            for part in ("environ", "cmdline"):
                refused = f"PermissionError: [Errno 13] Permission denied: '/proc/{pid}/{part}'"
                assert refused in seen
            assert "HOME=" not in seen and "PID" not in seen
    finally:
        running.stop()


async def test_sigterm_ends_every_process_the_sessions_started(tmp_path: Path) -> None:
    running = start(tmp_path, "--mode", "bypass")
    try:
        async with running.transport(terminate_on_close=False) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                await client.call_tool(
                    "bash", {"command": f"sleep 4646{os.getpid()}", "run_in_background": True}
                )
        assert alive(f"sleep 4646{os.getpid()}")
    finally:
        running.process.send_signal(signal.SIGTERM)
        running.process.wait(20)
        running.stop()  # already stopped: removes the test's token file
    assert running.process.returncode == 0  # a graceful stop, not death by the signal
    await wait_until_async(
        lambda: not alive(f"sleep 4646{os.getpid()}"), "the job to end with the server"
    )


def test_the_listening_socket_says_tcp_so_asyncio_turns_nagle_off() -> None:
    """With proto 0 asyncio leaves Nagle on, and each response waited ~40 ms for an ACK."""
    import socket

    from toolbelt.cli.mcp_command import _listen

    listener = _listen("127.0.0.1", 0)
    try:
        assert listener.proto == socket.IPPROTO_TCP
    finally:
        listener.close()
