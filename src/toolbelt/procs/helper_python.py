"""The argv of a small Python helper toolbelt starts itself: the sandbox launcher, the
watchdog, the namespaces probe.

Such a helper often starts in the workspace (the launcher must: bash runs there), and a
workspace is untrusted code. ``python -c`` puts the current directory first on ``sys.path``,
so a repository's ``zlib.py`` or ``ctypes/`` would be imported instead of the standard module
— by the launcher, before it confines itself: the repository's code would run unsandboxed.
``-S -E -s`` do not remove that entry; isolated mode (``-I``: no current directory or script
directory on the path, no ``PYTHON*`` variables, no user site) does, so what the helper
imports comes only from the interpreter's own library and toolbelt's package, wherever it
starts. ``-S`` also skips ``site``: no ``.pth`` file of any site-packages runs, and start-up
stays ~15 ms.

The helper's code imports one toolbelt module without running ``toolbelt/__init__`` (typing
alone costs ~20 ms): the packages on the way are made as empty modules whose path is the
installed package's absolute directory.

This module imports only the standard library: the launcher loads it without ``site``.
"""

from __future__ import annotations

import os
import sys

__all__ = ["helper_argv", "helper_code"]

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The installed ``toolbelt`` package's directory (absolute, never the workspace's)."""

_STUBS = (
    "import sys; M = type(sys); P = M('toolbelt'); S = M('toolbelt.shell'); "
    "P.__path__ = [{pkg!r}]; S.__path__ = [{pkg!r} + '/shell']; "
    "sys.modules.update({{'toolbelt': P, 'toolbelt.shell': S}}); "
)


def helper_code(statement: str, *, before: str = "") -> str:
    """Code for ``python -c`` that runs ``before`` (standard library only), makes the empty
    ``toolbelt`` and ``toolbelt.shell`` packages, then runs ``statement``."""
    return before + _STUBS.format(pkg=PACKAGE) + statement


def helper_argv(code: str, *args: str) -> list[str]:
    """``python -I -S -c code args…`` with this interpreter: nothing from the current
    directory, the environment's ``PYTHON*`` variables or any ``.pth`` file is imported."""
    return [sys.executable, "-I", "-S", "-c", code, *args]
