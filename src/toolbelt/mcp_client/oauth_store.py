"""Where toolbelt keeps what an OAuth login to a remote MCP server gave it.

One private file per server, ``$XDG_CONFIG_HOME/toolbelt/mcp-credentials/<name>-<hash>.json``
(``~/.config/toolbelt`` by default): the directory 0700, each file 0600, created with
``O_EXCL`` and replaced atomically (a temporary file, fsync, ``os.replace``), so a reader
never sees half a file and no other user ever sees any. The directory lies in the user's
toolbelt configuration, which is a secret as a whole to the tools: the sandbox hides it from
commands and reading it with a file tool asks (``paths.user_config``).

**Keyed by name and URL, bound to the issuer.** The hash is of the server's URL, and the URL
is kept inside and compared on every read: a workspace that names another URL under a known
server's name, or the same server renamed, finds no token and asks for a login, never
receiving another server's. The client registration records the authorization server that
issued it (``issuer``); the SDK drops it and the tokens when the server leads elsewhere, and
so does ``set_client_info`` here.

**Absolute expiry.** A token's ``expires_in`` is relative to when it was issued, so the file
holds ``expires_at`` (seconds since the epoch); ``get_tokens`` gives back what remains, and
``expires_at`` itself is what the provider (``oauth_provider``) restores after a restart —
the SDK loads stored tokens without their expiry, which sent a person through a whole browser
login where one refresh would do.

**Between processes.** A refresh rotates the refresh token: two toolbelt processes refreshing
at once would each spend it, and the loser's next refresh fails. ``locked()`` takes an
``flock`` on a lock file beside the record (polled, so a cancelled wait stops waiting);
whoever holds it re-reads the record first and uses a token another process has just stored.

The authorization server's metadata and the protected resource's are kept too: a refresh after
a restart must go to the token endpoint discovery found, not to a guess.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import stat
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from toolbelt.config.trust import user_config_dir
from toolbelt.files.atomic import replace_file

__all__ = ["CREDENTIALS_DIR", "CredentialStore", "credentials_dir", "record_path"]

CREDENTIALS_DIR = "mcp-credentials"
LOCK_WAIT = 30.0
"""Seconds to wait for another process's refresh before giving up."""
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _lacks(granted: str | None, wanted: Any) -> bool:
    """Whether ``granted`` lacks a scope of ``wanted``."""
    if not isinstance(wanted, str):
        return False
    return not set(wanted.split()) <= set((granted or "").split())


def credentials_dir(home: Path | None = None) -> Path:
    """The directory of the kept logins (``$XDG_CONFIG_HOME/toolbelt/mcp-credentials``)."""
    return user_config_dir(home) / CREDENTIALS_DIR


def record_path(name: str, url: str, home: Path | None = None) -> Path:
    """The file of the login to the server ``name`` at ``url``."""
    digest = hashlib.sha256(url.encode()).hexdigest()[:16]
    safe = _SAFE.sub("_", name)[:40] or "server"
    return credentials_dir(home) / f"{safe}-{digest}.json"


class CredentialStore:
    """The SDK's ``TokenStorage`` for one server, on its private file.

    ``preregistered`` is the client configured for the server (``oauth.clientId``): it is what
    ``get_client_info`` answers, so the SDK never registers one of its own."""

    def __init__(
        self,
        name: str,
        url: str,
        *,
        preregistered: OAuthClientInformationFull | None = None,
        home: Path | None = None,
    ) -> None:
        self.name = name
        self.url = url
        self.path = record_path(name, url, home)
        self._preregistered = preregistered
        self._held = 0
        self._lock_fd: int | None = None
        self.extra: Callable[[], dict[str, Any]] = dict
        """What the provider keeps with the tokens (the metadata it discovered), asked for
        each time tokens are stored."""

    # -- the SDK's TokenStorage --------------------------------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens, ``expires_in`` being what remains of their life (0 if none)."""
        record = self.read()
        tokens = record.get("tokens")
        if not isinstance(tokens, dict):
            return None
        try:
            token = OAuthToken.model_validate(tokens)
        except ValueError:
            return None
        expires_at = record.get("expires_at")
        if isinstance(expires_at, int | float):
            token.expires_in = max(0, int(expires_at - time.time()))
        return token

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + int(tokens.expires_in) if tokens.expires_in else None
        async with self.locked():

            def change(record: dict[str, Any]) -> None:
                record["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
                record["expires_at"] = expires_at
                record.update(self.extra())
                if not _lacks(tokens.scope, record.get("wanted_scope")):
                    record.pop("wanted_scope", None)  # granted now

            self._update(change)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self._preregistered is not None:
            return self._preregistered
        client = self.read().get("client")
        if not isinstance(client, dict):
            return None
        try:
            return OAuthClientInformationFull.model_validate(client)
        except ValueError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        async with self.locked():

            def change(record: dict[str, Any]) -> None:
                if record.get("issuer") != client_info.issuer:
                    # another authorization server: what the old one issued is worth nothing
                    record.pop("tokens", None)
                    record.pop("expires_at", None)
                record["issuer"] = client_info.issuer
                record["client"] = client_info.model_dump(mode="json", exclude_none=True)

            self._update(change)

    # -- reading, writing, locking -----------------------------------------------------

    def read(self) -> dict[str, Any]:
        """The record, or {} when there is none (or it belongs to another URL, or is not a
        private file of this user: then it is not trusted, and a login replaces it)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            return {}
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                return {}
            if info.st_mode & 0o077:
                return {}
            try:
                record = json.loads(handle.read(1 << 20))
            except ValueError:
                return {}
        if not isinstance(record, dict) or record.get("url") != self.url:
            return {}
        return record

    async def want_scope(self, scope: str | None) -> None:
        """Keep the scope a step-up asked for, for the next login to ask for."""
        if not scope:
            return
        async with self.locked():

            def change(record: dict[str, Any]) -> None:
                record["wanted_scope"] = scope

            self._update(change)

    async def drop_tokens(self) -> None:
        """Forget the tokens (a refresh the server refused), keeping the registration."""
        async with self.locked():

            def change(record: dict[str, Any]) -> None:
                record.pop("tokens", None)
                record.pop("expires_at", None)

            self._update(change)

    def forget(self) -> dict[str, Any]:
        """Delete the record; returns what it held (for a revocation)."""
        record = self.read()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        with contextlib.suppress(FileNotFoundError):
            self._lock_path.unlink()
        return record

    @contextlib.asynccontextmanager
    async def locked(self) -> AsyncIterator[None]:
        """Hold the record's lock (re-entrant within this store), polling for it so that a
        cancellation ends the wait; ``TimeoutError`` after ``LOCK_WAIT`` seconds."""
        if self._held:
            self._held += 1
            try:
                yield
            finally:
                self._held -= 1
            return
        self._directory()
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            with anyio.fail_after(LOCK_WAIT):
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        await anyio.sleep(0.02)
            self._held = 1
            try:
                yield
            finally:
                self._held = 0
        finally:
            os.close(fd)  # releases the lock

    @property
    def _lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def _directory(self) -> Path:
        directory = self.path.parent
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if stat.S_IMODE(directory.stat().st_mode) != 0o700:
            directory.chmod(0o700)
        return directory

    def _update(self, change: Any) -> None:
        record = self.read()
        record.update({"server": self.name, "url": self.url})
        change(record)
        record["updated_at"] = time.time()
        self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        self._directory()
        replace_file(self.path, json.dumps(record, indent=2, sort_keys=True).encode(), mode=0o600)
