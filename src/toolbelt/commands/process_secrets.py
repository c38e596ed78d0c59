"""Other processes' secrets: their environment, command line and memory.

``/proc/<pid>/environ`` keeps the environment a process started with — tokens scrubbed from
bash's environment included — and ``ps e`` prints it for every process. Reading these is
dangerous (asks in every mode); ``ps -e`` (all processes, UNIX syntax) is not.
"""

from __future__ import annotations

import posixpath
import re

__all__ = ["process_secret_reason", "ps_env"]


_PROCESS = re.compile(r"/proc/(\d+|self|thread-self|[^/]*[*?\[][^/]*)(/.*)?")


def process_secret_reason(path: str) -> str | None:
    """Why reading ``path`` exposes another process (``/proc/<pid>/environ|cmdline|mem``…)."""
    normal = posixpath.normpath(path) if path.startswith("/") else path
    if _PROCESS.fullmatch(normal) and normal.count("/") >= 3:
        return "it reads a process's environment, command line or memory under /proc"
    return None


_PS_VALUES = set("oOpqstuUgGCN")


def ps_env(args: list[str]) -> bool:
    """Whether ``ps ARGS`` shows environments: BSD-style ``e`` (``ps e``, ``ps axeww``),
    never UNIX-style ``-e`` (all processes); values of ``-o FORMAT`` and friends skipped."""
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg.startswith("--"):
            skip = "=" not in arg and arg[2:] in ("format", "pid", "ppid", "user", "sort", "cols")
        elif arg.startswith("-"):
            letters = arg[1:]
            for position, letter in enumerate(letters):
                if letter in _PS_VALUES:
                    skip = position == len(letters) - 1
                    break
        else:
            if "e" in arg:
                return True
            skip = arg[-1:] in ("o", "O", "p", "t", "U")
    return False
