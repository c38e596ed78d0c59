"""The journal's records on disk: one JSON file per change and per undo or redo.

A change record (``entries/``) is written before the change happens — a file tool's
before-image and the content it is about to write, or a command's before-snapshot marked
``pending`` — and a pending one is completed (replaced whole) when the command ends. An
action record (``actions/``) says that a call was undone or redone, with what its files held
just before (so a redo can put that back). Every record is written to a temp file, fsynced
and renamed: it is whole or absent, whatever kills the writer.

Names start with the time in nanoseconds, so listing a directory sorted gives history in
order, and any process can read what every other one recorded.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolbelt.checkpoints.layout import Layout
from toolbelt.files.atomic import replace_file

__all__ = ["Records", "process_alive", "process_started"]

VERSION = 1


class Records:
    """Reads and writes the change and action records of one store."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    def write_entry(self, data: dict[str, Any], name: str | None = None) -> str:
        """Write (or replace) a change record durably; returns its name."""
        name = name or _new_name()
        _write_durably(self.layout.entries, name, data)
        return name

    def write_action(self, data: dict[str, Any]) -> str:
        name = _new_name()
        _write_durably(self.layout.actions, name, data)
        return name

    def remove_entry(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.layout.entries / name)

    def remove_action(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.layout.actions / name)

    def entries(self, *, since_ns: int = 0) -> list[tuple[str, dict[str, Any]]]:
        """Every change record (from ``since_ns`` on), oldest first."""
        return list(_read_all(self.layout.entries, since_ns))

    def actions(self, *, since_ns: int = 0) -> list[tuple[str, dict[str, Any]]]:
        """Every undo and redo (from ``since_ns`` on), oldest first."""
        return list(_read_all(self.layout.actions, since_ns))


def record(kind: str, **fields: Any) -> dict[str, Any]:
    """A record's common fields: version, kind, time (``fields`` may give another), and the
    writing process."""
    pid = os.getpid()
    return {
        "v": VERSION,
        "kind": kind,
        "time": time.time(),
        "pid": pid,
        "started": process_started(pid),
        **fields,
    }


def _new_name() -> str:
    return f"{time.time_ns():019d}-{os.getpid()}-{secrets.token_hex(3)}.json"


def _write_durably(directory: Path, name: str, data: dict[str, Any]) -> None:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    replace_file(
        directory / name, payload, mode=0o600, temp=directory / f".tmp-{secrets.token_hex(6)}"
    )


def _read_all(directory: Path, since_ns: int) -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except FileNotFoundError:
        return
    floor = f"{since_ns:019d}"
    for name in names:
        if name < floor:
            continue
        try:
            with open(directory / name, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            continue  # pruned meanwhile, or not ours
        if isinstance(data, dict) and data.get("v") == VERSION:
            yield name, data


def name_time_ns(name: str) -> int:
    """The time a record's name starts with."""
    try:
        return int(name.split("-", 1)[0])
    except ValueError:
        return 0


def process_started(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot), None if it is gone; with the pid
    it names one process, as pids are reused."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
        return int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def process_alive(pid: int, started: int | None) -> bool:
    """Whether the process that wrote a record still runs."""
    now = process_started(pid)
    return now is not None and (started is None or now == started)
