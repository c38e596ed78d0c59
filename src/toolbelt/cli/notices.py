"""The notices a command prints on standard error before it runs: one per line, and the
"changed since you trusted" ones once per change.

Each notice is one sentence about one thing (an untrusted workspace's ignored settings, an MCP
file skipped, an unknown settings key), so each gets its own ``toolbelt:`` line. A notice that
a trusted workspace's hooks or MCP servers changed since it was trusted would otherwise repeat
on every command until the user trusts again — ``toolbelt call think`` included — and so be
read as noise: it is shown once for each state of the workspace's configuration, remembered
as a digest (of the notice and of the configuration files it is about) in
``$XDG_STATE_HOME/toolbelt/notices/``. A further change to those files shows it again.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from toolbelt.config.files import MAX_CONFIG_BYTES
from toolbelt.config.state import user_state_dir
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.paths.small_read import read_small
from toolbelt.runtime import Runtime

__all__ = ["print_notices"]

_CONFIG_FILES = (
    ".mcp.json",
    ".toolbelt/mcp.json",
    ".toolbelt/settings.json",
    ".toolbelt/settings.local.json",
)


def print_notices(runtime: Runtime) -> None:
    """Print the runtime's notices on standard error, each on its own line; a change notice
    only if this state of the workspace has not had it shown yet."""
    changes = set(runtime.change_notices)
    for notice in runtime.notices:
        if notice in changes and not _first_showing(runtime.session.root, notice):
            continue
        print(f"toolbelt: {escape_for_terminal(notice)}", file=sys.stderr)


def _first_showing(root: Path, notice: str) -> bool:
    """Whether ``notice`` is new for ``root``'s configuration as it is now; records it as
    shown. When the record cannot be read or written the notice is shown."""
    digest = hashlib.sha256(notice.encode())
    for name in _CONFIG_FILES:
        content = read_small(root / name, MAX_CONFIG_BYTES)  # the workspace wrote it
        digest.update(name.encode() + b"\0" + (b"-" if content is None else content) + b"\0")
    seen = digest.hexdigest()
    record = user_state_dir() / "notices" / hashlib.sha256(str(root).encode()).hexdigest()[:32]
    try:
        if record.read_text(encoding="ascii").strip() == seen:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    try:
        record.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = record.with_name(f".{record.name}.{os.getpid()}")
        temporary.write_text(seen + "\n", encoding="ascii")
        os.replace(temporary, record)
    except OSError:
        pass
    return True
