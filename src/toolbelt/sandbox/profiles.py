"""Which paths a sandboxed command may read and write, as lists a backend can enforce.

Three profiles (and the git profile, the workspace one with ``.git/`` writable but what makes
git run programs):

- **workspace** (commands the user approved — asked, allowed by a rule or by bypass mode):
  the system and the home directory readable except the user's secrets; the workspace roots
  writable except their protected entries (``.git/``, ``.toolbelt/``, ``.claude/``,
  ``.mcp.json``, ``.vscode/``, ``.env*`` … — see ``paths.protected``), which stay read-only
  (mounted so, see ``mounts``; a protected name that does not exist yet can be created, at
  any depth, and is moved aside when the command ends — see ``created``); a private
  temporary directory writable; ``/proc`` without the process directories (see
  ``proc_entries``).
- **read-only** and **create** (commands that run *without a prompt*, "the fewer-prompts
  rule"): reads only the quiet view — the system and toolchain trees (``SYSTEM_DIRS``, the
  home's ``TOOLCHAINS``), the user's git configuration and the roots, with every
  secret-named file in them (``.env``, ``.env.*``) and every hard link to a secret hidden as
  the home's secrets are; never the network. The read-only profile writes nothing but
  ``/dev/null``; the create profile may create files and directories in the roots (not
  protected names) and use a private temporary directory, but not change, truncate, rename
  or delete what exists (Landlock grants it ``CREATE`` only, see ``landlock``): what would
  have needed a prompt is impossible there.

What is hidden and what stays read-only is the session's ``paths.protections.Protections``:
the same catalogue the path guard and the permission policy use.

Landlock only grants, so "readable except ``~/.ssh``" is written as grants on every sibling
of ``~/.ssh`` and of each of its ancestors (``cover``), with the ancestors themselves
listable but their own files closed. Entries created later beside a secret are not covered
(they are unreadable until the shell restarts); a secret created later is never readable.
Where a private mount namespace can be made the secrets are covered by mounts instead, and
the roots are granted whole (``roots``); else each root's entries are (``entries``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolbelt.paths.containment import is_within
from toolbelt.paths.protections import Protections

__all__ = [
    "SYSTEM_DIRS",
    "TOOLCHAINS",
    "Grants",
    "cover",
    "create_grants",
    "readonly_grants",
    "virtualenv_sites",
    "virtualenv_startup_files",
    "workspace_grants",
]

SYSTEM_DIRS = (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
    "/home/linuxbrew/.linuxbrew",
)  # fmt: skip
"""The system trees the quiet view reads (``/etc``'s secrets hidden); not ``/home``, ``/root``,
``/tmp``, ``/var``, ``/srv``, ``/mnt``, ``/media``, ``/run``: other people's and other
projects' files, logs, sockets."""
TOOLCHAINS = (
    ".local/bin", ".local/lib", ".local/share/uv/python", ".local/share/uv/tools",
    ".local/share/pnpm", ".local/share/mise/installs", ".cargo/bin", ".rustup", ".pyenv",
    ".nvm", ".volta", ".bun/bin", ".deno/bin", ".sdkman/candidates", ".asdf/installs",
    ".nix-profile", "go/bin", "go/pkg/mod", ".dotnet", ".ghcup/bin", ".elan",
)  # fmt: skip
"""Where compilers, interpreters and tools live in the home directory: readable in the quiet
view (programs, not data; the credential files beside them — ``~/.cargo/credentials`` — are
not here, and the home's secrets are hidden in any case)."""
SYSTEM_FILES = ("/dev/urandom", "/dev/random", "/dev/zero", "/dev/full")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts")
GIT_CONFIG = (".gitconfig", ".config/git")
GIT_CODE = ("hooks", "config", "config.worktree", "modules", "info", "worktrees", "commondir")
"""What in ``.git/`` makes git run programs or reach other repositories: stays read-only
even for git's own writes."""


@dataclass(frozen=True, slots=True)
class Grants:
    """Path lists: readable hierarchies, listable-only directories, writable hierarchies."""

    read: tuple[str, ...] = ()
    list_only: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    hidden: tuple[str, ...] = field(default=())
    """The secrets the grants step around (for bwrap, which hides them by mounting)."""
    protected: tuple[str, ...] = field(default=())
    """Protected entries of writable roots that stay read-only (for bwrap's re-binds)."""
    roots: tuple[str, ...] = field(default=())
    """The writable roots whole, granted where ``protected`` can be mounted read-only."""
    entries: tuple[str, ...] = field(default=())
    """The roots' unprotected entries (around hidden files): granted one by one where no
    mount namespace can be made (then nothing can be created directly in a root)."""
    root_access: str = "write"
    """What ``roots`` (or ``entries``) are granted: ``write``, ``create`` (new files and
    directories only) or ``read``."""
    bases: tuple[str, ...] | None = None
    """For the quiet profiles, the readable hierarchies before ``cover`` stepped around the
    secrets: bubblewrap mounts only these (and covers the secrets after), instead of the
    whole file system; None: the whole file system is the base."""


def cover(base: Path, hidden: Sequence[Path]) -> tuple[list[str], list[str]]:
    """(readable, listable-only) paths that together reach everything below ``base`` except
    ``hidden`` and what is beneath them."""
    inside = [h for h in hidden if is_within(h, base)]
    if base in inside:
        return [], []
    if not inside:
        return [str(base)], []
    readable, listable = [], [str(base)]
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return [], []
    for entry in entries:
        more_read, more_list = cover(base / entry.name, inside)
        readable += more_read
        listable += more_list
    return readable, listable


def workspace_grants(
    roots: Sequence[Path],
    *,
    protections: Protections,
    writable: Sequence[Path] = (),
    extra_secrets: Iterable[Path] = (),
    git: bool = False,
    nested: Sequence[Path] = (),
) -> Grants:
    """The workspace profile: see the module docstring; ``extra_secrets`` are hidden with the
    ``protections``' hidden locations. With ``git``, the profile for git's
    own writes (``git add``, ``git commit`` … that the user approved): ``.git/`` is writable
    but for what makes git run programs (``GIT_CODE``) — where mounts can say so; where they
    cannot, ``.git/`` stays read-only (a grant on it would reach its hooks). ``nested`` are
    the protected entries that exist below the roots' top level (``sub/.git``, ``crate/
    rust-toolchain.toml``, see ``created``): read-only as the top level's are."""
    hidden = _hidden(protections, extra_secrets)
    readable, listable = cover(Path("/"), (*hidden, Path("/proc")))
    readable += proc_entries()
    entries, protected = _root_writes(roots, protections, hidden, nested, git=git)
    write = [str(p) for p in writable] + list(DEVICES)
    return Grants(
        tuple(readable),
        tuple(listable),
        tuple(write),
        tuple(str(h) for h in hidden),
        tuple(protected),
        tuple(str(r) for r in roots),
        tuple(entries),
    )


def _root_writes(
    roots: Sequence[Path],
    protections: Protections,
    hidden: Sequence[Path],
    nested: Sequence[Path],
    *,
    git: bool,
) -> tuple[list[str], list[str]]:
    """(the roots' unprotected entries granted around what stays closed, the protected
    entries kept read-only) — see ``workspace_grants``."""
    entries: list[str] = []
    protected: list[str] = []
    own = protections.installation_inside_roots()
    deeper = [Path(p) for path in nested for p in _kept(path, git=git)]
    for root in roots:
        more, kept = _writable_entries(root, protections)
        for entry in more:  # a secret, toolbelt's own install or a nested protected entry
            entries += cover(Path(entry), (*hidden, *own, *deeper))[0]  # inside: grant around
        if git and os.path.isdir(root / ".git") and not os.path.islink(root / ".git"):
            kept.remove(str(root / ".git"))
            kept += [str(root / ".git" / n) for n in GIT_CODE if os.path.lexists(root / ".git" / n)]
        protected += kept + virtualenv_startup_files(root, protections)
    protected = list(dict.fromkeys([*protected, *map(str, own), *map(str, deeper)]))
    return entries, protected


def readonly_grants(
    roots: Sequence[Path],
    *,
    home: Path,
    protections: Protections,
    readable: Sequence[Path] = (),
    extra_secrets: Iterable[Path] = (),
    workspace_secrets: Iterable[Path] = (),
) -> Grants:
    """The read-only profile: the quiet view (see the module docstring; the git configuration
    and toolchains read from ``home``, ``readable`` added, ``workspace_secrets`` hidden)."""
    hidden = _hidden(protections, (*extra_secrets, *workspace_secrets))
    read, listable = quiet_view(home=home, hidden=hidden, readable=readable)
    entries, root_lists = _root_covers(roots, hidden)
    return Grants(
        tuple(dict.fromkeys(read)),
        tuple(dict.fromkeys([*listable, *root_lists])),
        ("/dev/null",),
        tuple(str(h) for h in hidden),
        roots=tuple(str(r) for r in roots),
        entries=tuple(entries),
        root_access="read",
        bases=quiet_bases(home=home, readable=readable),
    )


def create_grants(
    roots: Sequence[Path],
    *,
    home: Path,
    protections: Protections,
    readable: Sequence[Path] = (),
    writable: Sequence[Path] = (),
    extra_secrets: Iterable[Path] = (),
    workspace_secrets: Iterable[Path] = (),
    nested: Sequence[Path] = (),
) -> Grants:
    """The create profile: the quiet view, and the roots granted ``create`` with their
    protected entries (``nested`` too) read-only; ``writable`` (the private temporary
    directory) fully writable."""
    hidden = _hidden(protections, (*extra_secrets, *workspace_secrets))
    read, listable = quiet_view(home=home, hidden=hidden, readable=readable)
    entries, protected = _root_writes(roots, protections, hidden, nested, git=False)
    return Grants(
        tuple(dict.fromkeys(read)),
        tuple(dict.fromkeys(listable)),
        (*(str(p) for p in writable), *DEVICES),
        tuple(str(h) for h in hidden),
        tuple(protected),
        tuple(str(r) for r in roots),
        tuple(entries),
        root_access="create",
        bases=quiet_bases(home=home, readable=readable),
    )


def quiet_bases(*, home: Path, readable: Sequence[Path] = ()) -> tuple[str, ...]:
    """The hierarchies of the quiet view, the roots aside: the system trees, the home's
    toolchains and git configuration, and ``readable`` (those that exist)."""
    bases = [Path(p) for p in SYSTEM_DIRS]
    bases += [*readable, *(home / name for name in (*GIT_CONFIG, *TOOLCHAINS))]
    return tuple(str(b) for b in bases if os.path.lexists(b))


def quiet_view(
    *, home: Path, hidden: Sequence[Path], readable: Sequence[Path] = ()
) -> tuple[list[str], list[str]]:
    """(readable, listable-only) paths of the view commands that run without a prompt get,
    the roots aside: ``quiet_bases`` around ``hidden``, the system's random devices and
    ``/proc`` without its processes."""
    read: list[str] = []
    listable: list[str] = []
    for base in quiet_bases(home=home, readable=readable):
        more_read, more_list = cover(_real(Path(base)), hidden)
        read += more_read
        listable += more_list
    read += [p for p in SYSTEM_FILES if os.path.exists(p)] + proc_entries()
    return read, listable


def _root_covers(roots: Sequence[Path], hidden: Sequence[Path]) -> tuple[list[str], list[str]]:
    """(readable, listable-only) paths reaching every root's content but ``hidden``."""
    read: list[str] = []
    listable: list[str] = []
    for root in roots:
        more_read, more_list = cover(_real(root), hidden)
        read += more_read
        listable += more_list
    return read, listable


def proc_entries() -> list[str]:
    """/proc without its process directories. Landlock's ptrace check does not stop a read
    of an unconfined process's ``/proc/<pid>/environ`` (measured on 6.18), and the
    environment a server started with can hold its token: process directories are left out,
    the sandbox's own included (``ps`` and ``/proc/self`` do not work inside)."""
    try:
        names = sorted(os.listdir("/proc"))
    except OSError:
        return []
    skip = {"self", "thread-self"}
    return [f"/proc/{name}" for name in names if not name.isdigit() and name not in skip]


def _kept(path: Path, *, git: bool) -> list[str]:
    """What of the protected entry ``path`` stays read-only: all of it, or for a repository's
    ``.git/`` in the git profile only what makes git run programs (``GIT_CODE``)."""
    if git and path.name == ".git" and path.is_dir() and not path.is_symlink():
        return [str(path / name) for name in GIT_CODE if os.path.lexists(path / name)]
    return [str(path)]


def _hidden(protections: Protections, extra: Iterable[Path]) -> tuple[Path, ...]:
    """The real paths to hide: the catalogue's, and ``extra`` (a door's own secret files)."""
    more = (Path(os.path.realpath(p)) for p in extra)
    return tuple(dict.fromkeys((*protections.hidden_locations(), *more)))


def _writable_entries(root: Path, protections: Protections) -> tuple[list[str], list[str]]:
    """(unprotected, protected) entries of ``root``."""
    writable: list[str] = []
    protected: list[str] = []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return [], []
    for name in names:
        path = str(root / name)
        (protected if protections.entry_reason(root, name) else writable).append(path)
    return writable, protected


def virtualenv_sites(root: Path) -> list[tuple[Path, Path]]:
    """(virtualenv, its ``site-packages``) for the virtualenvs at the top of ``root`` (a
    directory holding ``pyvenv.cfg``; symlinks are not followed: ``lib64 -> lib`` once)."""
    found: list[tuple[Path, Path]] = []
    try:
        tops = [Path(e.path) for e in os.scandir(root) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    for venv in (top for top in tops if os.path.isfile(top / "pyvenv.cfg")):
        for site in (*venv.glob("lib*/python*/site-packages"), *venv.glob("lib*/site-packages")):
            if not any(p.is_symlink() for p in (site, site.parent, site.parent.parent)):
                found.append((venv, site))
    return found


def virtualenv_startup_files(root: Path, protections: Protections) -> list[str]:
    """The start-up files (``pyvenv.cfg``, ``site-packages/*.pth``, ``sitecustomize``…) that
    exist in the virtualenvs at the top of ``root``: beneath a writable entry, they are kept
    read-only by a mount of their own (``_virtualenv.pth`` is in most virtualenvs, and a line
    appended to it runs at every start of that Python); a new one is caught by ``created``."""
    found: list[str] = []
    for venv, site in virtualenv_sites(root):
        found.append(str(venv / "pyvenv.cfg"))
        try:
            names = sorted(os.listdir(site))
        except OSError:
            continue
        found += (str(site / name) for name in names if protections.entry_reason(site, name))
    return list(dict.fromkeys(found))


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))
