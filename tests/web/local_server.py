"""A small HTTP server on 127.0.0.1 for the web_fetch tests, and a hook that records connects.

Routes: ``/page`` (HTML), ``/identifiers`` (HTML whose prose, table and links hold
identifiers with underscores and stars), ``/json``, ``/paper.pdf``, ``/binary``, ``/missing`` (404),
``/to-page`` (same-site redirect), ``/go?URL`` (redirect to the percent-encoded URL), ``/loop``,
``/huge`` (a 1 GiB streamed body), ``/bomb`` (1 GiB of text gzip-compressed to about 1 MB),
``/slow`` (headers, then nothing until the test ends), ``/drip`` (headers, then one byte every
20 ms until the test ends). Every request is recorded with its path and Host header.
"""

from __future__ import annotations

import socket
import ssl
import struct
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

GIB = 1 << 30
MIB = 1 << 20

PAGE = b"""<!doctype html><html><head><title>Timeouts</title><script>var t = 1;</script></head>
<body><nav><a href="/">Home</a> <a href="/api">API</a></nav>
<main><h1>Timeouts</h1><p>HTTPX enforces <strong>timeouts</strong> by default.</p>
<pre><code>client = httpx.Client(timeout=10.0)
client.get("/")</code></pre>
<table><tr><th>Timeout</th><th>Default</th></tr><tr><td>connect</td><td>5 s</td></tr></table>
<ul><li><a href="/advanced">Advanced</a></li></ul></main><footer>(c) 2025</footer></body></html>
"""

IDENTIFIERS = b"""<!doctype html><html><head><title>Tokens</title></head><body><main>
<h1>Page tokens</h1>
<p>Send PAGE_TOKEN_93 with every request; retries stop at MAX_RETRIES (see __init__ and
*args). Wildcards like src/*.py match; 2*3*4 is 24.</p>
<pre><code>MAX_RETRIES = 5
token = os.environ["PAGE_TOKEN_93"]</code></pre>
<table><tr><th>Setting</th><th>Default</th></tr><tr><td>MAX_RETRIES</td><td>5</td></tr>
<tr><td>retry_backoff_ms</td><td>250</td></tr></table>
<p>Read <a href="/docs/page_tokens#max_retries">the page_tokens guide</a> and
<em>emphasis</em> stays <strong>marked</strong>.</p>
</main></body></html>
"""


def tiny_pdf(text: str) -> bytes:
    """A one-page PDF showing ``text`` in Helvetica, with a correct cross-reference table."""
    stream = f"BT /F1 24 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _gzip_bomb() -> tuple[bytes, bytes, bytes]:
    """Header+first block, a repeatable 1 MiB block, trailer: 1 GiB of text as valid gzip."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = b"a" * MIB  # text, so only the cap can stop it
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(GIB // MIB):
        crc = zlib.crc32(zeros, crc)
    tail = compressor.flush()[:-8] + struct.pack("<II", crc, GIB & 0xFFFFFFFF)
    return first, block, tail


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # clients hanging up at their cap is fine
            super().handle_error(request, client_address)


class Server:
    """A threaded server; ``requests`` lists (path, Host header) as they arrive."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[tuple[str, str]] = []
        self.server_names: list[str | None] = []
        self.release = threading.Event()
        self.bytes_sent = 0
        self.bomb: tuple[bytes, bytes, bytes] | None = None
        handler = type("Handler", (_Handler,), {"server_state": self})
        self.httpd = _QuietServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        if tls is not None:
            tls.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name)
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
            self.origin = f"https://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


class _Handler(BaseHTTPRequestHandler):
    server_state: Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        state = self.server_state
        state.requests.append((self.path, self.headers.get("Host", "")))
        path = self.path
        if path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif path == "/identifiers":
            self._send(200, IDENTIFIERS, "text/html; charset=utf-8")
        elif path == "/json":
            self._send(200, b'{"name": "toolbelt", "tools": 3}', "application/json")
        elif path == "/paper.pdf":
            self._send(200, tiny_pdf("Hello from a PDF"), "application/pdf")
        elif path == "/binary":
            self._send(200, bytes(range(256)), "application/octet-stream")
        elif path == "/missing":
            self._send(404, b"<html><body><p>No such page.</p></body></html>", "text/html")
        elif path == "/to-page":
            self._redirect("/page")
        elif path.startswith("/go?"):
            self._redirect(unquote(path[4:]))
        elif path == "/loop":
            self._redirect("/loop")
        elif path == "/huge":
            self._stream_huge()
        elif path == "/bomb":
            self._stream_bomb()
        elif path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"first bytes")
            self.wfile.flush()
            state.release.wait(30)
        elif path == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(10 * MIB))
            self.end_headers()
            try:
                while not state.release.wait(0.02):
                    self.wfile.write(b"d")
                    self.wfile.flush()
            except OSError:
                return  # the client hung up
        else:
            self._send(404, b"not found", "text/plain")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _stream_huge(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(GIB))
        self.end_headers()
        line = b"x" * 1023 + b"\n"
        block = line * 64
        try:
            for _ in range(GIB // len(block)):
                self.wfile.write(block)
                self.server_state.bytes_sent += len(block)
        except OSError:
            return  # the client hung up at its cap

    def _stream_bomb(self) -> None:
        state = self.server_state
        first, block, tail = state.bomb or _gzip_bomb()
        state.bomb = first, block, tail
        size = len(first) + len(block) * (GIB // MIB - 1) + len(tail)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        try:
            self.wfile.write(first)
            for _ in range(GIB // MIB - 1):
                self.wfile.write(block)
                state.bytes_sent += len(block)
            self.wfile.write(tail)
        except OSError:
            return


def make_certificates(directory: Path, name: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A throwaway CA and a certificate for ``name`` signed by it (openssl CLI): the server's
    TLS context, and a client context that trusts only that CA."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)

    curve = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl(
        "req",
        "-x509",
        *curve,
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=toolbelt test CA",
    )
    openssl("req", *curve, "-keyout", "site.key", "-out", "site.csr", "-subj", f"/CN={name}")
    (directory / "san.ext").write_text(f"subjectAltName=DNS:{name}\n")
    openssl(
        "x509",
        "-req",
        "-in",
        "site.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "site.pem",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(directory / "site.pem", directory / "site.key")
    client = ssl.create_default_context(cafile=str(directory / "ca.pem"))
    return server, client


class ConnectLog:
    """Records every ``socket.connect`` (audit hook) while active; refuses any connect to an
    address other than 127.0.0.1, so no test can ever reach another host."""

    def __init__(self) -> None:
        self.active = False
        self.connects: list[tuple[str, int]] = []

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event != "socket.connect" or not self.active:
            return
        sock, address = args
        if not isinstance(sock, socket.socket) or sock.family not in (
            socket.AF_INET,
            socket.AF_INET6,
        ):
            return
        host, port = str(address[0]), int(address[1])
        self.connects.append((host, port))
        if host != "127.0.0.1":
            raise PermissionError(f"test connect hook: refusing to connect to {host}")


CONNECT_LOG = ConnectLog()
sys.addaudithook(CONNECT_LOG.hook)


@contextmanager
def recording_connects() -> Iterator[ConnectLog]:
    """Record (and fence to 127.0.0.1) every TCP connect made inside the block."""
    CONNECT_LOG.connects.clear()
    CONNECT_LOG.active = True
    try:
        yield CONNECT_LOG
    finally:
        CONNECT_LOG.active = False
