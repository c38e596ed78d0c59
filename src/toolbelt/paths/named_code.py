"""Files that protected configuration names as code: protected as the configuration is.

A protected name (``.git/``, ``.yarnrc.yml``, ``.npmrc``, ``.pre-commit-config.yaml``…) is
launch configuration: it makes a program the user starts for another purpose run something.
Often what it runs is another file of the workspace, which no name marks: git runs the hooks
of ``core.hooksPath = .githooks`` on the user's next ``git commit``, yarn runs the
``yarnPath`` release (``.yarn/releases/yarn-4.cjs``) as itself, Maven's ``.mvn/jvm.config``
loads ``-javaagent:lib/agent.jar`` into every build, bazel runs ``tools/bazel`` in its place.
Keeping the configuration read-only and leaving what it names writable protects nothing. So
the configuration is read (bounded, never blocking: ``small_read``) and each workspace file
it names as code is protected too — for the path guard and policy (writing it asks, in every
mode) and for the sandbox (read-only for commands; created, moved aside).

The readers (``_READERS``), each for one tool's configuration:

- **git** (``.git/config``, its ``config.worktree``, and the files their ``include.path`` /
  ``includeIf.*.path`` name, which are protected themselves; and the user's own
  ``~/.gitconfig``, whose relative ``core.hooksPath`` points into every repository), for the
  workspace's repository and those nested in it that a user may commit in (its submodules,
  and the repositories directly below its root):
  ``core.hooksPath``, and the program of every key whose value git runs (``core.fsmonitor``,
  ``core.sshCommand``, ``core.pager``, ``core.editor``, ``filter.*.clean|smudge|process``,
  ``diff.*.textconv|command``, ``merge.*.driver``, ``gpg.program``, ``credential.helper``,
  ``alias.*`` with ``!``…) when it is a path;
- **yarn**: ``yarnPath`` and ``plugins[].path`` of ``.yarnrc.yml``, ``yarn-path`` of ``.yarnrc``;
- **npm**: ``node-options`` (``--require``/``-r``/``--import``/``--loader``) and
  ``script-shell`` of ``.npmrc``;
- **Maven**: the agents, jars and class-path entries ``.mvn/jvm.config`` names (``.mvn/`` is a
  protected name itself);
- **bazel**: ``tools/bazel`` of a bazel workspace (``WORKSPACE``, ``MODULE.bazel``);
- **pre-commit**: the ``entry`` of each ``repo: local`` hook of ``.pre-commit-config.yaml``.

Paths are taken relative to the workspace root (git's hooks path and commands run from the
top of the work tree), only when they lie inside it; ``~`` is the user's home.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

from toolbelt.paths.small_read import read_small_text

__all__ = ["named_code"]

_CONFIG_BYTES = 1024 * 1024
_GIT_COMMAND_KEYS = re.compile(
    r"^(core\.(fsmonitor|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand)"
    r"|sequence\.editor|gpg\.(\w+\.)?program|gpg\.ssh\.defaultkeycommand|credential\.(.+\.)?helper"
    r"|(filter|diff|merge)\..+\.(clean|smudge|process|textconv|command|driver)"
    r"|(difftool|mergetool)\..+\.cmd|pager\..+|alias\..+|uploadpack\.packobjectshook"
    r"|submodule\..+\.update)$"
)
_MAX_INCLUDES = 10
GIT_HOOKS = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout",
    "post-merge", "pre-push", "pre-receive", "update", "proc-receive", "post-receive",
    "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite",
    "sendemail-validate", "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
    "p4-post-changelist", "p4-pre-submit", "post-index-change",
)  # fmt: skip
"""The hooks git runs (githooks(5)), protected by name when ``core.hooksPath`` is the work
tree itself (``.``)."""


def named_code(root: Path, *, home: Path) -> dict[Path, str]:
    """The workspace files ``root``'s protected configuration names as code, each with why."""
    found: dict[Path, str] = {}
    top = Path(os.path.realpath(root))
    for reader in _READERS:
        for path, reason in reader(top, home):
            lexical = Path(os.path.normpath(path))
            if _inside(lexical, top) and lexical != top:
                found.setdefault(lexical, reason)
    return found


# -- git --------------------------------------------------------------------------------


def _git(root: Path, home: Path) -> Iterator[tuple[Path, str]]:
    for top in (root, *_nested_repositories(root)):
        yield from _git_repository(top, home)


def _nested_repositories(root: Path) -> list[Path]:
    """The work trees of the repositories inside ``root`` a user may commit in: the
    submodules ``.gitmodules`` lists and the directories just below the root holding a
    ``.git`` of their own (a deeper one is not looked for: that would be a walk of the whole
    workspace at every start)."""
    found: list[Path] = []
    text = read_small_text(root / ".gitmodules", _CONFIG_BYTES) or ""
    for key, value in _git_entries(text):
        if key.startswith("submodule.") and key.endswith(".path"):
            found.append(root / value)
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        entries = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False) and os.path.lexists(Path(entry.path) / ".git"):
            found.append(Path(entry.path))
    return [top for top in dict.fromkeys(found) if top != root]


def _git_dir(top: Path) -> Path:
    """The git directory of the work tree ``top`` (a ``.git`` file's ``gitdir:``)."""
    dot_git = top / ".git"
    if os.path.isdir(dot_git):
        return dot_git
    text = read_small_text(dot_git, 4096) or ""
    first = text.splitlines()[0] if text else ""
    if first.startswith("gitdir:"):
        return top / first.removeprefix("gitdir:").strip()
    return dot_git


def _git_repository(root: Path, home: Path) -> Iterator[tuple[Path, str]]:
    git_dir = _git_dir(root)
    files = [git_dir / "config", git_dir / "config.worktree"]
    user_files = [home / ".gitconfig", home / ".config" / "git" / "config"]
    seen: set[Path] = set()
    pending = [(f, True) for f in files] + [(f, False) for f in user_files]
    count = 0
    while pending and count < _MAX_INCLUDES * 4:
        file, own = pending.pop(0)
        count += 1
        if file in seen:
            continue
        seen.add(file)
        text = read_small_text(file, _CONFIG_BYTES)
        if text is None:
            continue
        for key, value in _git_entries(text):
            if key in ("include.path",) or (key.startswith("includeif.") and key.endswith(".path")):
                included = _at(value, file.parent, home)
                yield included, f"{file} includes it as git configuration"
                pending.append((included, own))
            elif key == "core.hookspath":
                hooks = Path(os.path.normpath(_at(value, root, home)))
                why = f"{file} names it as git's hooks directory"
                if os.path.realpath(hooks) == os.path.realpath(root):  # `.`: hooks by name
                    for name in GIT_HOOKS:
                        yield root / name, f"{file} makes git run it as a hook"
                elif not _inside(root, hooks):  # above the work tree: outside the workspace
                    yield hooks, why
            elif own and _GIT_COMMAND_KEYS.match(key):
                program = _program_of(value.removeprefix("!"), root, home)
                if program is not None:
                    yield program, f"{file} names it as a program git runs ({key})"


def _git_entries(text: str) -> Iterator[tuple[str, str]]:
    """``(section.key, value)`` of git configuration text, keys lower-cased (the subsection
    kept as written), values unquoted."""
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            header = line[1 : line.find("]")] if "]" in line else line[1:]
            name, _, sub = header.partition(" ")
            sub = sub.strip().strip('"')
            if not sub and "." in name:  # [section.sub] old style
                name, _, sub = name.partition(".")
            section = f"{name.lower()}.{sub}" if sub else name.lower()
            rest = line[line.find("]") + 1 :].strip() if "]" in line else ""
            if not rest:
                continue
            line = rest
        key, equals, value = line.partition("=")
        yield f"{section}.{key.strip().lower()}", _git_value(value) if equals else "true"


def _git_value(value: str) -> str:
    out: list[str] = []
    quoted = False
    index = 0
    while index < len(value):
        char = value[index]
        if char == '"':
            quoted = not quoted
        elif char == "\\" and index + 1 < len(value):
            index += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(value[index], value[index]))
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        index += 1
    return "".join(out).strip()


# -- other tools --------------------------------------------------------------------------


def _yarn(root: Path, home: Path) -> Iterator[tuple[Path, str]]:
    data = _yaml(root / ".yarnrc.yml")
    if isinstance(data, dict):
        if isinstance(data.get("yarnPath"), str):
            yield root / data["yarnPath"], ".yarnrc.yml names it as the program yarn runs"
        for plugin in data.get("plugins") or ():
            path = plugin.get("path") if isinstance(plugin, dict) else plugin
            if isinstance(path, str):
                yield root / path, ".yarnrc.yml names it as a yarn plugin"
    text = read_small_text(root / ".yarnrc", _CONFIG_BYTES) or ""
    for line in text.splitlines():
        words = _split(line)
        if len(words) >= 2 and words[0] in ("yarn-path", "yarnPath"):
            yield root / words[1], ".yarnrc names it as the program yarn runs"


def _npm(root: Path, home: Path) -> Iterator[tuple[Path, str]]:
    text = read_small_text(root / ".npmrc", _CONFIG_BYTES) or ""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        key = key.strip().lower()
        if key == "script-shell" and value.strip():
            yield root / value.strip(), ".npmrc names it as the shell npm runs scripts with"
        elif key == "node-options":
            words = _split(value)
            for index, word in enumerate(words):
                name, _, attached = word.partition("=")
                if name in ("--require", "-r", "--import", "--loader", "--experimental-loader"):
                    target = attached or (words[index + 1] if index + 1 < len(words) else "")
                    if target.startswith((".", "/")):
                        yield root / target, ".npmrc makes node load it in every script"


def _maven(root: Path, home: Path) -> Iterator[tuple[Path, str]]:
    text = read_small_text(root / ".mvn" / "jvm.config", _CONFIG_BYTES) or ""
    for word in _split(text.replace("\n", " ")):
        for prefix in ("-javaagent:", "-agentpath:", "-Xbootclasspath/a:", "-Xbootclasspath/p:"):
            if word.startswith(prefix):
                for part in word[len(prefix) :].partition("=")[0].split(os.pathsep):
                    if part:
                        yield root / part, ".mvn/jvm.config loads it into every Maven build"
        if word.endswith(".jar") and not word.startswith("-"):
            yield root / word, ".mvn/jvm.config loads it into every Maven build"


def _bazel(root: Path, home: Path) -> Iterator[tuple[Path, str]]:
    markers = ("WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel", ".bazelversion")
    if any(os.path.lexists(root / marker) for marker in markers):
        yield root / "tools" / "bazel", "bazel runs tools/bazel in its place in this workspace"


def _pre_commit(root: Path, home: Path) -> Iterator[tuple[Path, str]]:
    data = _yaml(root / ".pre-commit-config.yaml")
    repos = data.get("repos") if isinstance(data, dict) else None
    for repo in repos if isinstance(repos, list) else ():
        if not isinstance(repo, dict) or repo.get("repo") != "local":
            continue
        for hook in repo.get("hooks") or ():
            entry = hook.get("entry") if isinstance(hook, dict) else None
            program = _program_of(entry, root, home) if isinstance(entry, str) else None
            if program is not None:
                reason = ".pre-commit-config.yaml names it as a hook pre-commit runs"
                yield program, reason


_READERS: tuple[Callable[[Path, Path], Iterator[tuple[Path, str]]], ...] = (
    _git,
    _yarn,
    _npm,
    _maven,
    _bazel,
    _pre_commit,
)


# -- helpers ------------------------------------------------------------------------------


def _yaml(path: Path) -> object:
    text = read_small_text(path, _CONFIG_BYTES)
    if text is None:
        return None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


def _program_of(command: str, root: Path, home: Path) -> Path | None:
    """The program a command value runs when it is a path (``./x.sh --y``, ``~/bin/x``)."""
    words = _split(command)
    if not words or ("/" not in words[0] and not words[0].startswith("~")):
        return None
    return _at(words[0], root, home)


def _at(value: str, base: Path, home: Path) -> Path:
    """``value`` as a path: ``~/`` is the home, a relative one is beneath ``base``."""
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return base / value


def _inside(path: Path, top: Path) -> bool:
    """Whether ``path`` is ``top`` or beneath it, as written or resolved."""
    prefix = str(top).rstrip("/") + "/"
    return any(
        text == str(top) or text.startswith(prefix) for text in (str(path), os.path.realpath(path))
    )
