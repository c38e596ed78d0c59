"""The launcher: confine this process, then exec the command — ``confine SPEC -- ARGV``.

Restricting a child with ``preexec_fn`` runs Python between fork and exec, which is unsafe in
a threaded process (the MCP server is one). So the shell is started as
``python -S -E -s -c BOOT SPEC -- bash …``: a fresh single-threaded interpreter (no ``site``,
~15 ms once per shell) that applies the Landlock ruleset and the seccomp filter to itself and
then replaces itself with bash, which inherits both for good. Where user namespaces work it
first enters a private mount namespace in which the workspace's protected entries are
read-only (``mounts``), so Landlock can grant the workspace whole.

Any failure exits 125 with a message: a sandbox that cannot be applied never runs the
command unconfined.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["EXIT_UNCONFINED", "launcher_argv", "main"]

EXIT_UNCONFINED = 125

# Loads this module without running site or toolbelt/__init__ beyond its lazy stub.
_BOOT = "import sys; sys.path.insert(0, {src!r}); from toolbelt.shell.confine import main; main()"


def launcher_argv(spec: dict[str, object], argv: Sequence[str]) -> list[str]:
    """The argv that runs ``argv`` confined as ``spec`` says (see ``main``)."""
    src = str(Path(__file__).resolve().parents[2])
    boot = _BOOT.format(src=src)
    return [sys.executable, "-S", "-E", "-s", "-c", boot, json.dumps(spec), "--", *argv]


def main(args: Sequence[str] | None = None) -> None:
    """Apply ``SPEC`` (JSON: ``landlock`` rules or null, ``seccomp_network`` bool or null)
    and exec the rest of the arguments."""
    args = list(sys.argv[1:] if args is None else args)
    if len(args) < 3 or args[1] != "--":
        _fail("usage: confine SPEC -- COMMAND [ARG...]")
    spec = json.loads(args[0])
    # both imported before either applies: once confined, their files may be unreadable
    from toolbelt.shell.landlock import Ruleset
    from toolbelt.shell.mounts import readonly_binds
    from toolbelt.shell.seccomp import install_filter

    try:
        rules = spec.get("landlock")
        if rules is not None:
            ports = rules.get("connect_ports")
            write = list(rules.get("write", ()))
            if rules.get("roots"):
                write += _writable(rules, readonly_binds)
            Ruleset(
                read=tuple(rules.get("read", ())),
                list_only=tuple(rules.get("list_only", ())),
                write=tuple(write),
                connect_ports=None if ports is None else tuple(ports),
                scoped=bool(rules.get("scoped", True)),
            ).apply()
        network = spec.get("seccomp_network")
        if network is not None:
            install_filter(network=bool(network))
    except OSError as exc:
        _fail(f"the sandbox could not be applied ({exc}); nothing was run")
    command = args[2:]
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores these; exec would keep that
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        _fail(f"cannot run {command[0]!r}: {exc.strerror}")


def _writable(rules: dict[str, list[str]], readonly_binds: Callable[..., None]) -> list[str]:
    """The roots whole (and a private ``/dev/shm``) when their protected entries could be
    mounted read-only in a private namespace; else the roots' unprotected entries one by one."""
    shm = [path for path in ("/dev/shm",) if os.path.isdir(path)]
    try:
        readonly_binds(rules.get("protected", []), empty=shm)
    except OSError:
        return rules.get("entries", [])
    return [*rules["roots"], *shm]


def _fail(message: str) -> None:
    sys.stderr.write(f"toolbelt sandbox: {message}\n")
    sys.stderr.flush()
    os._exit(EXIT_UNCONFINED)
