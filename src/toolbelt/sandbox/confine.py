"""The launcher: confine this process, then exec the command — ``confine SPEC -- ARGV``.

Restricting a child with ``preexec_fn`` runs Python between fork and exec, which is unsafe in
a threaded process (the MCP server is one). So the shell is started as
``python -I -S -c BOOT SPEC -- bash …`` (``helper_python``): a fresh single-threaded
interpreter (isolated: nothing of the workspace it starts in is importable; no ``site``;
~15 ms once per shell) that applies the Landlock ruleset and the seccomp filter to itself and
then replaces itself with bash, which inherits both for good. Where user namespaces work it
first enters a private mount namespace in which the workspace's protected entries are
read-only (``mounts``), so Landlock can grant the workspace whole.

Any failure exits 125 with a message: a sandbox that cannot be applied never runs the
command unconfined.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

# imported before anything is applied: once confined, their files may be unreadable
from toolbelt.procs.helper_python import helper_argv, helper_code
from toolbelt.sandbox.landlock import Ruleset
from toolbelt.sandbox.mounts import readonly_binds
from toolbelt.sandbox.seccomp import install_filter

__all__ = ["EXIT_UNCONFINED", "launcher_argv", "main"]

EXIT_UNCONFINED = 125
_SIGPIPE, _SIGXFSZ, _SIG_DFL = 13, 25, 0  # the same numbers on x86-64 and arm64

_BOOT = helper_code("from toolbelt.sandbox.confine import main; main()")


def launcher_argv(spec: dict[str, object], argv: list[str] | tuple[str, ...]) -> list[str]:
    """The argv that runs ``argv`` confined as ``spec`` says (see ``main``); the spec travels
    as zlib-compressed ``marshal`` data, hex-encoded (it loads without importing ``json`` and
    ``re``), split into pieces: one argument may hold at most 128 KiB, and a home or ``/tmp``
    with thousands of entries makes a ruleset larger than that."""
    encoded = zlib.compress(marshal.dumps(spec), 6).hex()
    pieces = [encoded[at : at + _PIECE] for at in range(0, len(encoded), _PIECE)] or [""]
    return helper_argv(_BOOT, *pieces, "--", *argv)


_PIECE = 64 * 1024


def main(args: list[str] | None = None) -> None:
    """Apply ``SPEC`` (``landlock`` rules or None, ``seccomp_network`` bool or None) and exec
    the rest of the arguments."""
    args = list(sys.argv[1:] if args is None else args)
    if "--" not in args or args.index("--") == 0 or args.index("--") == len(args) - 1:
        _fail("usage: confine SPEC... -- COMMAND [ARG...]")
    split = args.index("--")
    spec = marshal.loads(zlib.decompress(bytes.fromhex("".join(args[:split]))))
    command = args[split + 1 :]
    program = _which(command[0])  # before confinement: execvp would import warnings after
    try:
        rules = spec.get("landlock")
        if rules is not None:
            ports = rules.get("connect_ports")
            granted = {
                "read": list(rules.get("read", ())),
                "write": list(rules.get("write", ())),
                "create": [],
            }
            roots, shm = _roots(rules) if rules.get("mount") else (rules.get("roots", []), [])
            granted[rules.get("root_access", "write")] += roots
            granted["write"] += shm
            Ruleset(
                read=tuple(granted["read"]),
                list_only=tuple(rules.get("list_only", ())),
                write=tuple(granted["write"]),
                create=tuple(granted["create"]),
                connect_ports=None if ports is None else tuple(ports),
                scoped=bool(rules.get("scoped", True)),
            ).apply()
        network = spec.get("seccomp_network")
        if network is not None:
            install_filter(network=bool(network))
    except OSError as exc:
        _fail(f"the sandbox could not be applied ({exc}); nothing was run")
    import ctypes  # already loaded by landlock; signal would import enum (~5 ms)

    libc = ctypes.CDLL(None)
    for sig in (_SIGPIPE, _SIGXFSZ):  # Python ignores these; exec would keep that
        libc.signal(sig, _SIG_DFL)
    try:
        os.execv(program, command)
    except OSError as exc:
        _fail(f"cannot run {command[0]!r}: {exc.strerror}")


def _which(name: str) -> str:
    """``name`` found on PATH the way execvp would (Python's execvp imports ``warnings``,
    which may be unreadable once confined: the interpreter's library is not a system path)."""
    if "/" in name:
        return name
    for directory in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(directory or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return name


def _roots(rules: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """(what to grant ``root_access`` on, a private ``/dev/shm`` to grant fully): the roots
    whole when their protected entries could be mounted read-only and their secrets covered
    in a private namespace; else the roots' unprotected entries one by one (granted around
    the secrets)."""
    roots = list(rules.get("roots", ()))
    writable_roots = roots if rules.get("root_access", "write") != "read" else []
    shm = [path for path in ("/dev/shm",) if writable_roots and os.path.isdir(path)]
    writable = [*writable_roots, *(p for p in rules.get("write", ()) if not p.startswith("/dev/"))]
    try:
        hidden = rules.get("hidden", [])
        readonly_binds(rules.get("protected", []), empty=shm, writable=writable, hidden=hidden)
    except OSError:
        return rules.get("entries", []), []
    return roots, shm


def _fail(message: str) -> None:
    sys.stderr.write(f"toolbelt sandbox: {message}\n")
    sys.stderr.flush()
    os._exit(EXIT_UNCONFINED)
