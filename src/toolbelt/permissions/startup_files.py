"""Files an interpreter runs by itself when it starts: code nobody chose to run.

A command or an edit that writes one of these inside the workspace plants code that runs
later, outside any sandbox, the next time the person (or their editor's language server, or
toolbelt itself when it is installed in the project's virtualenv) starts that interpreter —
without running anything they would recognise as the workspace's code:

- Python: a ``.pth`` file in a ``site-packages`` (or Debian's ``dist-packages``) directory —
  its ``import`` lines run at every start of the interpreter that owns the directory; a
  ``sitecustomize`` or ``usercustomize`` module or package (``.py``, ``.pyc``, an extension,
  a directory), imported by ``site`` from the path at every start; ``pyvenv.cfg``, whose
  ``home`` chooses which installation (and so which standard library) a virtualenv runs.
- R sources ``.Rprofile`` from the current directory at every start; IRB and Pry load
  ``.irbrc`` and ``.pryrc`` from it; Bun runs the ``preload`` scripts of ``bunfig.toml``
  before every ``bun run`` and ``bun test``.

Node has no such file of its own (``NODE_OPTIONS`` is an environment variable); what npm,
yarn and pnpm run from the workspace (``.npmrc``, ``.yarnrc.yml``, ``.pnpmfile.cjs``) is in
``protected``'s list. Modules that run only when imported or named (``conftest.py``,
``setup.py``, a package's own code, ``.venv/bin`` scripts) are the workspace's code, which
the person runs by choice: left to the mode, like ``Makefile``.

A sandboxed command may still create a ``pyvenv.cfg`` (``VIRTUALENV_MADE``): making a new
virtualenv is ordinary work, and it is new code the person chooses to run; changing the
configuration of one they already use is what is dangerous, and there the existing file is
read-only (``sandbox_rules``) and write tools ask.

Names arrive already folded by ``protected`` (lower case, trailing dots and spaces dropped).
"""

from __future__ import annotations

__all__ = ["VIRTUALENV_MADE", "startup_directory_reason", "startup_file_reason"]

VIRTUALENV_MADE = frozenset({"pyvenv.cfg"})
"""Start-up files that making a new virtualenv creates: not undone when a command makes them."""

_SITE_DIRECTORIES = frozenset({"site-packages", "dist-packages"})
_CUSTOMIZE = frozenset({"sitecustomize", "usercustomize"})
_FILES = {
    "pyvenv.cfg": "pyvenv.cfg chooses the Python installation a virtualenv starts",
    ".rprofile": ".Rprofile is run by R at every start in this directory",
    ".irbrc": ".irbrc is run by irb at every start in this directory",
    ".pryrc": ".pryrc is run by pry at every start in this directory",
    "bunfig.toml": "bunfig.toml names preload scripts bun runs before every run and test",
}


def startup_directory_reason(name: str) -> str | None:
    """Why a directory (or any entry) named ``name`` is a start-up module, or None: a
    ``sitecustomize``/``usercustomize`` package protects everything beneath it."""
    if name.partition(".")[0] in _CUSTOMIZE:
        return f"{name} is imported by Python's site module at every start of Python"
    return None


def startup_file_reason(name: str, parent: str) -> str | None:
    """Why the file ``name`` in a directory named ``parent`` runs at an interpreter's start,
    or None."""
    if name.endswith(".pth") and parent in _SITE_DIRECTORIES:
        return f"{name} in {parent} runs at every start of the Python that owns it"
    return _FILES.get(name) or startup_directory_reason(name)
