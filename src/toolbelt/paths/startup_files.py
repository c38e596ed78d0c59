"""Files a program runs, or takes the programs it runs from, by itself when it starts in the
workspace: code nobody chose to run.

A command or an edit that writes one of these inside the workspace plants code that runs
later, outside any sandbox, the next time the person (or their editor's language server, or
toolbelt itself when it is installed in the project's virtualenv) starts that program there —
without running anything they would recognise as the workspace's code:

- Python: a ``.pth`` file in a ``site-packages`` (or Debian's ``dist-packages``) directory —
  its ``import`` lines run at every start of the interpreter that owns the directory; a
  ``sitecustomize`` or ``usercustomize`` module or package (``.py``, ``.pyc``, an extension,
  a directory), imported by ``site`` from the path at every start; ``pyvenv.cfg``, whose
  ``home`` chooses which installation (and so which standard library) a virtualenv runs;
  ``.pdbrc``, whose lines pdb runs (``!`` lines are Python) whenever a debugger starts there.
- R sources ``.Rprofile`` and Octave ``.octaverc`` from the current directory at every start;
  IRB and Pry load ``.irbrc`` and ``.pryrc`` from it; Bun runs the ``preload`` scripts of
  ``bunfig.toml`` before every ``bun run`` and ``bun test``.
- Toolchain choosers: rustup's proxies read ``rust-toolchain.toml`` (or ``rust-toolchain``)
  from the directory and its parents for every ``cargo``/``rustc`` — its ``path =`` makes
  them run the programs of any directory, and rust-analyzer runs ``cargo metadata`` as soon as
  an editor opens the folder; ``rust-analyzer.toml`` can replace the commands it runs; asdf and
  mise take each tool's program from ``.tool-versions`` (a ``path:`` version is any directory;
  asdf asks nothing); mise's ``mise.toml`` (``.mise.toml``, ``mise.local.toml``,
  ``mise.<env>.toml``, ``.mise/``, ``mise/config.toml``) runs hooks and ``_.source`` scripts
  when a shell enters the directory — mise asks to trust a file once, by its path, so a
  trusted file rewritten later runs without a question.
- Version control that runs hooks: Mercurial's ``.hg/hgrc``, jj's ``.jj/repo/config.toml``
  and ``.jj/repo/config/`` (``.hg/`` and ``.jj/`` are protected whole, like ``.git/``; the
  programs themselves write there, so a sandboxed ``hg``/``jj`` that changes the repository
  asks, as ``git`` would without its own profile); ``.hgrc`` and ``.jjconfig.toml`` are the
  user's configuration wherever they are; lefthook's ``lefthook.yml`` (and ``-local``,
  ``.json``, ``.toml`` forms) lists the commands its installed git hooks run on every commit,
  as ``.pre-commit-config.yaml`` does for pre-commit (``protected``).
- Editors that start programs named in the project: Zed's ``.zed/`` and Helix's ``.helix/``
  (language server binaries, tasks) — ``.vscode/`` and ``.idea/`` are in ``protected``; a
  VS Code ``*.code-workspace`` file (its settings, tasks and launch configurations apply when
  the file is opened) and IntelliJ's shared run configurations in ``.run/``. Editors that run
  a file of the folder they open: Vim's and Neovim's ``.exrc``, ``.vimrc``, ``.nvimrc`` and
  ``.nvim.lua`` (with ``'exrc'`` set; Vim asks nothing, and Neovim's trust is by content, so
  the question it asks about a changed file is one more prompt to click through), Emacs's
  ``.dir-locals.el`` and ``.dir-locals-2.el`` (``eval:`` forms, and variables the user once
  marked safe, apply on every visit).
- Bazelisk reads ``.bazeliskrc`` for the bazel it downloads and runs (``BAZELISK_BASE_URL``,
  ``USE_BAZEL_VERSION``, ``BAZELISK_SKIP_WRAPPER``): any program from any server.

Left out on purpose: ``.gdbinit`` and ``.lldbinit`` in the current directory are refused by
GDB's auto-load safe-path and LLDB's ``target.load-cwd-lldbinit`` unless the user allowed them;
IPython and Jupyter stopped loading configuration from the current directory
(CVE-2022-21699, CVE-2022-39286); pyenv and rbenv reject version names that leave their
versions directory, so ``.python-version`` and ``.ruby-version`` only name installed versions.
Node has no start-up file of its own (``NODE_OPTIONS`` is an environment variable); what npm,
yarn and pnpm run from the workspace (``.npmrc``, ``.yarnrc.yml``, ``.pnpmfile.cjs``) is in
``protected``'s list. Modules and build files that run only when imported or named
(``conftest.py``, ``setup.py``, ``Makefile``, ``eslint.config.js``, a package's own code) are the
workspace's code, which the person runs by choice and reviews in the diff: left to the mode.

Left to the mode as well, by decision: the workspace virtualenv's installed packages
(``.venv/lib/python*/site-packages/<package>/``), its ``bin/`` scripts (``bin/activate``,
``bin/pip``) and ``node_modules/.bin``. They run code later too, but they are exactly where
``pip install``, ``uv sync`` and ``npm install`` write as ordinary work inside a sandboxed
command; protecting them would turn every dependency change into a question (and make the
sandbox useless for installing), and a planted package is as much the workspace's code as a
changed ``Makefile``. Only the files that run at *every* start of that Python whatever the
person runs (``.pth``, ``sitecustomize``, ``pyvenv.cfg``) are protected inside it; and when
toolbelt itself runs from that virtualenv, the whole of it is toolbelt's own installation and
stays read-only (``own_install``).

A sandboxed command may still create a ``pyvenv.cfg`` (``VIRTUALENV_MADE``): making a new
virtualenv is ordinary work, and it is new code the person chooses to run; changing the
configuration of one they already use is what is dangerous, and there the existing file is
read-only (``sandbox.profiles``) and write tools ask.

Names arrive already folded by ``protected`` (lower case, trailing dots and spaces dropped).
"""

from __future__ import annotations

__all__ = ["VIRTUALENV_MADE", "startup_directory_reason", "startup_file_reason"]

VIRTUALENV_MADE = frozenset({"pyvenv.cfg"})
"""Start-up files that making a new virtualenv creates: not undone when a command makes them."""

_SITE_DIRECTORIES = frozenset({"site-packages", "dist-packages"})
_CUSTOMIZE = frozenset({"sitecustomize", "usercustomize"})
_DIRECTORIES = {
    ".hg": ".hg/ holds Mercurial's repository configuration and the hooks hg runs",
    ".jj": ".jj/ holds jj's repository configuration, including programs jj runs",
    ".mise": ".mise/ holds mise configuration whose hooks run when a shell enters the directory",
    ".zed": ".zed/ holds editor settings that start language servers and tasks",
    ".helix": ".helix/ holds editor settings that choose the language servers helix starts",
    ".run": ".run/ holds IDE run configurations that start programs",
}
_FILES = {
    "pyvenv.cfg": "pyvenv.cfg chooses the Python installation a virtualenv starts",
    ".pdbrc": ".pdbrc is run by pdb whenever a debugger starts in this directory",
    ".rprofile": ".Rprofile is run by R at every start in this directory",
    ".octaverc": ".octaverc is run by Octave at every start in this directory",
    ".irbrc": ".irbrc is run by irb at every start in this directory",
    ".pryrc": ".pryrc is run by pry at every start in this directory",
    "bunfig.toml": "bunfig.toml names preload scripts bun runs before every run and test",
    "rust-toolchain": "rust-toolchain chooses the programs every cargo and rustc here runs",
    "rust-toolchain.toml": "rust-toolchain.toml chooses the programs every cargo and rustc "
    "here runs",
    "rust-analyzer.toml": "rust-analyzer.toml sets the commands rust-analyzer runs when an "
    "editor opens the project",
    ".tool-versions": ".tool-versions chooses the programs asdf and mise run for each tool",
    ".hgrc": ".hgrc configures Mercurial, including the hooks it runs",
    ".jjconfig.toml": ".jjconfig.toml configures jj, including programs it runs",
    ".exrc": ".exrc is run by vim and neovim when they open this folder",
    ".vimrc": ".vimrc is run by vim when it opens this folder",
    ".nvimrc": ".nvimrc is run by neovim when it opens this folder",
    ".nvim.lua": ".nvim.lua is run by neovim when it opens this folder",
    ".dir-locals.el": ".dir-locals.el sets (and can eval) Emacs variables for every file here",
    ".dir-locals-2.el": ".dir-locals-2.el sets (and can eval) Emacs variables for every file here",
    ".bazeliskrc": ".bazeliskrc chooses the bazel program bazelisk downloads and runs",
}
_LEFTHOOK = frozenset({"lefthook", "lefthook-local"})
_LEFTHOOK_FORMATS = frozenset({"yml", "yaml", "json", "jsonc", "toml"})


def startup_directory_reason(name: str) -> str | None:
    """Why a directory (or any entry) named ``name`` holds start-up code, or None: a
    ``sitecustomize``/``usercustomize`` package or a tool's configuration directory (``.hg``)
    protects everything beneath it."""
    if name.partition(".")[0] in _CUSTOMIZE:
        return f"{name} is imported by Python's site module at every start of Python"
    return _DIRECTORIES.get(name)


def startup_file_reason(name: str, parent: str) -> str | None:
    """Why the file ``name`` in a directory named ``parent`` runs (or chooses what runs) when
    a program starts, or None."""
    if name.endswith(".pth") and parent in _SITE_DIRECTORIES:
        return f"{name} in {parent} runs at every start of the Python that owns it"
    found = _FILES.get(name) or startup_directory_reason(name)
    if found is not None:
        return found
    stem, _, suffix = name.lstrip(".").rpartition(".")
    if suffix == "toml" and (stem == "mise" or stem.startswith("mise.")):
        return f"{name} configures mise, whose hooks run when a shell enters the directory"
    if name == "config.toml" and parent == "mise":
        return "mise/config.toml configures mise, whose hooks run when a shell enters it"
    if suffix == "code-workspace":
        return f"{name} holds VS Code settings, tasks and launch configurations"
    if stem in _LEFTHOOK and suffix in _LEFTHOOK_FORMATS:
        return f"{name} lists the commands lefthook's git hooks run on every commit"
    return None
