"""Idempotency keys: a tool call retried after a dropped connection runs once.

A fleet's client cannot tell a call that never arrived from one whose answer was lost with the
connection; retrying an edit or a command blindly may run it twice. A call that carries a key
(``_meta["toolbelt/idempotencyKey"]``, or the ``Idempotency-Key`` HTTP header) runs the first
time only: a retry with the same key, while the first run goes on or after it ended, gets the
first run's answer. Such a call is not cancelled when its connection drops (it finishes, so that
its answer can be given to the retry); an explicit ``notifications/cancelled`` still cancels it,
and a cancelled call leaves no answer behind, so its retry runs afresh.

A key names one call: reusing it with another tool or other arguments is refused. Answers are
kept for ``ttl`` seconds, at most ``keep`` of them (the oldest go first).

What is kept per key is bounded whatever a client sends: the key itself is at most
``MAX_KEY_LENGTH`` characters (a longer one is refused, not kept), and the call is remembered by
a digest of its tool and arguments, never by the arguments themselves — else ``keep`` calls of
16 MiB each would hold 16 GiB for ``ttl`` seconds.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import anyio

__all__ = [
    "MAX_KEY_LENGTH",
    "META_IDEMPOTENCY_KEY",
    "IdempotentCalls",
    "KeyRefused",
    "KeyReused",
    "idempotency_key",
]

META_IDEMPOTENCY_KEY = "toolbelt/idempotencyKey"
MAX_KEY_LENGTH = 255
"""Characters an idempotency key may have (a UUID has 36)."""
SHOWN_NAME = 80
"""Characters of a tool name a refusal quotes."""


class KeyRefused(Exception):
    """The key cannot name this call; the message says why and what to send instead."""


class KeyReused(KeyRefused):
    """The key was given before with another tool or other arguments."""


@dataclass
class Remembered:
    """The first run of a keyed call: its answer once it has one."""

    fingerprint: tuple[str, str]
    """The tool's name (cut to ``SHOWN_NAME``) and the digest of the whole call."""
    expires: float
    done: anyio.Event = field(default_factory=anyio.Event)
    result: dict[str, Any] | None = None
    """The JSON-RPC result the first run was answered with (None while it runs, or when it was
    cancelled: then ``done`` is set and the waiting retry runs the call itself)."""


def idempotency_key(params: dict[str, Any]) -> str | None:
    """The key a ``tools/call``'s parameters carry, if any (a non-empty string)."""
    meta = params.get("_meta")
    key = meta.get(META_IDEMPOTENCY_KEY) if isinstance(meta, dict) else None
    return key if isinstance(key, str) and key else None


class IdempotentCalls:
    """The keyed calls of one server, across its sessions."""

    def __init__(self, keep: int = 1024, ttl: float = 600.0) -> None:
        self._keep = keep
        self._ttl = ttl
        self._calls: OrderedDict[str, Remembered] = OrderedDict()

    def claim(self, key: str, fingerprint: tuple[str, str]) -> Remembered | None:
        """None: no call has this key, the caller runs it (and ends with ``finish`` or
        ``abandon``); else the first run, to wait for. ``KeyReused`` when the key named
        another call, ``KeyRefused`` when it is too long to keep."""
        if len(key) > MAX_KEY_LENGTH:
            raise KeyRefused(
                f"The idempotency key is {len(key)} characters long; send one of at most "
                f"{MAX_KEY_LENGTH} (a UUID, for instance)."
            )
        fingerprint = _digest(fingerprint)
        now = time.monotonic()
        while self._calls:  # drop the expired, oldest first
            oldest = next(iter(self._calls.values()))
            if oldest.expires > now or not oldest.done.is_set():
                break
            self._calls.popitem(last=False)
        known = self._calls.get(key)
        if known is not None:
            if known.fingerprint != fingerprint:
                raise KeyReused(
                    f"The idempotency key {key!r} was already used for another call "
                    f"({known.fingerprint[0]} with other arguments); use a new key for a new call."
                )
            return known
        self._calls[key] = Remembered(fingerprint, now + self._ttl)
        while len(self._calls) > self._keep:
            self._calls.popitem(last=False)
        return None

    def finish(self, key: str, result: dict[str, Any]) -> None:
        """The first run was answered with ``result``: retries get it."""
        remembered = self._calls.get(key)
        if remembered is not None and not remembered.done.is_set():
            remembered.result = result
            remembered.done.set()

    def abandon(self, key: str) -> None:
        """The first run ended without an answer (cancelled): the next try runs anew. A no-op
        once it was answered (``finish``)."""
        remembered = self._calls.get(key)
        if remembered is not None and not remembered.done.is_set():
            del self._calls[key]
            remembered.done.set()


def _digest(fingerprint: tuple[str, str]) -> tuple[str, str]:
    """What is kept of a call's fingerprint: its tool's name, cut, and a digest of the whole."""
    name, arguments = fingerprint
    whole = hashlib.sha256(f"{len(name)}:{name}".encode(errors="surrogatepass"))
    whole.update(arguments.encode(errors="surrogatepass"))
    return name[:SHOWN_NAME], whole.hexdigest()
