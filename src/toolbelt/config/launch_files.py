"""What a program-starting entry runs, as far as trust can pin it: one parser for hooks and MCP
entries.

An approved entry is words (``python server.py``, ``sh -c 'exec python3 srv.py'``, ``npm run
lint``); what runs is what the words resolve to when it starts. Were only the words pinned, a
``git pull`` rewriting ``server.py`` behind an approved ``.mcp.json`` would run the new code
unasked. So a pin (``config.launches``) also holds the SHA-256 of every workspace file the
entry reaches, found by one walk (``launch_of_argv`` for an MCP entry's command and args,
``launch_of_shell`` for a hook's shell text) that follows what runs:

- the words as they will run: ``${VAR}`` expanded (MCP entries), each simple command of shell
  text parsed out of it (``commands.analysis``), wrappers stripped (``env X=1``, ``timeout
  5``, ``nice``: ``commands.wrappers``), ``$TOOLBELT_PROJECT_DIR`` and
  ``$CLAUDE_PROJECT_DIR`` standing for the workspace, a ``cd`` moving where later words are
  read, and the code of ``sh -c CODE`` (``bash -lc``, ``npx -c``) read as shell text in turn;
- the program itself (a path, or a bare name on ``PATH``'s absolute entries), the script of
  a shell or interpreter (its first operand), and every other argument that can run (an
  executable, a source suffix, a ``#!`` line) — data files are not pinned, so a server's
  database does not hold it back after its first run;
- package runners (``npx``, ``pnpm exec``, ``yarn exec``, ``bunx``, ``npm exec``): the
  project's ``node_modules/.bin/PKG``; ``uv run``/``poetry run``…: the command after it, found
  in ``.venv/bin`` first;
- task runners: ``npm``/``pnpm``/``yarn``/``bun run SCRIPT`` (and ``npm test``, ``yarn
  lint``): the script's text in the nearest ``package.json`` — pinned by its value, not the
  whole file, with its ``pre``/``post`` scripts — read as shell text with ``node_modules/.bin``
  first on ``PATH``; ``make``, ``just``, ``docker compose``, ``rake``, ``tox``, ``gradle``,
  ``mvn``, ``cargo``…: the files that hold their tasks (``-f``, ``-C`` honoured);
- programs that load code from configuration: ``prettier``'s ``.prettierrc`` and the plugins
  it names by path, ``eslint.config.js``, ``jest.config.js``, the top ``conftest.py`` of
  ``pytest`` (``commands.programs.CODE_CONFIG``).

Only files whose lexical or real path lies in the workspace count (a committed symlink counts,
and so does what it points to): the user's own system is not the repository's.

**What cannot be pinned is said at trust time** (``Launch.unpinned``): a package a runner
fetches from the registry (``npx -y pkg``, ``uvx``, ``pipx run``, ``pnpm dlx``), a program
found nowhere, a program word known only when it runs (``$(…)``), a script ``package.json``
lacks, what a task runner's recipes reach (``commands.programs.IMPLICIT_CODE``: ``pytest``'s
other ``conftest.py`` files, ``make``'s recipes). What a pinned file loads in turn (a server's
imported modules) is not pinned either: those run, like everything these entries start, inside
the sandbox (``runners.runner``).

A file is read only up to ``MAX_PINNED_BYTES``; a larger one cannot be pinned and so is never
approved (its entry does not start, and the notice says why).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from toolbelt.commands.programs import (
    CODE_CONFIG,
    IMPLICIT_CODE,
    INTERPRETERS,
    PACKAGE_RUNNERS,
    REGISTRY_RUNNERS,
    RUNNERS,
    SCRIPT_RUNNERS,
    SHELLS,
    TASK_FILES,
    WRAPPERS,
)
from toolbelt.core.programs import absolute_path
from toolbelt.paths.containment import is_within
from toolbelt.paths.small_read import read_small

__all__ = [
    "MAX_PINNED_BYTES",
    "TOO_LARGE",
    "Launch",
    "Pinned",
    "ScriptPin",
    "file_digests",
    "hook_files",
    "hooks_section_launch",
    "launch_of_argv",
    "launch_of_shell",
    "named_files",
    "pinned_path",
]

MAX_PINNED_BYTES = 64 * 1024 * 1024
"""The most of a named file read to pin it (a big server binary hashes in well under 0.1 s)."""
TOO_LARGE = "too-large"
"""Stands for a file over ``MAX_PINNED_BYTES``: never equal to a digest, so never approved."""
_MANIFEST_BYTES = 4 * 1024 * 1024
"""The most of a ``package.json`` or ``.prettierrc`` read to find what it names."""

_CODE_SUFFIXES = frozenset(
    {".py", ".pyw", ".pyz", ".pyc", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"}
    | {".sh", ".bash", ".zsh", ".ksh", ".fish", ".rb", ".pl", ".pm", ".php", ".lua", ".r"}
    | {".jar", ".wasm", ".go", ".java", ".kt", ".kts", ".swift", ".exs", ".ex", ".clj", ".tcl"}
    | {".groovy", ".awk", ".ps1"}
)
_RUNS_ITS_OPERAND = SHELLS | INTERPRETERS.keys() | RUNNERS | WRAPPERS
"""Programs whose first operand is a script or program they run (``commands.programs``)."""
_ENV_RUNNERS = frozenset({"uv", "poetry", "pipenv", "hatch", "pdm", "rye"})
"""``X run COMMAND``: the command runs in the project's environment (``.venv/bin`` first)."""
_BUILTINS = frozenset(
    {"cd", "export", "set", "unset", "exit", "return", "shift", "local", "read", "wait", "trap",
     "true", "false", ":", "test", "[", "echo", "printf", "pwd", "readonly", "declare",
     "typeset", "alias", "type", "command", "builtin", "exec", "times", "ulimit", "umask"}
)  # fmt: skip
_VERSION = re.compile(r"[\d.]+$")
_PROJECT_DIR = re.compile(
    r"\$\{(?:TOOLBELT|CLAUDE)_PROJECT_DIR\}"  # ${TOOLBELT_PROJECT_DIR}
    r"|\$(?:TOOLBELT|CLAUDE)_PROJECT_DIR\b"  # $TOOLBELT_PROJECT_DIR
)
_PLACEHOLDER = "TOOLBELTPROJECTDIRd41d8cd9"
_PATH_WORD = re.compile(r"[\w./@+-]*\.\w{1,5}\b|[\w.@+-]*/[\w./@+-]+")
"""What looks like a file name in inline code (``srv.py``, ``./lib/run``)."""
_MAX_NESTING = 6


@dataclass(frozen=True, slots=True)
class ScriptPin:
    """A ``package.json`` script, pinned by its value (the rest of the file is not code the
    entry runs, and changes with every dependency added)."""

    package: Path
    name: str

    @property
    def key(self) -> str:
        return f"{self.package} (script {self.name})"


Pinned = Path | ScriptPin
"""What a pin holds a digest of: a whole file, or one script of a ``package.json``."""


@dataclass
class Launch:
    """What an entry runs: what trust pins, and what it cannot (one phrase each)."""

    pinned: list[Pinned] = field(default_factory=list)
    unpinned: list[str] = field(default_factory=list)

    @property
    def files(self) -> list[Path]:
        """The whole files pinned."""
        return [item for item in self.pinned if isinstance(item, Path)]


def launch_of_argv(
    argv: Sequence[str], cwd: Path, workspace: Path, path: str | None = None
) -> Launch:
    """What the command ``argv``, started in ``cwd`` with ``path`` as its ``PATH``, runs of
    ``workspace`` (see the module's docstring)."""
    walk = _Walk(workspace)
    walk.argv(list(argv), Path(os.path.realpath(cwd)), path, 0)
    return walk.launch


def launch_of_shell(
    command: str, workspace: Path, *, cwd: Path | None = None, path: str | None = None
) -> Launch:
    """What the shell text ``command`` (a hook's), run in ``cwd`` (the workspace), runs of
    ``workspace``."""
    walk = _Walk(workspace)
    walk.shell(command, Path(os.path.realpath(cwd or workspace)), path, 0)
    return walk.launch


def named_files(
    argv: Sequence[str], cwd: Path, workspace: Path, path: str | None = None
) -> list[Path]:
    """The workspace files the command ``argv`` reaches (``launch_of_argv``), as absolute
    paths (lexical, not resolved), first seen first."""
    return launch_of_argv(argv, cwd, workspace, path).files


def hook_files(command: str, workspace: Path) -> list[Path]:
    """The workspace files a hook's shell ``command``, run in ``workspace``, reaches."""
    return launch_of_shell(command, workspace).files


def hooks_section_launch(hooks: Mapping[str, Any], workspace: Path) -> Launch:
    """What the command hooks of a settings file's ``hooks`` section run (in the workspace)."""
    walk = _Walk(workspace)
    for groups in hooks.values():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks", ()) if isinstance(group, dict) else ()
            for handler in handlers if isinstance(handlers, list) else ():
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str):
                    walk.shell(command, Path(os.path.realpath(workspace)), None, 0)
    return walk.launch


class _Walk:
    """One walk over what an entry runs, gathering a ``Launch``."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.launch = Launch()

    def pin(self, item: Pinned) -> None:
        inside = not isinstance(item, Path) or _inside(item, self.workspace)
        if inside and item not in self.launch.pinned:
            self.launch.pinned.append(item)

    def note(self, text: str) -> None:
        if text not in self.launch.unpinned:
            self.launch.unpinned.append(text)

    def shell(self, text: str, cwd: Path, path: str | None, depth: int) -> None:
        """Each simple command of the shell ``text`` (a ``cd`` moves where later ones are)."""
        if depth > _MAX_NESTING:
            self.note("nests shell code deeper than toolbelt follows")
            return
        text = _PROJECT_DIR.sub(_PLACEHOLDER, text)  # a plain word: the parse stays the same
        from toolbelt.commands.analysis import analyze_command  # the bash parser: only here

        analysis = analyze_command(text)
        if not analysis.parse_ok:
            self.note(f"`{_short(text)}` is shell text toolbelt cannot parse")
        for simple in analysis.commands:
            if simple.dynamic:
                self.note(f"`{_short(simple.text)}` names its program only when it runs")
                continue
            argv = [word.replace(_PLACEHOLDER, str(self.workspace)) for word in simple.argv]
            if argv and argv[0] == "cd" and len(argv) == 2:
                cwd = Path(os.path.normpath(cwd / argv[1]))
                continue
            self.argv(argv, cwd, path, depth)

    def argv(self, words: list[str], cwd: Path, path: str | None, depth: int) -> None:
        """The simple command ``words``, run in ``cwd``."""
        from toolbelt.commands.wrappers import unwrap  # loaded with the first entry to pin

        argv = unwrap(words, [False] * len(words)).argv
        if not argv or depth > _MAX_NESTING:
            return
        word, name = argv[0], _name(argv[0])
        if name in ("source", "."):
            script = _existing(argv[1], cwd) if len(argv) > 1 else None
            if script is not None:
                self.pin(script)
            return
        if name == "eval":
            self.note(f"`{_short(' '.join(argv))}` runs text it builds when it runs")
            return
        program = _program_file(word, cwd, path)
        if program is not None:
            self.pin(program)
        elif name not in _BUILTINS:
            self.note(f"`{word}` is found neither on PATH nor in the workspace now")
        self._operands(argv, name, cwd)
        self._inline(argv, name, cwd)
        code = _shell_code(argv)
        if code is not None:
            self.shell(code, cwd, path, depth + 1)
        self._runners(argv, name, cwd, path, depth)
        self._tasks(argv, name, cwd, path, depth)

    def _operands(self, argv: list[str], name: str, cwd: Path) -> None:
        """The script of a shell or interpreter, and every argument that can run."""
        interpreter = name in _RUNS_ITS_OPERAND
        operand_seen = False
        for word in argv[1:]:
            value = word.partition("=")[2] if word.startswith("--") and "=" in word else word
            script = interpreter and not operand_seen and not word.startswith("-")
            operand_seen = operand_seen or not word.startswith("-")
            candidate = _existing(value, cwd)
            if candidate is not None and (script or _can_run(candidate)):
                self.pin(candidate)

    def _inline(self, argv: list[str], name: str, cwd: Path) -> None:
        """The workspace files an interpreter's inline code names (``python -c
        "runpy.run_path('srv.py')"``, ``node -e "require('./srv.js')"``) and that can run."""
        flag = INTERPRETERS.get(name)
        if not flag or flag not in argv[1:-1]:
            return
        code = argv[argv.index(flag, 1) + 1]
        for word in dict.fromkeys(_PATH_WORD.findall(code)):
            found = _existing(word, cwd)
            if found is not None and _can_run(found):
                self.pin(found)

    def _runners(self, argv: list[str], name: str, cwd: Path, path: str | None, depth: int) -> None:
        """Package runners (a local bin, or the registry) and environment runners."""
        words = argv[1:]
        sub = words[0] if words else ""
        if name in REGISTRY_RUNNERS and (REGISTRY_RUNNERS[name] is None or sub in (
            REGISTRY_RUNNERS[name] or ()
        )):  # fmt: skip
            rest = words if REGISTRY_RUNNERS[name] is None else words[1:]
            package = _operand(rest[1:] if rest[:1] == ["run"] else rest)
            self.note(f"`{name}` runs `{package or '?'}` from the package registry")
            return
        if name in _ENV_RUNNERS and sub == "run":
            rest = _after_options(words[1:])
            venv = f"{cwd / '.venv' / 'bin'}:{path if path is not None else os.defpath}"
            if rest:
                self.argv(rest, cwd, venv if _existing(rest[0], cwd) is None else path, depth + 1)
            return
        subcommands = PACKAGE_RUNNERS.get(name, frozenset())
        if not (name in PACKAGE_RUNNERS and (subcommands is None or sub in subcommands)):
            return
        rest = words if subcommands is None else words[1:]
        call = _option_value(rest, "-c", "--call")
        if call is not None:
            self.shell(call, cwd, _with_bins(cwd, self.workspace, path), depth + 1)
            return
        package = _option_value(rest, "-p", "--package") or _operand(rest)
        if package is None:
            return
        registry = name in ("pnpm", "yarn") and sub == "dlx"
        found = [] if registry else _local_bins(package, cwd, self.workspace)
        for binary in found:
            self.pin(binary)
        if not found and "--no-install" not in rest and "--offline" not in rest:
            self.note(f"`{name}` runs `{package}` from the package registry")

    def _tasks(self, argv: list[str], name: str, cwd: Path, path: str | None, depth: int) -> None:
        """Scripts of ``package.json``, task files, configuration that holds code."""
        words = argv[1:]
        if name == "docker" and words[:1] == ["compose"]:
            name, words = "docker-compose", words[1:]
        script = _script_name(name, words, cwd, self.workspace)
        if script is not None:
            self._script(name, script, cwd, path, depth)
        if name in TASK_FILES:
            for file in _task_files(name, words, cwd, self.workspace):
                self.pin(file)
        for config in CODE_CONFIG.get(name, ()):
            found = cwd / config
            if found.is_file():
                self.pin(found)
                if name == "prettier":
                    self._plugins(found)
        if name in IMPLICIT_CODE:
            self.note(f"`{name}` {IMPLICIT_CODE[name]}")

    def _script(self, runner: str, script: str, cwd: Path, path: str | None, depth: int) -> None:
        """``npm run SCRIPT``: the script (and its ``pre``/``post``) pinned by value and read
        as shell text with the project's ``node_modules/.bin`` first on PATH."""
        package = _nearest(cwd, "package.json", self.workspace)
        scripts = _scripts(package) if package is not None else None
        if package is None or scripts is None or script not in scripts:
            where = package or "no package.json"
            self.note(f"`{runner}` runs the script `{script}`, which {where} does not hold")
            return
        bins = _with_bins(package.parent, self.workspace, path)
        for name in (f"pre{script}", script, f"post{script}"):
            if isinstance(scripts.get(name), str):
                self.pin(ScriptPin(package, name))
                self.shell(scripts[name], package.parent, bins, depth + 1)

    def _plugins(self, config: Path) -> None:
        """The plugins a ``.prettierrc`` (JSON or YAML) names: a path is pinned, a package
        name is said (it loads from ``node_modules``, whatever is there)."""
        for plugin in _prettier_plugins(config):
            if plugin.startswith((".", "/")):
                found = _existing(plugin, config.parent)
                if found is not None:
                    self.pin(found)
                    continue
            self.note(f"prettier loads the plugin `{plugin}` that {config.name} names")


# -- finding files ------------------------------------------------------------------------


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


def _nearest(start: Path, name: str, workspace: Path) -> Path | None:
    """``name`` in ``start`` or the nearest directory above it, up to the workspace root."""
    top = Path(os.path.realpath(workspace))
    for directory in (start, *start.parents):
        if (directory / name).is_file():
            return directory / name
        if directory == top or not is_within(directory, top):
            return None
    return None


def _local_bins(package: str, cwd: Path, workspace: Path) -> list[Path]:
    """``node_modules/.bin/NAME`` of the nearest project that has it (``@scope/pkg@1.2``: the
    package's name and its last part, as npm names its bins)."""
    bare = package[:1] + package[1:].partition("@")[0]
    names = sorted({bare, bare.rpartition("/")[2]})
    top = Path(os.path.realpath(workspace))
    for directory in (cwd, *cwd.parents):
        folder = directory / "node_modules" / ".bin"
        found = [folder / name for name in names if (folder / name).is_file()]
        if found or directory == top or not is_within(directory, top):
            return found
    return []


def _with_bins(directory: Path, workspace: Path, path: str | None) -> str:
    """``path`` with every ``node_modules/.bin`` from ``directory`` up to the workspace first,
    as npm runs scripts."""
    top = Path(os.path.realpath(workspace))
    bins = []
    for above in (directory, *directory.parents):
        bins.append(str(above / "node_modules" / ".bin"))
        if above == top or not is_within(above, top):
            break
    return os.pathsep.join([*bins, path if path is not None else os.environ.get("PATH", "")])


def _scripts(package: Path) -> dict[str, Any] | None:
    data = read_small(package, _MANIFEST_BYTES)
    try:
        loaded = json.loads(data) if data is not None else None
    except ValueError:
        return None
    scripts = loaded.get("scripts") if isinstance(loaded, dict) else None
    return scripts if isinstance(scripts, dict) else None


def _script_name(name: str, words: list[str], cwd: Path, workspace: Path) -> str | None:
    """The ``package.json`` script ``name words`` runs, if it runs one."""
    subcommands = SCRIPT_RUNNERS.get(name)
    if subcommands is None or not words:
        return None
    sub = words[0]
    if sub in ("run", "run-script", "rum", "urn"):
        return _operand(words[1:])
    if sub in subcommands:
        return {"t": "test", "tst": "test"}.get(sub, sub)
    if name == "yarn" and not sub.startswith("-"):  # `yarn lint` runs the script `lint`
        package = _nearest(cwd, "package.json", workspace)
        scripts = _scripts(package) if package is not None else None
        return sub if scripts is not None and sub in scripts else None
    return None


def _task_files(name: str, words: list[str], cwd: Path, workspace: Path) -> list[Path]:
    """The files a task runner reads its tasks from (``-f FILE``, ``-C DIR`` honoured)."""
    directory = cwd
    chdir = _option_value(words, "-C", "--directory") or _option_value(words, "-d")
    if chdir is not None and name in ("make", "gmake", "just"):
        directory = Path(os.path.normpath(cwd / chdir))
    named = _option_values(words, "-f", "--file", "--makefile", "--justfile")
    if named and name not in ("gradle", "mvn", "cargo", "tox"):
        return [path for f in named if (path := _existing(f, directory)) is not None]
    candidates = [directory / f for f in TASK_FILES[name]]
    if name in ("just",):  # just looks upwards
        found = _nearest(directory, TASK_FILES[name][0], workspace)
        candidates = [found] if found is not None else candidates
    existing = [path for path in candidates if path.is_file()]
    whole = name in ("gradle", "mvn", "cargo", "tox")
    return existing if whole else existing[:1]


def _prettier_plugins(config: Path) -> list[str]:
    data = read_small(config, _MANIFEST_BYTES)
    if data is None or config.suffix in (".js", ".cjs", ".mjs", ".ts"):
        return []  # code: pinned whole, what it imports is its own
    try:
        import yaml  # JSON is YAML too

        loaded = yaml.safe_load(data.decode("utf-8", "replace"))
    except (ValueError, yaml.YAMLError):
        return []
    plugins = loaded.get("plugins") if isinstance(loaded, dict) else None
    return [p for p in plugins if isinstance(p, str)] if isinstance(plugins, list) else []


# -- words --------------------------------------------------------------------------------


def _operand(words: Sequence[str]) -> str | None:
    """The first word that is not an option."""
    return next((word for word in words if not word.startswith("-")), None)


def _after_options(words: Sequence[str]) -> list[str]:
    """``words`` from the first operand on (``uv run --with x ruff .`` → ``ruff .``)."""
    valued = {"--with", "--python", "-p", "--env-file", "--directory", "--project", "--extra"}
    index = 0
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in valued else 1
    return list(words[index:])


def _option_value(words: Sequence[str], *names: str) -> str | None:
    found = _option_values(words, *names)
    return found[0] if found else None


def _option_values(words: Sequence[str], *names: str) -> list[str]:
    """The values of the options ``names`` (``-f X``, ``-fX``, ``--file=X``, ``--file X``)."""
    values: list[str] = []
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                values.append(words[index + 1])
            elif name.startswith("--") and word.startswith(name + "="):
                values.append(word[len(name) + 1 :])
            elif not name.startswith("--") and word.startswith(name) and len(word) > 2:
                values.append(word[2:])
    return values


def _shell_code(argv: Sequence[str]) -> str | None:
    """The code of ``sh -c CODE`` (``bash -lc`` too), else None."""
    if not argv or _name(argv[0]) not in SHELLS:
        return None
    for index, word in enumerate(argv[1:-1], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word:
            return argv[index + 1]
    return None


def _name(word: str) -> str:
    """``/usr/bin/python3.11`` → ``python``."""
    return _VERSION.sub("", os.path.basename(word)).lower() or os.path.basename(word).lower()


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "…"


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


# -- digests ------------------------------------------------------------------------------


def pinned_path(key: str) -> str:
    """The file a pin's key names (a script's key names its ``package.json``)."""
    path, found, _ = key.rpartition(" (script ")
    return path if found and key.endswith(")") else key


def file_digests(pinned: Iterable[Pinned]) -> dict[str, str]:
    """Each pinned item's SHA-256 (``TOO_LARGE`` past the bound), by its key: a file by its
    path as named, a script by ``PACKAGE (script NAME)``; an item that is not there now has
    none."""
    digests: dict[str, str] = {}
    for item in pinned:
        digest = _script_digest(item) if isinstance(item, ScriptPin) else _digest(item)
        if digest is not None:
            digests[item.key if isinstance(item, ScriptPin) else str(item)] = digest
    return digests


def _script_digest(pin: ScriptPin) -> str | None:
    scripts = _scripts(pin.package)
    value = scripts.get(pin.name) if scripts is not None else None
    if not isinstance(value, str):
        return None
    return hashlib.sha256(value.encode()).hexdigest()


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
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")
