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
import fnmatch
import re

from anyio.abc import Process

from toolbelt.commands.analysis import ShellAnalysis
from toolbelt.sandbox.sandbox import Profile
from toolbelt.shell.session import ShellSession, _quote

__all__ = [
    "LOADERS",
    "CreateShell",
    "GitShell",
    "ReadOnlyShell",
    "changes_shell_state",
    "state_builtins_only",
]

LOADERS = (
    "PATH", "BASH_ENV", "ENV", "CDPATH", "GLOBIGNORE", "PS4", "LD_*", "PYTHON*", "GIT_*",
    "PERL5*", "PERLLIB", "RUBY*", "NODE_*", "LESS*", "PAGER", "MANPAGER", "EDITOR", "VISUAL",
    "TAR_OPTIONS", "GREP_*", "RIPGREP_CONFIG_PATH", "GCONV_PATH", "LOCPATH", "NLSPATH",
    "HOSTALIASES", "TZDIR",
)  # fmt: skip
"""Variables that choose which program runs or what it loads (``LD_PRELOAD``, ``PATH``…):
the read-only shell keeps its own, never the main shell's (see ``_own_loaders``)."""

# builtins whose effect is the shell's own state, which must not stay in the read-only shell
_STATE_BUILTINS = frozenset(
    {"unset", "set", "shopt", "alias", "unalias", "trap", "umask", "ulimit", "hash", "enable",
     "source", ".", "eval", "export", "declare", "typeset", "readonly", "local", "read",
     "mapfile", "readarray", "getopts", "let", "function"}
)  # fmt: skip
# builtins that change the shell but touch no file: a command of only these runs in the main
# shell without a prompt when the analysis calls it read-only (`export LANG=C`, `set -e`)
_TOUCH_NOTHING = frozenset(
    {"export", "unset", "set", "declare", "typeset", "local", "readonly", "cd", "pushd",
     "popd", "true", "false", ":", "echo", "printf", "test", "[", "type", "alias"}
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


def state_builtins_only(analysis: ShellAnalysis) -> bool:
    """Whether ``analysis`` is of nothing but builtins that change the shell and touch no
    file (``_TOUCH_NOTHING``), written out (no program known only at run time)."""
    return bool(analysis.commands) and all(
        c.program in _TOUCH_NOTHING and not c.dynamic for c in analysis.commands
    )


class ReadOnlyShell(ShellSession):
    """A ShellSession in the read-only profile that catches up with the main shell's exports."""

    profile: Profile = "readonly"
    saves_exports = False
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
        return (
            f"unset $(compgen -e) 2>/dev/null; source {state} 2>/dev/null; cd {here}\n"
            f"{self._own_loaders()}\n"
        )

    async def _ensure_started(self) -> Process:
        if self._process is None or self._process.returncode is not None:
            self._seen = None  # a new shell sources the exports as it starts: filter again
        return await super()._ensure_started()

    def _own_loaders(self) -> str:
        """Shell code that puts back this shell's own loader variables (see ``LOADERS``).

        A command runs here without asking because what it *names* is read-only; which
        program ``cat`` is, and what a program loads, is decided by ``PATH``, ``LD_PRELOAD``,
        ``BASH_ENV``, ``PYTHONPATH``, ``GIT_*``… An export in the main shell (``export
        PATH=$PWD/bin:$PATH`` with a ``bin/cat``) must not make the next ``cat`` run the
        workspace's program unasked: those variables are dropped from what is taken over,
        and the ones this shell started with are restored."""
        patterns = "|".join(LOADERS)
        restore = " ".join(
            f"{name}={_quote(value)}"
            for name, value in sorted(self._env.items())
            if any(fnmatch.fnmatchcase(name, p) for p in LOADERS)
        )
        return (
            f"for __tb_v in $(compgen -e); do case $__tb_v in {patterns}) unset $__tb_v;; "
            f"esac; done; unset __tb_v{'; export ' + restore if restore else ''}"
        )


class CreateShell(ReadOnlyShell):
    """A shell like the read-only one, in the create profile: for commands that run without a
    prompt because every effect they have is a file they create (``mkdir build``, ``cp a.txt
    new.txt``, ``sort a > b.txt``), where nothing that exists can be changed or deleted, and
    what they read is the quiet view (see ``sandbox.profiles``)."""

    profile: Profile = "create"


class GitShell(ShellSession):
    """A ShellSession in the git profile: ``.git/`` writable but for its hooks and config,
    for git commands that write the repository (``add``, ``commit``…), which always ask."""

    profile: Profile = "git"
