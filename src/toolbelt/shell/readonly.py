"""The read-only shell: where commands the analysis let through as read-only really are.

A second persistent bash, started under the sandbox's read-only profile (no writes but
``/dev/null``, no network, reads limited to the roots, the system and the git configuration),
so a command misjudged as read-only — ``env -S'touch x'``, ``sed 'e …'``, ``xargs cat
secret`` — runs and finds nothing it can change, connect to, or read past the wall. Keeping it
alive costs one idle bash; a command in it costs what one in the main shell does (~0.1 ms),
against ~15 ms to start a confined bash per command.

It follows the main shell: the bash tool moves it to the session's directory before each
command, and it sources the main shell's saved exports whenever they changed. What it
changes does not flow back, except its directory (``cd src && ls`` moves the session), so a
read-only command that changes the shell itself (``unset X``, ``set -e``, ``alias``) is not
sent here (``changes_shell_state``): it runs in the main shell and counts as not read-only.
"""

from __future__ import annotations

import contextlib
import re

from toolbelt.shell.sandbox import Profile
from toolbelt.shell.session import ShellSession, _quote

__all__ = ["GitShell", "ReadOnlyShell", "changes_shell_state"]

# builtins whose effect is the shell's own state, which must not stay in the read-only shell
_STATE_BUILTINS = frozenset(
    {"unset", "set", "shopt", "alias", "unalias", "trap", "umask", "ulimit", "hash", "enable",
     "source", ".", "eval", "export", "declare", "typeset", "readonly", "local", "read",
     "mapfile", "readarray", "getopts", "let", "function"}
)  # fmt: skip
_FIRST_WORDS = re.compile(r"(?:^|[;&|(){}\n])\s*(?:!\s*)?(?:\w+=\S*\s+)*([\w.][\w.-]*)")


def changes_shell_state(command: str) -> bool:
    """Whether ``command`` runs a builtin that changes the shell itself (``unset``, ``set``,
    ``alias``…) or defines a function: such a command belongs in the main shell, where the
    change lasts. Looks at the first word after every separator; a separator inside quotes
    can only make this say yes, which runs the command in the main shell, confined still."""
    if "()" in command:
        return True
    return any(word in _STATE_BUILTINS for word in _FIRST_WORDS.findall(command))


class ReadOnlyShell(ShellSession):
    """A ShellSession in the read-only profile that catches up with the main shell's exports."""

    profile: Profile = "readonly"
    _seen: tuple[int, int] | None = None

    def _prelude(self) -> str:
        stamp = None
        with contextlib.suppress(OSError):
            info = self._state.stat()
            stamp = (info.st_mtime_ns, info.st_size)
        if stamp is None or stamp[1] == 0 or stamp == self._seen:
            return ""
        self._seen = stamp
        # the main shell's exports replace this shell's (an `unset X` there unsets it here);
        # they include the main shell's PWD: stay where this shell is
        state, here = _quote(str(self._state)), _quote(str(self.cwd))
        return f"unset $(compgen -e) 2>/dev/null; source {state} 2>/dev/null; cd {here}\n"


class GitShell(ShellSession):
    """A ShellSession in the git profile: ``.git/`` writable but for its hooks and config,
    for git commands that write the repository (``add``, ``commit``…), which always ask."""

    profile: Profile = "git"
