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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from toolbelt.core.errors import UsageError
from toolbelt.paths.containment import is_beneath, is_within_any
from toolbelt.paths.protections import Protections
from toolbelt.paths.small_read import read_small_text
from toolbelt.sandbox.backends import choose_backend, namespaces_work
from toolbelt.sandbox.confine import launcher_argv
from toolbelt.sandbox.created import CreatedWatch
from toolbelt.sandbox.landlock import abi_version
from toolbelt.sandbox.profiles import (
    DEVICES,
    GIT_CODE,
    Grants,
    create_grants,
    readonly_grants,
    virtualenv_sites,
    workspace_grants,
)
from toolbelt.sandbox.quarantine import quarantine
from toolbelt.sandbox.runner_policy import Network, RunnerPolicy, network_ports
from toolbelt.sandbox.settings import MODES, SandboxSettings

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

Profile = Literal["workspace", "readonly", "create", "git", "analysis"]
"""``analysis`` is for programs that read the workspace to report on it (language servers,
checkers): the workspace profile's reads, writes only to the session's private temporary
directory, never the network — they need to write nothing of the workspace, so nothing they
do can plant a protected entry in it."""
QUIET: tuple[Profile, ...] = ("readonly", "create")
"""The profiles of commands that run without a prompt: the quiet view, no network."""


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
        self._inner_watch = CreatedWatch((), inside=True)
        """The git directories and the other protected directories of the roots (``.github/``,
        ``sub/.devcontainer/``…), which ``_watch`` does not enter, walked whole for what they
        hold that commands must not read: secret-named files, hard links to secrets, FIFOs,
        sockets and devices (``secret_files``, ``secret_twins``)."""
        state = Path(os.environ.get("XDG_STATE_HOME") or self._home / ".local" / "state")
        self._quarantine = (state if home is None else self._home / ".local" / "state") / (
            "toolbelt/quarantine"
        )
        """Where protected entries commands created are moved (persistent: never lost)."""
        self._jobs: list[Callable[[], int | None]] = []  # confined jobs not yet checked
        self._twins: dict[tuple[int, int, int], Path | None] = {}
        """What ``secret_twins`` found for each stamp of a file with other links."""
        self._pending: list[str] = []  # what a check before a command removed, to report
        self._job_names: frozenset[Path] = frozenset()
        """``protected_names`` when the confined jobs now running started being watched:
        what appears beyond it while they run (a ``.git/commondir``) was made meanwhile."""

    @property
    def active(self) -> bool:
        return self.backend is not None

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` with the private temporary directory as ``TMPDIR``."""
        if not self.active:
            return dict(env)
        self._temp_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        return {**env, "TMPDIR": str(self._temp_dir)}

    @property
    def creates(self) -> bool:
        """Whether the create profile can be enforced here: Landlock rules truncation from
        ABI 3 on (with bubblewrap too, inside its namespaces); without it a command that
        could empty an existing file gets no allowance."""
        return self.backend is not None and abi_version() >= 3

    def grants(self, profile: Profile, *, git_dirs: Sequence[Path] = ()) -> Grants:
        """What ``profile`` may read and write (computed afresh: roots change on disk);
        ``git_dirs``: git directories outside the roots the git profile may write but for
        their code (a linked worktree's, see ``profiles.workspace_grants``)."""
        if not self._watch.walked and not self._jobs:
            self._watch.baseline()  # the first look at the roots: what is hidden comes from it
        twins = self.secret_twins()
        readable = (self._state_dir / "exports.sh", *linked_git_dirs(self._roots))
        secrets = (*self.settings.secrets, *twins)
        home_twins = self.secret_twins(of_home_only=True)
        if profile == "readonly":
            return readonly_grants(
                self._roots,
                home=self._home,
                protections=self.protections,
                readable=readable,
                extra_secrets=secrets,
                workspace_secrets=self.secret_files(),
            )
        if profile == "create":
            return create_grants(
                self._roots,
                home=self._home,
                protections=self.protections,
                readable=readable,
                writable=(self._temp_dir,),
                extra_secrets=secrets,
                workspace_secrets=self.secret_files(),
                nested=self._watch.nested(),
            )
        if profile == "analysis":
            grants = workspace_grants(
                self._roots, protections=self.protections, extra_secrets=self.settings.secrets
            )
            return replace(
                grants, write=(str(self._temp_dir), *DEVICES), protected=(), roots=(), entries=()
            )
        return workspace_grants(
            self._roots,
            protections=self.protections,
            writable=(self._temp_dir, self._state_dir / "exports.sh"),
            extra_secrets=(*self.settings.secrets, *home_twins),
            git=profile == "git",
            nested=self._watch.nested(),
            git_dirs=git_dirs if profile == "git" else (),
        )

    def secret_files(self) -> tuple[Path, ...]:
        """What the quiet view hides in the roots: every file whose name makes it a secret
        (``.env``, ``.env.*``, at any depth; for a symlink so named, the file it leads to
        inside the roots), and every FIFO, socket and device (an unpacked archive's FIFO
        would hold ``find . -exec cat {} +`` until its timeout; covered, it reads as
        empty), as the last walk of the roots found them — and those inside the roots' git
        directories and other protected directories (``.github/.env``), found afresh (a
        ``.git/HEAD`` or an ``include.path`` that is a FIFO would hold ``git status`` until
        its timeout; covered, git reports the broken repository at once)."""
        inner = self._inner()
        found: list[Path] = [*self._watch.special(), *inner.special()]
        for path in (*self._watch.secret_names(), *inner.secret_names()):
            if path.is_symlink():
                real = Path(os.path.realpath(path))
                if real.is_file() and any(is_beneath(real, root) for root in self._roots):
                    found.append(real)
            else:
                found.append(path)
        return tuple(dict.fromkeys(found))

    def secret_twins(self, *, of_home_only: bool = False) -> tuple[Path, ...]:
        """The files of the roots that are another hard link of a secret (``ln .env
        notes.txt``, ``ln ~/.ssh/id_rsa key.txt`` made outside the sandbox), hidden where the
        secret is: a twin of one of the user's secrets (``of_home_only``) in every profile, a
        twin of the workspace's ``.env`` in the quiet ones."""
        found = []
        for path, stamp in (*self._watch.linked(), *self._inner().linked()):
            if stamp not in self._twins:  # once per (device, inode, ctime): pnpm links many
                self._twins[stamp] = self.protections.secret_twin(path)
            secret = self._twins[stamp]
            if secret is None:
                continue
            if of_home_only and not is_within_any(secret, self.protections.hidden_locations()):
                continue  # a twin of the workspace's `.env` (a root of `~` holds `~/.ssh` too)
            found.append(path)
        return tuple(found)

    def layout(self, profile: Profile) -> object:
        """What the grants of ``profile`` depend on that can change while a shell runs: the
        protected entries at any depth (``nested``: the watch is brought up to date first,
        unless confined jobs run, whose creations it must not accept), the hard links to
        secrets, for the quiet profiles the secret files they hide, and under Landlock the
        entries of the roots, granted one by one. A shell whose layout changed is restarted,
        so a directory created by write_file is writable in it, and a ``sub/.envrc`` it
        created is mounted read-only. With mounts, the protected names and the virtualenvs'
        ``site-packages`` (by ctime, which a command cannot set back as it can the mtime: a
        ``.pth`` an approved ``pip install`` added between commands is mounted read-only for
        the next one, see ``virtualenv_startup_files``)."""
        if self.backend is None:
            return None
        if not self._jobs:
            self._watch.baseline()
        quiet = profile in QUIET
        hidden = (self.secret_twins(of_home_only=not quiet), self.secret_files() if quiet else ())
        mounts = self.backend != "landlock" or namespaces_work()  # roots granted whole
        if profile == "readonly":  # it writes nothing: only what it must not read matters
            return hidden if mounts else (hidden, tuple(_entries(root) for root in self._roots))
        nested = tuple(self._watch.nested())
        if mounts:
            listings = [_entries(root) for root in self._roots]
            named = frozenset(str(p) for p in self.protections.named_code())
            return (
                nested,
                hidden,
                tuple(
                    (
                        frozenset(
                            n
                            for n in names
                            if self.protections.entry_reason(root, n) or str(root / n) in named
                        ),
                        tuple((str(site), _changed(site)) for _, site in virtualenv_sites(root)),
                    )
                    for root, names in zip(self._roots, listings, strict=True)
                ),
            )
        return nested, hidden, tuple(_entries(root) for root in self._roots)

    def protected_names(self) -> frozenset[Path]:
        """The protected entries the roots hold now (``.git``, ``.mcp.json`` …, and what in
        each git directory of the roots — the top's ``.git/`` and a nested repository's —
        makes git run programs, which the git profile leaves read-only where it exists and
        which must not appear where it does not: ``GIT_CODE``)."""
        found: set[Path] = set()
        for root in self._roots:
            found.update(
                root / name for name in _entries(root) if self.protections.entry_reason(root, name)
            )
        for git_dir in self._git_directories():
            found.update(git_dir / name for name in _entries(git_dir) if name in GIT_CODE)
        found.update(p for p in self.protections.named_code() if os.path.lexists(p))
        return frozenset(found)

    def _inner(self) -> CreatedWatch:
        """The watch of what the roots' git directories and other protected directories hold,
        brought up to date by a walk that rescans only the directories whose ctime changed
        (``objects/`` holds hundreds)."""
        places = tuple(dict.fromkeys((*self._git_directories(), *self._protected_directories())))
        if tuple(Path(p) for p in self._inner_watch.roots) != places:
            self._inner_watch = CreatedWatch(places, inside=True)
        self._inner_watch.baseline()
        return self._inner_watch

    def _protected_directories(self) -> list[Path]:
        """The protected directories the roots hold at any depth (``.github/``,
        ``sub/.devcontainer/``; not symlinks), as the last walk of the roots found them."""
        found = [
            root / name
            for root in self._roots
            for name in _entries(root)
            if self.protections.entry_reason(root, name)
        ]
        found += self._watch.nested()
        return [path for path in found if path.is_dir() and not path.is_symlink()]

    def _git_directories(self) -> list[Path]:
        """The git directories inside the roots that the git profile makes writable: each
        root's ``.git/`` and the nested repositories' the last walk found (not symlinks)."""
        found = [root / ".git" for root in self._roots]
        found += [path for path in self._watch.nested() if path.name == ".git"]
        return [path for path in found if path.is_dir() and not path.is_symlink()]

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
            self._job_names = self.protected_names()
        self._jobs.append(poll)

    def check_jobs(self, *, by: str = "a background job") -> list[str]:
        """Remove the protected names created since the last look while confined jobs ran
        (when one ends, at the next command, at session close); notes for each, saying they
        were made ``by`` whom."""
        if not self._jobs:
            return []
        made = set(self._watch.created())  # the walk does not enter a `.git/`: compare it
        made |= self._appeared(self._job_names)
        notes = self._remove(sorted(made), by=by)
        self._jobs = [poll for poll in self._jobs if poll() is None]
        self._job_names = self.protected_names()
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
        made |= self._appeared(before)
        return notes + self._remove(sorted(made), by="the command")

    def _appeared(self, before: frozenset[Path]) -> set[Path]:
        """The protected names present now and not in ``before``, but those moved, not made:
        an entry the walk knew under another path, and what is inside a git directory that
        was itself somewhere else before (``mv libs/vendored libs/vendor`` carries its
        ``.git/hooks``; a ``.git/`` that is new as a whole is the walk's to report)."""
        git_dirs = {p.parent for p in before if p.name in GIT_CODE}
        return {
            p
            for p in self.protected_names() - before
            if not self._watch.known_before(p) and (p.name not in GIT_CODE or p.parent in git_dirs)
        }

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
        ports = () if profile in (*QUIET, "analysis") else wanted
        connects = ports != ()
        if self.backend == "landlock":
            spec = {"landlock": _landlock_spec(grants, ports), "seccomp_network": connects}
            return launcher_argv(spec, list(argv))
        from toolbelt.sandbox.bwrap import bwrap_argv

        inner: dict[str, object] = {"seccomp_network": connects}
        if abi_version() >= 1 and (profile in (*QUIET, "analysis") or ports):
            # bwrap's own mounts already keep protected entries read-only and cover the
            # secrets: grant the roots whole
            rules = _landlock_spec(grants, ports)
            rules.update(mount=False)
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
        "root_access": grants.root_access,
        "protected": grants.protected,
        "connect_ports": None if ports is None else list(ports),
        "scoped": True,
    }
