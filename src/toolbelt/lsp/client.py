"""One running language server, spoken to over LSP through pygls's client.

The client library: pygls's ``LanguageClient`` (pygls 2, the Open Law Library's, maintained
with ``lsprotocol``, the LSP types Microsoft generates from the specification): every request
and notification is a typed method, ``lsprotocol`` types in and out, on asyncio, which
toolbelt runs on. The alternatives, compared: *multilspy* (Microsoft; Serena's base) starts
and even downloads its servers itself, with pinned runtime dependencies of its own (jedi, a
requests pin) — toolbelt must start servers its own way (``spawn``); *lsp-client* needs
Python 3.12 (toolbelt supports 3.11); *sansio-lsp-client* has its own pydantic types and
requires black and mypy < 2 at run time, which conflicts with toolbelt's own mypy. pygls only
needs the streams: the process is started by ``spawn`` and handed over (``attach``), not by
pygls's ``start_io``.

What toolbelt needs of a server is small: ``initialize`` (bounded), documents kept in step
(open, then whole-text changes with increasing versions), their diagnostics — pulled
(``textDocument/diagnostic``) where the server offers it, which answers for the exact text
at once, else as pushed (``textDocument/publishDiagnostics``: the latest per document, with
the version they were computed for where the server says) —, and a few read-only requests
for the lsp tool. Server-to-client requests are answered: ``workspace/configuration`` with
the spec's settings, registrations recorded, progress and refreshes with null. Everything
waits with a deadline and gives up when the process ends; nothing here blocks past what the
caller allows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient

from toolbelt.lsp.capabilities import CAPABILITIES, section
from toolbelt.lsp.discovery import FoundServer
from toolbelt.lsp.spawn import ServerProcess, end_process, spawn_process
from toolbelt.sandbox.sandbox import Sandbox

__all__ = ["Published", "ServerConnection", "ServerGone", "path_of", "uri_of"]

T = TypeVar("T")

QUIET = 0.3
"""Seconds without a publish after which a version-less server's list is taken as final."""
SETTLE_LIMIT = 10.0
"""Seconds a question about a just-opened file waits for the server to have loaded it."""

logging.getLogger("pygls").setLevel(logging.CRITICAL)  # its warnings would reach the terminal


class ServerGone(Exception):
    """The server exited, or did not answer in time."""


@dataclass(frozen=True, slots=True)
class Published:
    """The diagnostics a server last published for a document."""

    version: int | None
    diagnostics: tuple[lsp.Diagnostic, ...]


def uri_of(path: Path) -> str:
    return path.as_uri()


def path_of(uri: str) -> Path:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path))


class ServerConnection:
    """A started server: documents in step, diagnostics as published."""

    def __init__(self, found: FoundServer, root: Path, sandbox: Sandbox | None) -> None:
        self.found = found
        self.root = root
        self._sandbox = sandbox
        self._process: ServerProcess | None = None
        self._client = LanguageClient("toolbelt", "1")
        self._register_handlers()
        self.capabilities: lsp.ServerCapabilities | None = None
        self.documents: dict[str, tuple[int, str]] = {}
        """URI → (version, text) as the server has it."""
        self.published: dict[str, Published] = {}
        self._changed: dict[str, asyncio.Event] = {}
        self.gone = asyncio.Event()
        """Set when the process has ended."""
        self._tasks: list[asyncio.Task[Any]] = []
        self.registered: set[str] = set()
        """Methods the server registered dynamically (``textDocument/diagnostic``)."""
        self.checking = asyncio.Lock()
        """Held while one document is changed and its diagnostics awaited: a server checking
        several at once publishes interim lists (pyright: an empty one for a file opened while
        it checks another), so documents are checked one after another."""

    @property
    def name(self) -> str:
        return self.found.spec.name

    def _register_handlers(self) -> None:
        client = self._client
        spec = self.found.spec

        def published(params: lsp.PublishDiagnosticsParams) -> None:
            uri = _same_uri(params.uri)
            self.published[uri] = Published(params.version, tuple(params.diagnostics))
            self._changed.setdefault(uri, asyncio.Event()).set()

        def configuration(params: lsp.ConfigurationParams) -> list[Any]:
            return [section(spec.settings, item.section) for item in params.items]

        client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(published)
        client.feature(lsp.WORKSPACE_CONFIGURATION)(configuration)

        def register(params: lsp.RegistrationParams) -> None:
            self.registered.update(r.method for r in params.registrations)
            for event in self._changed.values():  # a push awaited may now be a pull
                event.set()

        client.feature(lsp.CLIENT_REGISTER_CAPABILITY)(register)
        for method in (lsp.WINDOW_WORK_DONE_PROGRESS_CREATE, lsp.CLIENT_UNREGISTER_CAPABILITY,
                       lsp.WORKSPACE_DIAGNOSTIC_REFRESH, lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
                       lsp.WORKSPACE_INLAY_HINT_REFRESH, lsp.WORKSPACE_CODE_LENS_REFRESH,
                       lsp.WORKSPACE_INLINE_VALUE_REFRESH):  # fmt: skip
            client.feature(method)(_null)  # unanswered, basedpyright exits
        for method in (lsp.WINDOW_LOG_MESSAGE, lsp.WINDOW_SHOW_MESSAGE, lsp.PROGRESS,
                       lsp.TELEMETRY_EVENT):  # fmt: skip
            client.feature(method)(_ignore)

    async def start(self) -> None:
        """Start the process and initialize it (the caller bounds the wait)."""
        self._process = await spawn_process(
            self.found.argv,
            cwd=self.root,
            sandbox=self._sandbox,
            workspace_code=self.found.workspace_code,
        )
        process = self._process.process
        assert process.stdin is not None
        assert process.stdout is not None
        self._client.protocol.set_writer(process.stdin)
        reader = asyncio.create_task(
            run_async(
                stop_event=self._client._stop_event,
                reader=process.stdout,
                protocol=self._client.protocol,
            )
        )
        self._tasks += [reader, asyncio.create_task(self._watch_exit())]
        root_uri = uri_of(self.root)
        result = await self._until_gone(
            self._client.initialize_async(
                lsp.InitializeParams(
                    process_id=None,
                    root_uri=root_uri,
                    root_path=str(self.root),
                    workspace_folders=[lsp.WorkspaceFolder(root_uri, self.root.name)],
                    capabilities=CAPABILITIES,
                    initialization_options=dict(self.found.spec.init_options) or None,
                )
            )
        )
        self.capabilities = result.capabilities
        self._client.initialized(lsp.InitializedParams())
        # no didChangeConfiguration: the servers ask (workspace/configuration), and pyright
        # told its settings changed starts its analysis over

    async def _watch_exit(self) -> None:
        assert self._process is not None
        with contextlib.suppress(ProcessLookupError):
            await self._process.process.wait()
        self.gone.set()
        for event in self._changed.values():
            event.set()

    async def _until_gone(self, work: Awaitable[T]) -> T:
        """``work``'s result, or ``ServerGone`` once the process has ended."""
        task = asyncio.ensure_future(work)
        ended = asyncio.ensure_future(self.gone.wait())
        try:
            await asyncio.wait({task, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
        if not task.done():
            task.cancel()
            raise ServerGone(f"{self.name} exited")
        return task.result()

    def sync(self, path: Path, text: str, language: str) -> int:
        """Bring the server's copy of ``path`` to ``text``; returns the document's version."""
        uri = uri_of(path)
        known = self.documents.get(uri)
        if known is not None and known[1] == text:
            return known[0]
        self._changed.setdefault(uri, asyncio.Event()).clear()
        if known is None:
            self.documents[uri] = (1, text)
            self._client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, language, 1, text))
            )
            return 1
        version = known[0] + 1
        self.documents[uri] = (version, text)
        self._client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version, uri),
                [lsp.TextDocumentContentChangeWholeDocument(text)],
            )
        )
        return version

    def text_of(self, path: Path) -> str | None:
        """The text the server has for ``path``, if it is open."""
        known = self.documents.get(uri_of(path))
        return None if known is None else known[1]

    def current(self, path: Path) -> Published | None:
        """The diagnostics published for ``path``'s current version, if they have arrived."""
        uri = uri_of(path)
        known, published = self.documents.get(uri), self.published.get(uri)
        if known is None or published is None:
            return None
        if published.version is not None and published.version != known[0]:
            return None
        event = self._changed.get(uri)
        if published.version is None and event is not None and not event.is_set():
            return None  # a server without versions: the publish after the last change
        return published

    @property
    def pulls(self) -> bool:
        """Whether the server answers ``textDocument/diagnostic`` (LSP 3.17's pull model)."""
        provided = self.capabilities is not None and self.capabilities.diagnostic_provider
        return bool(provided) or lsp.TEXT_DOCUMENT_DIAGNOSTIC in self.registered

    async def diagnostics(self, path: Path) -> Published:
        """The diagnostics for ``path``'s current text (unbounded: the caller bounds it).

        Pulled where the server can: it checks the document when asked, where a pushing
        server first waits for typing to pause (pyright: 250 ms) and may publish interim
        lists; pushed otherwise."""
        if not self.pulls:
            return await self.wait_diagnostics(path)
        uri = uri_of(path)
        version = self.documents[uri][0]
        known = self.published.get(uri)
        if known is not None and known.version == version:
            return known  # pulled for this very text already (the previous edit's result)
        report = await self.request(
            lambda: self._client.text_document_diagnostic_async(
                lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri))
            )
        )
        items = getattr(report, "items", None)
        if items is None:  # "unchanged" needs a previous result id, which is never sent
            return await self.wait_diagnostics(path)
        published = Published(version, tuple(items))
        self.published[uri] = published
        return published

    async def settle(self, path: Path, *, limit: float = SETTLE_LIMIT) -> None:
        """Wait (at most ``limit`` seconds) until a pushing server has published ``path``'s
        diagnostics: typescript-language-server answers questions about a file it just
        opened before its project has loaded (references in one file only), and publishes
        once it has. A pulling server answers for the loaded state anyway."""
        if self.pulls or self.current(path) is not None:
            return
        with contextlib.suppress(TimeoutError, ServerGone):
            async with asyncio.timeout(limit):
                await self.wait_diagnostics(path)

    async def wait_diagnostics(self, path: Path) -> Published:
        """The diagnostics for ``path``'s current version, once published (unbounded: the
        caller bounds it)."""
        uri = uri_of(path)
        while True:
            found = self.current(path)
            if found is not None and found.version is None:
                return await self._quiet(uri, found)
            if found is not None:
                return found
            if self.gone.is_set():
                raise ServerGone(f"{self.name} exited")
            event = self._changed.setdefault(uri, asyncio.Event())
            await event.wait()
            if self.pulls:  # registered meanwhile: such a server no longer pushes
                return await self.diagnostics(path)
            if self.current(path) is None:
                event.clear()

    async def _quiet(self, uri: str, found: Published) -> Published:
        """The last of a version-less server's publishes, once it has published nothing more
        for ``QUIET`` seconds: such a list cannot be told from one about the text before
        (typescript-language-server publishes a file's list again as its project loads)."""
        event = self._changed.setdefault(uri, asyncio.Event())
        while True:
            event.clear()
            try:
                async with asyncio.timeout(QUIET):
                    await event.wait()
            except TimeoutError:
                event.set()  # the list stands for the current text (``current``)
                return self.published.get(uri, found)

    async def request(self, call: Callable[[], Awaitable[T]]) -> T:
        """A request's answer, or ``ServerGone`` if the process ends first."""
        return await self._until_gone(call())

    @property
    def client(self) -> LanguageClient:
        return self._client

    async def aclose(self) -> None:
        """Ask the server to shut down (briefly), then end its process tree."""
        if self._process is None:
            return
        if not self.gone.is_set():
            with contextlib.suppress(Exception):
                async with asyncio.timeout(0.5):
                    await self._until_gone(self._client.shutdown_async(None))
                    self._client.exit(None)
        self._client._stop_event.set()
        for task in self._tasks:
            if task is not self._tasks[-1]:  # the exit watcher sees the process end
                task.cancel()
        with contextlib.suppress(BaseException):
            await self._tasks[0]  # the reader: stdout is end_process's to drain
        await end_process(self._process, grace=0.5)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._process = None


def _null(params: Any) -> None:
    return None


def _ignore(params: Any) -> None:
    return None


def _same_uri(uri: str) -> str:
    """``uri`` spelled as ``uri_of`` spells it (servers may percent-encode differently)."""
    if uri.startswith("file:"):
        return uri_of(path_of(uri))
    return uri
