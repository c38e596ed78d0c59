"""Run git on the workspace's repository without letting an untrusted repository run programs.

A repository's own config (``.git/config`` and what it includes) is written by whoever made the
repository, and several keys there are commands git runs during ``add`` and ``commit``:
``core.fsmonitor`` on every index read, hooks (``.git/hooks`` or ``core.hooksPath``), the
``clean``/``process`` filters ``.gitattributes`` selects, a signing program, an external diff
or textconv driver for ``--stat``. In an untrusted workspace each of them is overridden for the
invocation (``-c``, never written): fsmonitor off, hooks pointed at an empty place, every
filter the repository itself defines emptied (filters from the user's own config, such as
git-lfs, keep working), signing off when the repository names its own signer. A trusted
repository's git runs as configured — its hooks run. Nothing here changes any config.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from toolbelt.core.errors import ToolError

__all__ = ["GitResult", "GitRunner"]

_REPO_SCOPES = ("local", "worktree", "command")
_FILTER_KEY = re.compile(r"filter\.(.+)\.(clean|smudge|process|required)")
_SIGNER_KEY = re.compile(r"gpg\.(?:[^.]+\.)?program|gpg\.ssh\.defaultkeycommand")
_TIMEOUT = 120
_LOCATION_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_COMMON_DIR",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_CONFIG_PARAMETERS",  # `-c` values from a parent git (a hook running us)
    }
)
"""Environment that would point git at another repository than the workspace's."""


@dataclass(frozen=True, slots=True)
class GitResult:
    """Exit status and decoded output of one git invocation."""

    returncode: int
    stdout: str
    stderr: str


class GitRunner:
    """git in ``cwd``, with the repository's program-starting config neutralised unless trusted."""

    def __init__(self, cwd: Path, *, trusted: bool) -> None:
        self.cwd = cwd
        self.trusted = trusted
        self._overrides: list[str] | None = None

    def run(self, *args: str, stdin: str | None = None) -> GitResult:
        """Run ``git <overrides> args``; ToolError when git is missing or hangs."""
        return self._spawn([*self._neutralising(), *args], stdin)

    def _neutralising(self) -> list[str]:
        if self.trusted:
            return []
        if self._overrides is None:
            overrides = ["core.fsmonitor=false", f"core.hooksPath={os.devnull}", "gc.auto=0"]
            overrides += self._repository_programs()
            self._overrides = [part for key in overrides for part in ("-c", key)]
        return self._overrides

    def _repository_programs(self) -> list[str]:
        """Overrides for the filters and signer that the repository's own config defines."""
        listed = self._spawn(
            [
                "-c",
                "core.fsmonitor=false",
                "config",
                "--show-scope",
                "--includes",
                "--null",
                "--get-regexp",
                r"^(filter\..*|gpg\..*program|gpg\.ssh\.defaultkeycommand)$",
            ],
            None,
        )
        overrides: list[str] = []
        fields = listed.stdout.split("\0")  # scope NUL key LF value NUL, repeated
        for scope, entry in zip(fields[0::2], fields[1::2], strict=False):
            key = entry.split("\n", 1)[0]
            if scope not in _REPO_SCOPES:
                continue
            filter_key = _FILTER_KEY.fullmatch(key)
            if filter_key is not None:
                value = "false" if filter_key.group(2) == "required" else ""
                overrides.append(f"{key}={value}")
            elif _SIGNER_KEY.fullmatch(key.lower()):
                overrides.append("commit.gpgSign=false")
        return list(dict.fromkeys(overrides))

    def _spawn(self, args: list[str], stdin: str | None) -> GitResult:
        env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARIABLES}
        env.update(
            GIT_EDITOR=":",
            GIT_TERMINAL_PROMPT="0",
            GIT_LITERAL_PATHSPECS="1",
            GIT_PAGER="cat",
            LC_ALL="C",
        )
        try:
            done = subprocess.run(
                ["git", *args],
                cwd=self.cwd,
                input=(stdin or "").encode(),
                capture_output=True,
                env=env,
                timeout=_TIMEOUT,
                check=False,
            )
        except FileNotFoundError as exc:
            raise ToolError("git is not installed here; commit with the user's own tools.") from exc
        except subprocess.TimeoutExpired as exc:
            raise ToolError(
                f"git {args[-1] if args else ''} did not finish within {_TIMEOUT} s (a hook may "
                "be waiting for input); ask the user to commit by hand."
            ) from exc
        return GitResult(
            done.returncode,
            done.stdout.decode(errors="replace"),
            done.stderr.decode(errors="replace"),
        )
