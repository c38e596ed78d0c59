"""git, run on the shadow repository with the workspace as its work tree, and nothing else.

``git --git-dir=<store>/shadow.git --work-tree=<root>`` with ``GIT_INDEX_FILE=<store>/index``:
git reads and writes only toolbelt's own repository and index, so the user's index, stash,
branches, hooks and config are never touched — in a git work tree or outside one. The
environment is built from nothing (no ``GIT_DIR`` or ``GIT_CONFIG_PARAMETERS`` inherited),
the user's and the system's config files are not read (``GIT_CONFIG_GLOBAL=/dev/null``,
``GIT_CONFIG_NOSYSTEM``), and the keys that could start a program are pinned on top
(``shell.git_env.FIXED_OVERRIDES``): the shadow's own config defines no filter, diff driver
or hook, and its ``info/attributes`` switches every conversion off. What a workspace's
``.gitattributes`` asks for therefore starts nothing and changes no byte; its ``.gitignore``
files are honoured.

A git that runs past its time is stopped with SIGTERM (git removes its lock files then), and
a lock file left by a killed one is removed before the next run, which always holds the
store's lock.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Sequence

from toolbelt.checkpoints.layout import Layout
from toolbelt.core.programs import outside_path, program
from toolbelt.shell.git_env import FIXED_OVERRIDES

__all__ = ["GitFailed", "ShadowGit"]


class GitFailed(Exception):
    """A git command on the shadow repository failed or ran out of time (the message says)."""


class ShadowGit:
    """Runs git commands on one store's shadow repository."""

    def __init__(self, layout: Layout, *, timeout: float = 30.0) -> None:
        self.layout = layout
        self.timeout = timeout
        self._env: dict[str, str] | None = None
        self._running: subprocess.Popen[bytes] | None = None
        self._stopped = False

    def stop(self) -> None:
        """End the git running now (SIGTERM) and refuse to start another: a background prune
        must not outlive its session."""
        self._stopped = True
        running = self._running
        if running is not None and running.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                running.send_signal(signal.SIGTERM)

    def env(self) -> dict[str, str]:
        if self._env is None:
            overrides = [*FIXED_OVERRIDES, ("safe.directory", "*"), ("core.fsmonitor", "false")]
            env = {
                "PATH": outside_path(None) or "/usr/bin:/bin",
                "HOME": os.environ.get("HOME", "/"),
                "LC_ALL": "C",
                "GIT_DIR": str(self.layout.shadow),
                "GIT_WORK_TREE": str(self.layout.root),
                "GIT_INDEX_FILE": str(self.layout.index),
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.devnull,
                "GIT_ATTR_NOSYSTEM": "1",
                "GIT_TERMINAL_PROMPT": "0",
                "GIT_LITERAL_PATHSPECS": "1",
                "GIT_CONFIG_COUNT": str(len(overrides)),
            }
            if "XDG_CONFIG_HOME" in os.environ:  # the user's global ignore file is read there
                env["XDG_CONFIG_HOME"] = os.environ["XDG_CONFIG_HOME"]
            for index, (key, value) in enumerate(overrides):
                env[f"GIT_CONFIG_KEY_{index}"] = key
                env[f"GIT_CONFIG_VALUE_{index}"] = value
            self._env = env
        return self._env

    def run(self, *args: str, stdin: bytes | None = None, timeout: float | None = None) -> bytes:
        """git ``args``' standard output; GitFailed when it fails or overruns."""
        git = program("git")
        if self._stopped:
            raise GitFailed("the session ended")
        if git is None:
            raise GitFailed("git is not installed, so commands cannot be snapshotted")
        with contextlib.suppress(FileNotFoundError):  # a killed git's; callers hold the lock
            os.unlink(self.layout.index.with_name("index.lock"))
        process = subprocess.Popen(
            [git, *args],
            cwd=self.layout.root,
            env=self.env(),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._running = process
        limit = self.timeout if timeout is None else timeout
        try:
            out, err = process.communicate(stdin, timeout=limit)
        except subprocess.TimeoutExpired:
            _stop(process)
            raise GitFailed(f"git {args[0]} took longer than {limit:g} s") from None
        except BaseException:
            _stop(process)
            raise
        finally:
            self._running = None
        if process.returncode != 0:
            message = err.decode("utf-8", "replace").strip().splitlines()
            raise GitFailed(
                f"git {args[0]} failed: {message[-1] if message else process.returncode}"
            )
        return out

    def run_lines(
        self, *args: str, stdin: Sequence[bytes] | None = None, timeout: float | None = None
    ) -> list[bytes]:
        """The NUL-separated records of ``git args`` (``-z`` output), fed ``stdin`` likewise."""
        fed = b"".join(item + b"\0" for item in stdin) if stdin is not None else None
        return [item for item in self.run(*args, stdin=fed, timeout=timeout).split(b"\0") if item]


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (git cleans up its lock files), then SIGKILL if it lingers."""
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    try:
        process.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
