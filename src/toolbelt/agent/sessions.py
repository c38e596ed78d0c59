"""Conversations saved as they happen, so they can be listed, resumed and continued.

Each conversation is one JSONL file under the user's state directory, keyed by workspace —
``$XDG_STATE_HOME/toolbelt/sessions/<workspace>/<id>.jsonl`` (``~/.local/state`` when unset) —
private to the user (the directory 0700, the file 0600: it holds what the model read). A line
is written for every change of the transcript as it happens (``Transcript.observers``), so a
crash loses at most the turn in progress; a last line cut off by the crash is ignored on load.

Lines: ``{"type": "session", ...}`` first (id, workspace, model, mode, start time); then
``message`` (a message appended), ``replace_last`` (an unanswered prompt merged with the next),
``reset`` (the whole transcript replaced: a compaction's summary and the turns it kept, or
``/clear``), ``turn`` (one model turn's usage and cost), ``mode`` and ``model`` when they
change, and ``loaded`` (deferred MCP tools a search loaded, restored on resume).

Old files are pruned when a new conversation starts: older than ``sessions.maxAgeDays`` (30),
then the oldest until the workspace's and everyone's files fit in ``sessions.maxTotalMB`` (200)
— keys of the user's own settings only, since a repository must not be able to delete them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolbelt.agent.message_codec import (
    message_from_json,
    message_to_json,
    usage_from_json,
    usage_to_json,
)
from toolbelt.agent.transcript import Change
from toolbelt.core.content import TextBlock
from toolbelt.core.errors import UsageError
from toolbelt.providers.model import Message, Usage, UserMessage

__all__ = [
    "SavedSession",
    "SessionLog",
    "SessionSummary",
    "find_session",
    "list_sessions",
    "load_session",
    "new_session_id",
    "prune_sessions",
    "sessions_dir",
    "workspace_dir",
]

_ID = re.compile(r"[0-9a-f]{8,32}")
_TITLE = 80


def new_session_id() -> str:
    """A fresh conversation id: 16 hex digits."""
    return uuid.uuid4().hex[:16]


def sessions_dir(home: Path | None = None) -> Path:
    """Where every workspace's conversations are kept."""
    if home is None and os.environ.get("XDG_STATE_HOME"):
        return Path(os.environ["XDG_STATE_HOME"]) / "toolbelt" / "sessions"
    return (home or Path.home()) / ".local" / "state" / "toolbelt" / "sessions"


def workspace_dir(root: Path, home: Path | None = None) -> Path:
    """The directory of ``root``'s conversations: its path made a file name, and a hash of it
    (two paths that read alike never share one)."""
    text = str(root)
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[-60:] or "root"
    return sessions_dir(home) / f"{slug}-{digest}"


@dataclass
class SavedSession:
    """A conversation read back from its file."""

    id: str
    path: Path
    root: str = ""
    model: str = ""
    mode: str = ""
    started: float = 0.0
    messages: list[Message] = field(default_factory=list)
    turns: list[tuple[Usage, float | None]] = field(default_factory=list)
    """Every model turn's usage and cost (None: price unknown), compacted ones too."""
    loaded_tools: list[str] = field(default_factory=list)

    @property
    def usage(self) -> Usage:
        """Tokens of every turn, summed."""
        return Usage.summed(usage for usage, _ in self.turns)


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One line of ``toolbelt sessions``."""

    id: str
    path: Path
    updated: float
    title: str
    """The first prompt, cut to one line."""
    size: int


class SessionLog:
    """Appends one conversation's changes to its file, one JSON line each."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(OSError):
            os.chmod(path.parent, 0o700)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        self._fd: int | None = os.open(path, flags, 0o600)
        os.fchmod(self._fd, 0o600)

    @classmethod
    def start(
        cls, root: Path, session_id: str, *, model: str, mode: str, home: Path | None = None
    ) -> SessionLog:
        """A new conversation's file, with its first line."""
        log = cls(workspace_dir(root, home) / f"{session_id}.jsonl")
        log.write(
            {
                "type": "session",
                "id": session_id,
                "root": str(root),
                "model": model,
                "mode": mode,
                "started": time.time(),
                "version": 1,
            }
        )
        return log

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line (a single ``write``: a crash cuts at most this line)."""
        if self._fd is None:
            return
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
        os.write(self._fd, (line + "\n").encode("utf-8", "surrogatepass"))

    def transcript_changed(self, change: Change, messages: Sequence[Message]) -> None:
        """A ``Transcript`` observer: the change, as it happened."""
        if change == "append":
            self.write({"type": "message", "message": message_to_json(messages[0])})
        elif change == "replace_last":
            self.write({"type": "replace_last", "message": message_to_json(messages[0])})
        else:
            self.write({"type": "reset", "messages": [message_to_json(m) for m in messages]})

    def turn(self, usage: Usage, cost: float | None) -> None:
        """One model turn's tokens and cost."""
        self.write({"type": "turn", "usage": usage_to_json(usage), "cost": cost})

    def setting(self, key: str, value: str) -> None:
        """The permission ``mode`` or the ``model`` changed."""
        self.write({"type": key, key: value})

    def loaded(self, names: Sequence[str]) -> None:
        """Deferred tools a search loaded."""
        self.write({"type": "loaded", "names": list(names)})

    def close(self) -> None:
        """Close the file; safe to call twice."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def load_session(path: Path) -> SavedSession:
    """Read a conversation back; a last line cut short by a crash is left out."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"Cannot read the saved session {path}: {exc.strerror}.") from exc
    saved = SavedSession(path.stem, path)
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            if number >= len(lines) - 1:
                break  # the line a crash cut off
            raise UsageError(
                f"The saved session {path} is damaged at line {number}; start a new one."
            ) from exc
        _apply(saved, record)
    return saved


def _apply(saved: SavedSession, record: dict[str, Any]) -> None:
    kind = record.get("type")
    if kind == "message":
        saved.messages.append(message_from_json(record["message"]))
    elif kind == "turn":
        saved.turns.append((usage_from_json(record["usage"]), record.get("cost")))
    elif kind == "replace_last":
        if saved.messages:
            saved.messages.pop()
        saved.messages.append(message_from_json(record["message"]))
    elif kind == "reset":
        saved.messages = [message_from_json(m) for m in record["messages"]]
    elif kind == "session":
        saved.id = str(record.get("id", saved.id))
        saved.root = str(record.get("root", ""))
        saved.model = str(record.get("model", ""))
        saved.mode = str(record.get("mode", ""))
        saved.started = float(record.get("started", 0.0))
    elif kind in ("mode", "model"):
        setattr(saved, kind, str(record[kind]))
    elif kind == "loaded":
        saved.loaded_tools.extend(n for n in record["names"] if n not in saved.loaded_tools)


def list_sessions(root: Path, home: Path | None = None) -> list[SessionSummary]:
    """``root``'s conversations, the most recent first."""
    directory = workspace_dir(root, home)
    found = []
    for path in directory.glob("*.jsonl"):
        if not _ID.fullmatch(path.stem):
            continue
        try:
            stat = path.stat()
        except OSError:
            continue
        found.append(SessionSummary(path.stem, path, stat.st_mtime, _title(path), stat.st_size))
    return sorted(found, key=lambda s: s.updated, reverse=True)


def find_session(root: Path, wanted: str | None, home: Path | None = None) -> Path:
    """The file of conversation ``wanted`` (an id or its unique start) of ``root``, or its
    latest when None; ``UsageError`` saying what exists when there is no such one."""
    sessions = list_sessions(root, home)
    if not sessions:
        raise UsageError(f"No saved conversation for {root}; start one with `toolbelt chat`.")
    if wanted is None:
        return sessions[0].path
    matches = [s for s in sessions if s.id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0].path
    ids = ", ".join(s.id for s in sessions[:5])
    what = "matches several" if matches else "matches none"
    raise UsageError(
        f"The session id {wanted!r} {what} of this workspace's conversations; "
        f"`toolbelt sessions` lists them (latest: {ids})."
    )


def prune_sessions(
    *, max_age_days: float, max_total_mb: float, home: Path | None = None, now: float | None = None
) -> list[Path]:
    """Delete conversations older than ``max_age_days``, then the oldest until all of them
    together fit in ``max_total_mb``; the paths deleted."""
    base = sessions_dir(home)
    files = []
    for path in base.glob("*/*.jsonl"):
        with contextlib.suppress(OSError):
            stat = path.stat()
            files.append((stat.st_mtime, stat.st_size, path))
    files.sort()
    limit = (now if now is not None else time.time()) - max_age_days * 86_400
    budget = int(max_total_mb * 1024 * 1024)
    total = sum(size for _, size, _ in files)
    deleted = []
    for mtime, size, path in files:
        if mtime >= limit and total <= budget:
            break
        with contextlib.suppress(OSError):
            path.unlink()
            deleted.append(path)
            total -= size
    return deleted


def _title(path: Path) -> str:
    """The first prompt of a conversation, on one line (read from the start of the file)."""
    try:
        with path.open("rb") as file:
            for line in file:
                record = json.loads(line)
                if record.get("type") == "message":
                    message = message_from_json(record["message"])
                    if isinstance(message, UserMessage):
                        text = " ".join(b.text for b in message.content if isinstance(b, TextBlock))
                        flat = " ".join(text.split())
                        return flat if len(flat) <= _TITLE else flat[: _TITLE - 1] + "…"
    except (OSError, ValueError, KeyError):
        return ""
    return ""
