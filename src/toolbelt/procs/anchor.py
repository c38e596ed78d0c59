"""The anchor: a child subreaper at the root of every process tree toolbelt starts.

An environment marker (``procs.RUN_ID_VAR``) is erased by ``env -i`` or ``env -u``, and a
process group is left with ``setsid``: a descendant that does both and whose parent then exits
used to be re-parented to init, out of toolbelt's sight. ``PR_SET_CHILD_SUBREAPER`` makes
orphans re-parent to the nearest subreaper ancestor instead, and no process can shed its
ancestry. So the shell, a background job, a hook, a git command or an MCP server is started
as ``python -I -S -c BOOT [--linger] [--report FD] -- ARGV`` (``helper_python``, ~15 ms once
per tree): the anchor marks itself a subreaper, forks, and the child execs ARGV. The anchor
runs nothing else: it ignores the terminal's and the group kill's SIGINT, SIGHUP and SIGTERM
(SIGKILL still ends it), reaps every orphan handed to it, and so stays the ancestor of all
that ARGV started until the last of them is gone — where ``procs.descendants`` finds them by
parent pid, whatever their environment, session or group.

When ARGV's process ends, the anchor ends what it left (SIGTERM, a grace period, then freeze
and kill: ``procs.end_trees``) and
exits with its status; with ``--linger`` (a background job) it waits for the leftovers to end
by themselves instead, as a job's ``server &`` must keep running. ``--report FD`` writes
ARGV's pid to FD before ARGV runs (the shell, which must not be swept with its command's
leftovers). The process toolbelt holds is the anchor: its pid leads the process group (it is
started in a new session), its exit status is ARGV's.

This module imports only the standard library and ``procs``: it runs without ``site``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import signal
import sys
import time
from collections.abc import Mapping, Sequence

from toolbelt.procs.ending import descendants, end_trees
from toolbelt.procs.helper_python import helper_argv, helper_code
from toolbelt.procs.identity import signal_if_same

__all__ = ["anchored_argv", "check_runnable", "main"]

_BOOT = helper_code("from toolbelt.procs.anchor import main; main()")
_PR_SET_CHILD_SUBREAPER = 36
_IGNORED = (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT)
_RESET = (*_IGNORED, signal.SIGPIPE, signal.SIGXFSZ)
GRACE = 1.0
"""Seconds ARGV's leftovers get between SIGTERM and SIGKILL once ARGV has ended."""


def anchored_argv(
    argv: Sequence[str], *, linger: bool = False, report: int | None = None
) -> list[str]:
    """``argv`` started under an anchor (see the module's docstring)."""
    options = ["--linger"] if linger else []
    if report is not None:
        options += ["--report", str(report)]
    return helper_argv(_BOOT, *options, "--", *argv)


def check_runnable(
    program: str, env: Mapping[str, str] | None, cwd: str | os.PathLike[str] | None
) -> None:
    """Raise the ``OSError`` that starting ``program`` directly would (the anchor itself
    always starts: a program that cannot run would only show as its exit status 127)."""
    if "/" in program:
        path = os.path.join(cwd or ".", program)
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
        return
    search = (os.environ if env is None else env).get("PATH", os.defpath)
    if shutil.which(program, path=search) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)


def main(args: list[str] | None = None) -> None:
    """Become a subreaper, run ARGV, reap, end what ARGV left (unless ``--linger``), exit."""
    args = sys.argv[1:] if args is None else args
    split = args.index("--")
    options, argv = args[:split], args[split + 1 :]
    linger = "--linger" in options
    report = int(options[options.index("--report") + 1]) if "--report" in options else None
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        os.write(2, b"toolbelt: cannot become a child subreaper\n")
        os._exit(125)  # never run a tree that could escape
    for sig in _IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    ready_read, ready_write = os.pipe()
    child = os.fork()
    if child == 0:
        _exec(argv, ready_read, ready_write, report)
    os.close(ready_read)
    if report is not None:
        with contextlib.suppress(OSError):
            os.write(report, f"{child}\n".encode())
        os.close(report)
    os.close(ready_write)  # ARGV runs now
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the pipes belong to ARGV: their end of file must not wait for us
        os.dup2(null, fd)
    os.close(null)
    status = _reap(child, linger)
    _exit_like(status)


def _exec(argv: list[str], ready_read: int, ready_write: int, report: int | None) -> None:
    """In the child: default signal dispositions, wait for the parent's word, exec ARGV."""
    try:
        for sig in _RESET:
            signal.signal(sig, signal.SIG_DFL)
        os.close(ready_write)
        if report is not None:
            os.close(report)
        os.read(ready_read, 1)
        os.close(ready_read)
        os.execvp(argv[0], argv)
    except OSError as error:
        os.write(2, f"toolbelt: cannot run {argv[0]}: {error.strerror}\n".encode())
    os._exit(127)


def _reap(child: int, linger: bool) -> int:
    """Reap until no child is left; ARGV's wait status."""
    status = 0
    while True:
        try:
            pid, code = os.waitpid(-1, 0)
        except ChildProcessError:
            return status
        if pid == child:
            status = code
            if not linger:
                _end_leftovers()


def _end_leftovers() -> None:
    """SIGTERM what ARGV left; after ``GRACE``, freeze and kill what is still there (a process
    that forks and lets its parent exit outruns a scan-then-kill; orphans come back to this
    subreaper, so everything below it by parent pid is the whole tree). The caller reaps."""
    me = os.getpid()
    for pid, start in descendants(me).items():
        signal_if_same(pid, start, signal.SIGTERM)
    deadline = time.monotonic() + GRACE
    while _reap_some() and time.monotonic() < deadline:
        time.sleep(0.01)
    if _reap_some():
        end_trees((), under=me)


def _reap_some() -> bool:
    """Reap the children that have ended; True while any child is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _exit_like(status: int) -> None:
    """Exit as ARGV did: with its code, or killed by the same signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))
