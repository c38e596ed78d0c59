"""The OS sandbox every tool command runs in: the wall that holds when the analysis misses.

The command analysis decides whether to *ask*; what a command can *do* is decided here, by
the kernel. ``Sandbox.wrap`` turns ``bash …`` into an argv that starts it confined:

- **landlock** (default where the kernel has it — Linux ≥ 5.13; TCP rules ≥ 6.7): the
  ``confine`` launcher applies a Landlock ruleset (``profiles``) and a seccomp filter
  (``seccomp``), then execs bash. No binary needed; works as root and in containers. Where
  user namespaces work it first makes a private mount namespace (``mounts``): everything
  read-only but the writable grants, protected entries and secrets covered — which Landlock
  alone cannot do inside a writable workspace, nor for file metadata.
- **bwrap** (bubblewrap, when installed and chosen): a mount namespace — the system read-only,
  the roots bound writable with protected entries re-bound read-only, secrets hidden under
  empty mounts, a private ``/tmp`` and ``/proc`` (other processes invisible), a PID namespace
  (nothing survives the shell), no network namespace unless allowed — plus the same seccomp
  filter, and Landlock for the read-only profile where the kernel has it.
- **off**: commands run unconfined and only the analysis stands between them and the machine.

``auto`` picks landlock, else bwrap, else says once, loudly, on stderr that there is none.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolbelt.core.errors import UsageError
from toolbelt.paths.containment import is_beneath
from toolbelt.paths.protections import Protections
from toolbelt.paths.small_read import read_small_text
from toolbelt.sandbox.backends import choose_backend, namespaces_work
from toolbelt.sandbox.confine import launcher_argv
from toolbelt.sandbox.created import CreatedWatch
from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.profiles import (
    GIT_CODE,
    Grants,
    readonly_grants,
    virtualenv_sites,
    workspace_grants,
)
from toolbelt.sandbox.quarantine import quarantine
from toolbelt.sandbox.runner_policy import Network, RunnerPolicy, network_ports

__all__ = [
    "MODES",
    "Confined",
    "Network",
    "Profile",
    "RunnerPolicy",
    "Sandbox",
    "SandboxSettings",
    "choose_backend",
    "network_ports",
]

MODES = ("auto", "landlock", "bwrap", "off")
Profile = Literal["workspace", "readonly", "git"]


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """``"sandbox": {"mode": …, "network": "off" | "on" | ["host:port", …]}`` of settings."""

    mode: str = "auto"
    network: str | tuple[str, ...] = "off"
    secrets: tuple[Path, ...] = ()
    """More files the sandbox must hide (the HTTP server's token file)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UsageError(f"Unknown sandbox mode {self.mode!r}; choose one of {MODES}.")
        if isinstance(self.network, str) and self.network not in ("off", "on"):
            raise UsageError(
                f'Unknown sandbox network {self.network!r}; use "off", "on" or a list of '
                '"host:port" strings.'
            )
        network_ports(self.network)

    @property
    def ports(self) -> tuple[int, ...] | None:
        """TCP ports commands may connect to: None for any, () for none."""
        return network_ports(self.network)


class Sandbox:
    """One session's sandbox: the backend and the paths its profiles grant.

    What it hides and keeps read-only is ``protections``, the session's catalogue (default:
    one built from ``roots`` and ``home``, for a sandbox used on its own).
    """

    def __init__(
        self,
        settings: SandboxSettings,
        roots: Sequence[Path],
        *,
        temp_dir: Path,
        state_dir: Path,
        home: Path | None = None,
        protections: Protections | None = None,
    ) -> None:
        self.settings = settings
        self.backend = choose_backend(settings.mode)
        if self.backend is not None and settings.ports and abi_version() < 4:
            raise UsageError(
                "sandbox.network lists ports, which needs Landlock ABI 4 (Linux 6.7+) to "
                'enforce; use "off", or "on" to allow every connection.'
            )
        self._roots = tuple(roots)
        self._temp_dir = temp_dir
        self._state_dir = state_dir
        self._home = home or Path(os.environ.get("HOME") or Path.home())
        self.protections = (
            protections if protections is not None else Protections(self._roots, home=self._home)
        )
        self._watch = CreatedWatch(self._roots, named=self.protections.named_code())
        state = Path(os.environ.get("XDG_STATE_HOME") or self._home / ".local" / "state")
        self._quarantine = (state if home is None else self._home / ".local" / "state") / (
            "toolbelt/quarantine"
        )
        """Where protected entries commands created are moved (persistent: never lost)."""
        self._jobs: list[Callable[[], int | None]] = []  # confined jobs not yet checked
        self._pending: list[str] = []  # what a check before a command removed, to report

    @property
    def active(self) -> bool:
        return self.backend is not None

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` with the private temporary directory as ``TMPDIR``."""
        if not self.active:
            return dict(env)
        self._temp_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        return {**env, "TMPDIR": str(self._temp_dir)}

    def grants(self, profile: Profile, *, git_dirs: Sequence[Path] = ()) -> Grants:
        """What ``profile`` may read and write (computed afresh: roots change on disk);
        ``git_dirs``: git directories outside the roots the git profile may write but for
        their code (a linked worktree's, see ``profiles.workspace_grants``)."""
        if profile == "readonly":
            return readonly_grants(
                self._roots,
                home=self._home,
                protections=self.protections,
                readable=(self._state_dir, *linked_git_dirs(self._roots)),
                extra_secrets=self.settings.secrets,
            )
        return workspace_grants(
            self._roots,
            protections=self.protections,
            writable=(self._temp_dir, self._state_dir / "exports.sh"),
            extra_secrets=self.settings.secrets,
            git=profile == "git",
            nested=self._watch.nested(),
            git_dirs=git_dirs if profile == "git" else (),
        )

    def layout(self, profile: Profile) -> object:
        """What the grants of ``profile`` depend on that can change while a shell runs: the
        protected entries at any depth (``nested``: the watch is brought up to date first,
        unless confined jobs run, whose creations it must not accept), and under Landlock the
        entries of the roots, granted one by one. A shell whose layout changed is restarted,
        so a directory created by write_file is writable in it, and a ``sub/.envrc`` it
        created is mounted read-only. With mounts, the protected names and the virtualenvs'
        ``site-packages`` (by ctime, which a command cannot set back as it can the mtime: a
        ``.pth`` an approved ``pip install`` added between commands is mounted read-only for
        the next one, see ``virtualenv_startup_files``)."""
        if self.backend is None or profile == "readonly":
            return None
        if not self._jobs:
            self._watch.baseline()
        nested = tuple(self._watch.nested())
        if self.backend != "landlock" or namespaces_work():  # roots granted whole
            listings = [_entries(root) for root in self._roots]
            named = frozenset(str(p) for p in self.protections.named_code())
            return nested, tuple(
                (
                    frozenset(
                        n
                        for n in names
                        if self.protections.entry_reason(root, n) or str(root / n) in named
                    ),
                    tuple((str(site), _changed(site)) for _, site in virtualenv_sites(root)),
                )
                for root, names in zip(self._roots, listings, strict=True)
            )
        return nested, tuple(_entries(root) for root in self._roots)

    def protected_names(self) -> frozenset[Path]:
        """The protected entries the roots hold now (``.git``, ``.mcp.json`` …, and what in
        ``.git/`` makes git run programs, which the git profile leaves read-only)."""
        found: set[Path] = set()
        for root in self._roots:
            found.update(
                root / name for name in _entries(root) if self.protections.entry_reason(root, name)
            )
            found.update(
                root / ".git" / name for name in _entries(root / ".git") if name in GIT_CODE
            )
        found.update(p for p in self.protections.named_code() if os.path.lexists(p))
        return frozenset(found)

    def before_command(self) -> frozenset[Path]:
        """What ``remove_created`` compares with, taken as a confined command starts: the
        protected entries of the roots and of ``.git/``, and the watch of every directory."""
        if self._jobs:  # what appeared may be a confined job's doing: it is not accepted
            self._pending += self.check_jobs()
        else:
            self._watch.baseline()
        return self.protected_names()

    def watch_job(self, poll: Callable[[], int | None]) -> None:
        """Watch a confined background job (``poll`` is its process's): until it has ended
        and been checked, protected names that appear anywhere are removed, not accepted."""
        if self._jobs:
            self._pending += self.check_jobs()
        else:
            self._watch.baseline()
        self._jobs.append(poll)

    def check_jobs(self, *, by: str = "a background job") -> list[str]:
        """Remove the protected names created since the last look while confined jobs ran
        (when one ends, at the next command, at session close); notes for each, saying they
        were made ``by`` whom."""
        if not self._jobs:
            return []
        notes = self._remove(self._watch.created(), by=by)
        self._jobs = [poll for poll in self._jobs if poll() is None]
        return notes

    def remove_created(self, before: frozenset[Path]) -> list[str]:
        """Move aside protected entries that appeared since ``before`` (``before_command``);
        returns a note for each. Mounts can only make *existing* entries read-only, so a
        command could create a missing ``.mcp.json``, ``sub/.vscode/`` or ``sub/.git/hooks``
        anywhere in a root — code that would run later, outside any sandbox; it is undone as
        soon as the command ends (see ``created``). An entry that was there before under
        another name (a renamed directory's ``.git``) was moved, not made, and stays."""
        notes, self._pending = self._pending, []
        made = set(self._watch.created())
        made |= {p for p in self.protected_names() - before if not self._watch.known_before(p)}
        return notes + self._remove(sorted(made), by="the command")

    def _remove(self, made: list[Path], *, by: str) -> list[str]:
        """Quarantine each of ``made`` (see ``quarantine``: never deleted, never followed
        out of its root); a note for each says where it went."""
        notes = []
        for path in made:
            expected = self._watch.recorded(path)
            self._watch.forget(path)
            root = next((r for r in self._roots if is_beneath(path, r)), None)
            try:
                if root is None:
                    raise OSError(0, "it is outside the roots", str(path))
                moved = quarantine(
                    root,
                    path,
                    expected=expected,
                    directory_identity=self._watch.recorded,
                    into=self._quarantine,
                )
            except OSError as exc:
                notes.append(f"The sandbox could not move {path} aside ({exc.strerror}).")
                continue
            notes.append(
                f"The sandbox removed {self._shown(path)}, which {by} created, to {moved}: "
                "protected paths cannot be created from inside the sandbox (if it was yours, "
                "move it back). Ask the user, or retry with "
                '"sandbox": false and a "justification" (the user will be asked).'
            )
        return notes

    def _shown(self, path: Path) -> str:
        """``path`` relative to the root holding it (``sub/.git``), else absolute."""
        for root in self._roots:
            if is_beneath(path, root):
                return str(path.relative_to(root))
        return str(path)

    def wrap(
        self,
        argv: Sequence[str],
        profile: Profile,
        *,
        cwd: Path,
        network: Network | None = None,
        git_dirs: Sequence[Path] = (),
    ) -> list[str]:
        """``argv`` confined by ``profile``; unchanged when the sandbox is off. ``network``:
        what the program may connect to, when not the settings' ``network`` (a runner's own
        policy); ``git_dirs``: see ``grants``."""
        if self.backend is None:
            return list(argv)
        self._temp_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        grants = self.grants(profile, git_dirs=git_dirs)
        wanted = self.settings.ports if network is None else network_ports(network)
        ports = () if profile == "readonly" else wanted
        connects = ports != ()
        if self.backend == "landlock":
            spec = {"landlock": _landlock_spec(grants, ports), "seccomp_network": connects}
            return launcher_argv(spec, list(argv))
        from toolbelt.sandbox.bwrap import bwrap_argv

        inner: dict[str, object] = {"seccomp_network": connects}
        if abi_version() >= 1 and (profile == "readonly" or ports):
            # bwrap's own mounts already keep protected entries read-only: grant roots whole
            rules = _landlock_spec(grants, ports)
            rules.update(write=[*grants.write, *grants.roots], roots=[], mount=False)
            inner["landlock"] = rules
        return bwrap_argv(grants, launcher_argv(inner, list(argv)), cwd=cwd, network=connects)

    def confinement(
        self,
        profile: Profile,
        *,
        cwd: Path,
        network: Network | None = None,
        git_dirs: Sequence[Path] = (),
    ) -> Confined | None:
        """How to start a program confined by ``profile`` in ``cwd``, for a process tree's
        ``confine`` (``procs.tree``); None when the sandbox is off. ``network`` and
        ``git_dirs``: see ``wrap``."""
        if not self.active:
            return None
        return Confined(self, profile, cwd, network, tuple(git_dirs))


@dataclass(frozen=True, slots=True)
class Confined:
    """A program started inside ``sandbox`` with ``profile`` (``procs.tree.Confinement``)."""

    sandbox: Sandbox
    profile: Profile
    cwd: Path
    network: Network | None = None
    git_dirs: tuple[Path, ...] = ()

    def wrap(self, argv: Sequence[str]) -> list[str]:
        return self.sandbox.wrap(
            argv, self.profile, cwd=self.cwd, network=self.network, git_dirs=self.git_dirs
        )

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return self.sandbox.environment(env)


def linked_git_dirs(roots: Sequence[Path]) -> tuple[Path, ...]:
    """The git directories that live outside the roots: a worktree's or submodule's ``.git``
    is a file naming its git directory (``gitdir: …``), whose ``commondir`` names the main
    repository's; read-only commands such as ``git status`` must be able to read them."""
    found: list[Path] = []
    for root in roots:
        marker = root / ".git"
        text = read_small_text(marker, 4096)  # a directory (the usual case) or none: None
        first = text.splitlines()[0] if text else ""
        if not first.startswith("gitdir:"):
            continue
        git_dir = (root / first.removeprefix("gitdir:").strip()).resolve()
        found.append(git_dir)
        common = (read_small_text(git_dir / "commondir", 4096) or "").strip()
        if not common:
            continue
        found.append((git_dir / common).resolve())
    return tuple(path for path in found if path.is_dir())


def _changed(path: Path) -> int:
    try:
        return os.stat(path).st_ctime_ns
    except OSError:
        return 0


def _entries(root: Path) -> frozenset[str]:
    try:
        return frozenset(os.listdir(root))
    except OSError:
        return frozenset()


def _landlock_spec(grants: Grants, ports: tuple[int, ...] | None) -> dict[str, object]:
    return {
        "read": grants.read,
        "list_only": grants.list_only,
        "write": grants.write,
        "mount": True,  # a private mount namespace where it can be made (see mounts)
        "hidden": grants.hidden,
        "roots": grants.roots,
        "entries": grants.entries,
        "protected": grants.protected,
        "connect_ports": None if ports is None else list(ports),
        "scoped": True,
    }
