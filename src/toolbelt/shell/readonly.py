"""The read-only shell: where commands the analysis let through as read-only really are.

A second persistent bash, started under the sandbox's read-only profile (no writes but
``/dev/null``, no network, reads limited to the roots, the system and the git configuration),
so a command misjudged as read-only — ``env -S'touch x'``, ``sed 'e …'``, ``xargs cat
secret`` — runs and finds nothing it can change, connect to, or read past the wall. Keeping it
alive costs one idle bash; a command in it costs what one in the main shell does (~0.1 ms),
against ~15 ms to start a confined bash per command.

It follows the main shell: the bash tool moves it to the session's directory before each
command, and it sources the main shell's saved exports whenever they changed. What it
changes does not flow back, except its directory (``cd src && ls`` moves the session); its
own variable assignments stay in it.
"""

from __future__ import annotations

import contextlib

from toolbelt.shell.sandbox import Profile
from toolbelt.shell.session import ShellSession, _quote

__all__ = ["GitShell", "ReadOnlyShell"]


class ReadOnlyShell(ShellSession):
    """A ShellSession in the read-only profile that catches up with the main shell's exports."""

    profile: Profile = "readonly"
    _seen: tuple[int, int] | None = None

    def _prelude(self) -> str:
        stamp = None
        with contextlib.suppress(OSError):
            info = self._state.stat()
            stamp = (info.st_mtime_ns, info.st_size)
        if stamp is None or stamp == self._seen:
            return ""
        self._seen = stamp
        # the saved exports include the main shell's PWD: stay where this shell is
        return f"source {_quote(str(self._state))} 2>/dev/null; cd {_quote(str(self.cwd))}\n"


class GitShell(ShellSession):
    """A ShellSession in the git profile: ``.git/`` writable but for its hooks and config,
    for git commands that write the repository (``add``, ``commit``…), which always ask."""

    profile: Profile = "git"
