"""The workspace files a program-starting entry names, and their content digests.

An approved entry is words (``python server.py``, ``./scripts/mcp.sh``); what runs is what the
words resolve to when it starts. Were only the words pinned, a ``git pull`` rewriting
``server.py`` behind an approved ``.mcp.json`` would run the new code unasked. So a pin
(``config.launches``) also holds the SHA-256 of every regular file inside the workspace that
the entry names, found by this rule:

- the words are taken as they will run: ``${VAR}`` expanded (MCP entries), each simple command
  of a hook parsed out of its shell text (``permissions.shell``), ``$TOOLBELT_PROJECT_DIR`` and
  ``$CLAUDE_PROJECT_DIR`` standing for the workspace, ``sh -c CODE`` read inside;
- each word is resolved against the entry's real working directory (its ``cwd``, or the
  workspace), a ``--name=value`` option by its value, and the program itself also on ``PATH``'s
  absolute entries (the ones it is started with, ``core.programs``);
- a file counts when its lexical or its real path lies in the workspace (a committed symlink
  counts, and so does what it points to) and it is the program, the script of an interpreter
  (the first operand of ``python``, ``node``, ``sh``, ``uv``, ``env``...: the first word not an
  option; the analysis's table of shells, interpreters, runners and wrappers), the
  project-local program of a package runner (``npx pkg``'s ``node_modules/.bin/pkg``, ``uv
  run srv``'s ``.venv/bin/srv``), or another argument that can run: executable, a source
  suffix (``.py``, ``.js``, ``.sh``...) or a ``#!`` line.
  Other arguments (a database, a data file the server writes) are not pinned: pinning them
  would hold the server back after its first run.

A file is read only up to ``MAX_PINNED_BYTES``; a larger one cannot be pinned and so is never
approved (its entry does not start, and the notice says why).

**The limits:** what the named file loads in turn — a server's imported modules, the rest of
the package behind a runner's bin, a configuration it reads — is not pinned: reviewing a
server's entry point is not reviewing all its code, which stays the repository's code like any
other. Nor are words known only when the hook runs (``$(…)``, variables other than the project
directory), nor files outside the workspace (the user's own system, not the repository's).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from toolbelt.commands.programs import INTERPRETERS, RUNNERS, SHELLS, WRAPPERS
from toolbelt.core.programs import absolute_path
from toolbelt.paths.containment import is_within

__all__ = [
    "MAX_PINNED_BYTES",
    "TOO_LARGE",
    "file_digests",
    "hook_files",
    "hooks_section_files",
    "named_files",
]

MAX_PINNED_BYTES = 64 * 1024 * 1024
"""The most of a named file read to pin it (a big server binary hashes in well under 0.1 s)."""
TOO_LARGE = "too-large"
"""Stands for a file over ``MAX_PINNED_BYTES``: never equal to a digest, so never approved."""

_CODE_SUFFIXES = frozenset(
    {".py", ".pyw", ".pyz", ".pyc", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"}
    | {".sh", ".bash", ".zsh", ".ksh", ".fish", ".rb", ".pl", ".pm", ".php", ".lua", ".r"}
    | {".jar", ".wasm", ".go", ".java", ".kt", ".kts", ".swift", ".exs", ".ex", ".clj", ".tcl"}
    | {".groovy", ".awk", ".ps1"}
)
_RUNS_ITS_OPERAND = SHELLS | INTERPRETERS.keys() | RUNNERS | WRAPPERS
"""Programs whose first operand is a script or program they run (``commands.programs``)."""
_VERSION = re.compile(r"[\d.]+$")
_PROJECT_DIR = re.compile(
    r"\$\{(?:TOOLBELT|CLAUDE)_PROJECT_DIR\}"  # ${TOOLBELT_PROJECT_DIR}
    r"|\$(?:TOOLBELT|CLAUDE)_PROJECT_DIR\b"  # $TOOLBELT_PROJECT_DIR
)
_PLACEHOLDER = "TOOLBELTPROJECTDIRd41d8cd9"
_MAX_NESTING = 4
_DIRECT_RUNNERS = frozenset({"npx", "pnpx", "bunx"})
_RUNNER_SUBCOMMANDS = {
    "npm": {"exec", "x"},
    "pnpm": {"exec", "dlx"},
    "yarn": {"exec", "run", "dlx"},
    "bun": {"x", "run"},
    "uv": {"run"},
}


def named_files(
    argv: Sequence[str], cwd: Path, workspace: Path, path: str | None = None
) -> list[Path]:
    """The workspace files the command ``argv``, started in ``cwd``, names (see the module's
    rule), as absolute paths (lexical, not resolved), first seen first."""
    if not argv:
        return []
    base = Path(os.path.realpath(cwd))  # where the kernel resolves them (a symlinked cwd too)
    found: list[Path] = []
    program = _program_file(argv[0], base, path)
    if program is not None:
        found.append(program)
    interpreter = _name(argv[0]) in _RUNS_ITS_OPERAND
    operand_seen = False
    for word in argv[1:]:
        value = word.partition("=")[2] if word.startswith("--") and "=" in word else word
        script = interpreter and not operand_seen and not word.startswith("-")
        operand_seen = operand_seen or not word.startswith("-")
        candidate = _existing(value, base)
        if candidate is not None and (script or _can_run(candidate)):
            found.append(candidate)
    found += _runner_bins(argv, base)
    return [file for file in dict.fromkeys(found) if _inside(file, workspace)]


def _runner_bins(argv: Sequence[str], base: Path) -> list[Path]:
    """The project-local program a package runner starts: ``npx pkg`` (``npm exec``, ``pnpm
    exec``, ``yarn``, ``bunx``...) runs ``node_modules/.bin/pkg`` when it is there, ``uv run
    srv`` runs ``.venv/bin/srv``."""
    name = _name(argv[0])
    words = list(argv[1:])
    if name in _RUNNER_SUBCOMMANDS and words and words[0] in _RUNNER_SUBCOMMANDS[name]:
        words = words[1:]
    elif name not in _DIRECT_RUNNERS:
        return []
    operand = next((word for word in words if not word.startswith("-")), None)
    if operand is None:
        return []
    folder = base / (".venv/bin" if name == "uv" else "node_modules/.bin")
    package = operand[:1] + operand[1:].partition("@")[0]  # @scope/pkg@1.2 → @scope/pkg
    names = {package, package.rpartition("/")[2]}
    return sorted(folder / bin_name for bin_name in names if (folder / bin_name).is_file())


def hook_files(command: str, workspace: Path, *, depth: int = 0) -> list[Path]:
    """The workspace files a hook's shell ``command``, run in ``workspace``, names."""
    from toolbelt.commands.analysis import analyze_command  # the bash parser: only for hooks

    found: list[Path] = []
    cwd = workspace
    text = _PROJECT_DIR.sub(_PLACEHOLDER, command)  # a plain word: the parse stays the same
    for simple in analyze_command(text).commands:
        argv = [word.replace(_PLACEHOLDER, str(workspace)) for word in simple.argv]
        if argv and argv[0] == "cd" and len(argv) == 2:
            cwd = Path(os.path.normpath(cwd / argv[1]))  # a later relative word is read there
            continue
        found += named_files(argv, cwd, workspace)
        code = _shell_code(argv)
        if code is not None and depth < _MAX_NESTING:
            found += hook_files(code, workspace, depth=depth + 1)
    return list(dict.fromkeys(found))


def hooks_section_files(hooks: Mapping[str, Any], workspace: Path) -> list[Path]:
    """The workspace files the command hooks of a settings file's ``hooks`` section name (they
    run in the workspace)."""
    found: list[Path] = []
    for groups in hooks.values():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks", ()) if isinstance(group, dict) else ()
            for handler in handlers if isinstance(handlers, list) else ():
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str):
                    found += hook_files(command, workspace)
    return list(dict.fromkeys(found))


def file_digests(files: Iterable[Path]) -> dict[str, str]:
    """Each file's SHA-256 (``TOO_LARGE`` past the bound), by its path as named."""
    digests: dict[str, str] = {}
    for file in files:
        digest = _digest(file)
        if digest is not None:
            digests[str(file)] = digest
    return digests


def _digest(file: Path) -> str | None:
    """SHA-256 of the regular file ``file`` (symlinks followed), None when it is not one now."""
    handle = _open_regular(file)
    if handle is None:
        return None
    with handle:
        if os.fstat(handle.fileno()).st_size > MAX_PINNED_BYTES:
            return TOO_LARGE
        digest = hashlib.sha256()
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
        return digest.hexdigest()


def _open_regular(file: Path) -> BinaryIO | None:
    """``file`` opened for reading if it is a regular file; never blocks on a FIFO put there."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def _program_file(word: str, base: Path, path: str | None) -> Path | None:
    """The file the program word runs: a path (``./srv``, ``bin/srv``) against ``base``, a bare
    name on ``PATH``'s absolute entries."""
    if "/" in word:
        return _existing(word, base)
    found = shutil.which(word, path=absolute_path(path))
    return Path(found) if found is not None else None


def _existing(word: str, base: Path) -> Path | None:
    """``word`` as a path against ``base``, when it is a regular file now."""
    if not word or word.startswith("-"):
        return None
    candidate = Path(os.path.normpath(base / word))
    return candidate if candidate.is_file() else None


def _can_run(file: Path) -> bool:
    if file.suffix.lower() in _CODE_SUFFIXES or os.access(file, os.X_OK):
        return True
    handle = _open_regular(file)
    if handle is None:
        return False
    with handle:
        return handle.read(2) == b"#!"


def _inside(file: Path, workspace: Path) -> bool:
    """Whether ``file`` is named in the workspace, or leads there through a symlink."""
    tops = (os.path.abspath(workspace), os.path.realpath(workspace))
    return any(
        is_within(path, top)
        for path in (os.path.abspath(file), os.path.realpath(file))  # lexical, then resolved
        for top in tops
    )


def _name(word: str) -> str:
    """``/usr/bin/python3.11`` → ``python``."""
    return _VERSION.sub("", os.path.basename(word)).lower()


def _shell_code(argv: Sequence[str]) -> str | None:
    """The code of ``sh -c CODE`` (``bash -lc`` too), else None."""
    if not argv or _name(argv[0]) not in SHELLS:
        return None
    for index, word in enumerate(argv[1:-1], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word:
            return argv[index + 1]
    return None
