"""git settings that start programs, neutralised for commands in an untrusted workspace.

A cloned repository carries its own ``.git/config`` (and embedded repositories carry theirs):
``core.fsmonitor``, ``diff.external``, ``filter.*.clean``, ``diff.*.textconv``,
``core.hooksPath``… run programs on ``git status`` or ``git diff`` — commands the analysis
calls read-only. Until the user trusts the workspace, every command the bash tool runs starts
with ``GIT_CONFIG_COUNT`` overrides (they win over every config file): the keys that start a
program get a harmless value, the drivers the repositories define (found with ``git config``
itself, which starts none of them) are overridden by name, and ``safe.bareRepository=explicit``
stops a bare-looking directory from being used as a repository. A driver or ``diff.external``
the repository sets is overridden with "" (git then reports "cannot run" instead of running
it) or with ``cat`` where that gives git's plain output (clean, smudge, textconv).
In a trusted workspace git behaves as the user's. The look-up runs git as a leaf
(``procs.tree.run_leaf``): ``git config`` starts no process. It is not run at all where a
file git would read first is a FIFO, socket or device (``git_files.blocking_git_file``): the
look-up would wait on it until its timeout, and the command's own git, confined, reads
every such file of the git directory as empty (``Sandbox.secret_files``).
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from toolbelt.core.programs import program
from toolbelt.procs.tree import run_leaf
from toolbelt.shell.git_files import blocking_git_file

__all__ = ["FIXED_OVERRIDES", "git_overrides", "overrides_env", "shell_exports"]

FIXED_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("safe.bareRepository", "explicit"),
    ("core.fsmonitor", ""),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", "ssh"),
    ("core.gitProxy", ""),
    ("core.askPass", ""),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("credential.helper", ""),
    ("gpg.program", "gpg"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.x509.program", "gpgsm"),
    ("gpg.ssh.defaultKeyCommand", ""),
    ("protocol.ext.allow", "never"),
)
_DRIVERS = (
    r"^(diff\.external|core\.alternateRefsCommand"
    r"|(filter|diff|merge)\..+\.(clean|smudge|process|textconv|command|driver)"
    r"|(difftool|mergetool|browser)\..+\.cmd|credential\..+\.helper|submodule\..+\.update"
    r"|remote\..+\.(uploadpack|receivepack|proxy)|pager\..+|alias\..+)$"
)
_SAFE_VALUE = {"clean": "cat", "smudge": "cat", "textconv": "cat", "driver": "false"}


def git_overrides(directories: Iterable[Path], env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The overrides for git run in ``directories``: fixed keys plus the drivers they define."""
    overrides = list(FIXED_OVERRIDES)
    base = dict(env) | overrides_env(overrides)
    git = program("git")
    for directory in dict.fromkeys(directories):
        if git is None:
            break
        if blocking_git_file(Path(directory), base) is not None:
            continue  # git would wait on it; confined, the command's git sees it empty
        try:
            found = run_leaf(
                [git, "config", "--name-only", "--get-regexp", _DRIVERS],
                cwd=directory,
                env=base,
                timeout=10,
            ).stdout.decode(errors="replace")
        except (OSError, subprocess.SubprocessError):
            continue
        for key in found.split():  # an alias "!cmd" runs a shell command (bypass asks nothing)
            overrides.append((key, _SAFE_VALUE.get(key.rpartition(".")[2], "")))
    return list(dict.fromkeys(overrides))


def overrides_env(overrides: list[tuple[str, str]]) -> dict[str, str]:
    """``overrides`` as ``GIT_CONFIG_COUNT`` variables, which win over every config file."""
    env = {"GIT_CONFIG_COUNT": str(len(overrides))}
    for index, (key, value) in enumerate(overrides):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def shell_exports(overrides: list[tuple[str, str]]) -> str:
    """A shell line exporting ``overrides`` (run before each command, so none can undo it)."""
    pairs = " ".join(f"{k}={shlex.quote(v)}" for k, v in overrides_env(overrides).items())
    return f"export {pairs}"
