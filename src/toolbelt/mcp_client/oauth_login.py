"""The person's part of an OAuth login: the browser, the loopback callback, the pasted redirect.

Only ``toolbelt mcp-servers login`` runs this; nothing else opens a browser. The SDK calls the
redirect handler with the authorization URL and then awaits the callback handler for the code:

- the URL is always printed (a browser that does not open, or opens on another screen, is
  common) and, unless ``--no-browser``, opened with Python's ``webbrowser``, which honours
  ``BROWSER``;
- a listener on ``127.0.0.1`` (an ephemeral port, or ``callbackPort``/``--callback-port``
  for a client registered with a fixed redirect) takes ``/callback?code=…&state=…&iss=…``
  and answers the browser with a page saying it may be closed;
- over SSH there is no browser on the machine the listener runs on, so the redirect can also
  be pasted: the whole URL the browser was sent to (its page fails to load, which is fine),
  or just the code. A bare code gets the ``state`` of the URL this login printed, so the
  SDK's ``state`` check still binds the answer to this login;
- whichever comes first wins; after ``LOGIN_TIMEOUT`` seconds the login gives up.
"""

from __future__ import annotations

import sys
import webbrowser
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from urllib.parse import parse_qs, urlsplit

import anyio
from anyio.abc import SocketStream, TaskGroup
from mcp.shared.auth import AuthorizationCodeResult

from toolbelt.mcp_client.oauth_provider import LoginHandlers, redirect_uri

__all__ = ["LOGIN_TIMEOUT", "LoginFailed", "login_handlers", "parse_redirect"]

LOGIN_TIMEOUT = 300.0
_CLOSE_PAGE = (
    b"<!doctype html><title>toolbelt</title><p>toolbelt is logged in. You can close this tab.</p>"
)
_FAIL_PAGE = b"<!doctype html><title>toolbelt</title><p>The login failed: %s</p>"


class LoginFailed(Exception):
    """The login could not complete (timed out, refused, or answered nonsense)."""


def parse_redirect(text: str, expected_state: str | None) -> AuthorizationCodeResult:
    """The authorization response in ``text``: a redirect URL (or its query), or a bare code
    (which gets ``expected_state``); ``LoginFailed`` for an error answer or no code."""
    text = text.strip()
    if not text:
        raise LoginFailed("nothing was pasted")
    if "=" not in text and "/" not in text:  # just the code
        return AuthorizationCodeResult(code=text, state=expected_state)
    query = urlsplit(text).query if "?" in text or "://" in text else text
    values = {key: items[0] for key, items in parse_qs(query).items() if items}
    if "error" in values:
        why = values.get("error_description") or values["error"]
        raise LoginFailed(f"the authorization server refused: {why}")
    if not values.get("code"):
        raise LoginFailed("the pasted text holds no `code`; paste the whole address")
    return AuthorizationCodeResult(
        code=values["code"], state=values.get("state"), iss=values.get("iss")
    )


class _Login:
    """One login's state: the URL printed, and the answer from the browser or the paste."""

    def __init__(self, say: Callable[[str], None], *, browser: bool, paste: bool) -> None:
        self.say = say
        self.browser = browser
        self.paste = paste
        self.state: str | None = None
        self.answer: AuthorizationCodeResult | None = None
        self.problem: str | None = None
        self.done = anyio.Event()

    async def redirect(self, url: str) -> None:
        self.state = parse_qs(urlsplit(url).query).get("state", [None])[0]
        self.say(f"Open this address to log in:\n\n  {url}\n")
        if self.browser:
            opened = await anyio.to_thread.run_sync(webbrowser.open, url)
            if not opened:
                self.say("(No browser could be opened; open the address yourself.)")
        if self.paste:
            self.say(
                "Then, if the browser cannot reach this machine, paste the address it was sent "
                "to (or the code) here and press Enter:"
            )

    async def callback(self) -> AuthorizationCodeResult:
        with anyio.move_on_after(LOGIN_TIMEOUT):
            await self.done.wait()
        if self.answer is not None:
            return self.answer
        raise LoginFailed(self.problem or f"no answer came within {LOGIN_TIMEOUT:g} s")

    def finish(self, answer: AuthorizationCodeResult | None, problem: str | None = None) -> None:
        if self.done.is_set():
            return
        self.answer, self.problem = answer, problem
        self.done.set()

    async def serve(self, stream: SocketStream) -> None:
        """One connection to the loopback listener."""
        async with stream:
            head = b""
            with anyio.move_on_after(10):
                while b"\r\n\r\n" not in head and len(head) < 16384:
                    try:
                        head += await stream.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        return
            line = head.split(b"\r\n", 1)[0].decode("latin-1")
            parts = line.split(" ")
            target = parts[1] if len(parts) >= 2 else ""
            if urlsplit(target).path != "/callback":
                await _respond(stream, b"404 Not Found", b"Not found.")
                return
            try:
                answer = parse_redirect(target, None)
            except LoginFailed as exc:
                await _respond(stream, b"400 Bad Request", _FAIL_PAGE % str(exc).encode())
                self.finish(None, str(exc))
                return
            await _respond(stream, b"200 OK", _CLOSE_PAGE)
            self.finish(answer)

    async def read_paste(self) -> None:
        """Lines pasted on standard input, until one is an answer."""
        while not self.done.is_set():
            line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
            if not line:
                return  # end of input: the browser may still answer
            try:
                self.finish(parse_redirect(line, self.state))
            except LoginFailed as exc:
                self.say(f"{exc}; paste again.")


async def _respond(stream: SocketStream, status: bytes, body: bytes) -> None:
    head = (
        b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
    )
    with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        await stream.send(head + body)


@asynccontextmanager
async def login_handlers(
    say: Callable[[str], None],
    *,
    port: int = 0,
    browser: bool = True,
    paste: bool = True,
) -> AsyncIterator[LoginHandlers]:
    """The handlers of one login, its loopback listener on ``port`` (0: any free one) open
    while the block runs; ``paste``: read a pasted redirect from standard input too.
    ``OSError`` when the port cannot be had."""
    login = _Login(say, browser=browser, paste=paste)
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
    bound = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, login.serve)
        if paste:
            _start_paste(group, login)
        try:
            yield LoginHandlers(redirect_uri(bound), login.redirect, login.callback)
        finally:
            group.cancel_scope.cancel()


def _start_paste(group: TaskGroup, login: _Login) -> None:
    group.start_soon(login.read_paste)
