"""A loopback fake model provider that the official SDKs talk to as if it were the real one.

    with FakeProvider([{"text": "Hi", "calls": [...]}, {"text": "Done."}]) as fake:
        client = open_model("openai:gpt-5", base_url=fake.openai_url)
        ...
        fake.requests[0].body  # exactly what the SDK sent

One HTTP server on 127.0.0.1 (random port) answers Anthropic Messages (``/v1/messages``),
OpenAI Chat Completions (``/v1/chat/completions``), OpenAI Responses (``/v1/responses``) and
Gemini (``/v1[beta]/models/M:generateContent`` and ``:streamGenerateContent``). Each request
takes the next scripted ``Reply`` (see ``fake_script``) whatever the endpoint, rendered in
that endpoint's format — streaming when the request asked for a stream. Every request is
recorded (path, headers, JSON body). ``disconnected`` is set when a client drops a connection
the fake was holding open (a ``hang`` reply). An exhausted script answers 500 naming the
request, so a test that makes one request too many fails with a readable error.

Run ``python -m tests.support.fake_provider SCRIPT.json`` to serve a script from a file; the
first line printed is the base URL.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tests.support import fake_wire, fake_wire_responses_gemini
from tests.support.fake_script import Reply, ScriptedCall

__all__ = ["FakeProvider", "Recorded", "Reply", "ScriptedCall"]

_GEMINI_PATH = re.compile(r"^/v1(?:beta)?/models/(?P<model>[^:/]+):(?P<method>\w+)")


@dataclass(frozen=True)
class Recorded:
    """One request the fake received."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any


class FakeProvider:
    """The server; a context manager that starts it on enter and stops it on exit."""

    def __init__(
        self,
        script: Iterable[Reply | Mapping[str, Any]] = (),
        *,
        get: Mapping[str, Any] | None = None,
    ) -> None:
        """``get``: JSON bodies a ``GET`` of each path answers (a server's ``/props``); any
        other ``GET`` is a 404."""
        self._script = [r if isinstance(r, Reply) else Reply.from_dict(r) for r in script]
        self.get = dict(get or {})
        self.gets: list[str] = []
        self._lock = threading.Lock()
        self.requests: list[Recorded] = []
        self.disconnected = threading.Event()
        self.closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL for Anthropic and Gemini clients (``http://127.0.0.1:PORT``)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        """Base URL for OpenAI clients (with ``/v1``)."""
        return f"{self.url}/v1"

    def add(self, *replies: Reply | Mapping[str, Any]) -> None:
        with self._lock:
            self._script.extend(r if isinstance(r, Reply) else Reply.from_dict(r) for r in replies)

    def next_reply(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            if self._script:
                return self._script.pop(0)
        return Reply(status=500, error=f"fake provider: no scripted reply for {recorded.path}")

    def __enter__(self) -> FakeProvider:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def _handler_for(fake: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            fake.gets.append(self.path)
            if self.path in fake.get:
                self._send_json(200, fake.get[self.path])
            else:
                self._send_json(404, {"error": {"message": f"no such endpoint {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            headers = {key.lower(): value for key, value in self.headers.items()}
            recorded = Recorded("POST", self.path, headers, body)
            reply = fake.next_reply(recorded)
            protocol, model, stream = _route(self.path, body)
            if protocol is None:
                self._send_json(404, {"error": {"message": f"no such endpoint {self.path}"}})
                return
            if reply.status != 200:
                self._send_json(reply.status, fake_wire.error_body(protocol, reply), reply.headers)
                return
            render = {
                "anthropic": fake_wire.anthropic,
                "chat": fake_wire.chat,
                "responses": fake_wire_responses_gemini.responses,
                "gemini": fake_wire_responses_gemini.gemini,
            }[protocol]
            rendered = render(reply, model, stream)
            if stream:
                self._send_stream(rendered)
            else:
                self._send_json(200, rendered)

        def _send_json(
            self, status: int, body: Any, headers: Mapping[str, str] | None = None
        ) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, frames: list[str]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for frame in frames:
                if frame == fake_wire.HANG:
                    self._hold_until_dropped()
                    return
                data = frame.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def _hold_until_dropped(self) -> None:
            self.close_connection = True
            self.connection.settimeout(0.05)
            while not fake.closing.is_set():
                try:
                    if self.connection.recv(1) == b"":
                        break
                except TimeoutError:
                    continue
                except OSError:
                    break
            if not fake.closing.is_set():
                fake.disconnected.set()

    return Handler


def _route(path: str, body: Any) -> tuple[str | None, str, bool]:
    """Which protocol a request speaks, the model it names, and whether it wants a stream."""
    wants_stream = isinstance(body, dict) and body.get("stream") is True
    model = str(body.get("model", "")) if isinstance(body, dict) else ""
    bare = path.split("?", 1)[0]
    if bare == "/v1/messages":
        return "anthropic", model, wants_stream
    if bare == "/v1/chat/completions":
        return "chat", model, wants_stream
    if bare == "/v1/responses":
        return "responses", model, wants_stream
    match = _GEMINI_PATH.match(bare)
    if match:
        return "gemini", match["model"], match["method"] == "streamGenerateContent"
    return None, model, False


def _serve(script_path: str) -> None:
    with open(script_path, encoding="utf-8") as file:
        script = json.load(file)
    with FakeProvider(script) as fake:
        print(fake.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    _serve(sys.argv[1])
