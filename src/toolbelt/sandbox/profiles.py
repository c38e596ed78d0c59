"""Which paths a sandboxed command may read and write, as lists a backend can enforce.

Two profiles:

- **workspace** (every command the user approved, and those the sandbox lets run without a
  prompt): the system and the home directory readable except the user's secrets; the
  workspace roots writable except their protected entries (``.git/``, ``.toolbelt/``,
  ``.claude/``, ``.mcp.json``, ``.vscode/`` … — see ``paths.protected``), which stay
  read-only (mounted so, see ``mounts``; a protected name that does not exist yet can be
  created, at any depth, and is removed when the command ends — see ``created``); a
  private temporary directory writable; ``/proc`` without the process directories (see
  ``proc_entries``).
- **read-only** (commands the analysis judged read-only and let through without asking): no
  writes anywhere but ``/dev/null``; reads limited to the roots, the system directories and
  the user's git configuration; never the network.

What is hidden and what stays read-only is the session's ``paths.protections.Protections``:
the same catalogue the path guard and the permission policy use.

Landlock only grants, so "readable except ``~/.ssh``" is written as grants on every sibling
of ``~/.ssh`` and of each of its ancestors (``cover``), with the ancestors themselves
listable but their own files closed. Entries created later beside a secret are not covered
(they are unreadable until the shell restarts); a secret created later is never readable.
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
    "Grants",
    "cover",
    "git_code_outside",
    "readonly_grants",
    "virtualenv_sites",
    "virtualenv_startup_files",
    "workspace_grants",
]

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
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
    """The roots' unprotected entries: granted one by one where no mount namespace can be
    made (then nothing can be created directly in a root)."""


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
    git_dirs: Sequence[Path] = (),
) -> Grants:
    """The workspace profile: see the module docstring; ``extra_secrets`` are hidden with the
    ``protections``' hidden locations. With ``git``, the profile for git's
    own writes (``git add``, ``git commit`` … that the user approved): ``.git/`` is writable
    but for what makes git run programs (``GIT_CODE``) — where mounts can say so; where they
    cannot, ``.git/`` stays read-only (a grant on it would reach its hooks). ``nested`` are
    the protected entries that exist below the roots' top level (``sub/.git``, ``crate/
    rust-toolchain.toml``, see ``created``): read-only as the top level's are. ``git_dirs``
    (git profile only): git directories outside the roots that git's own writes need — a
    linked worktree's and the main repository's it shares (``git_code_outside``) — writable
    but for their code, as a root's ``.git/`` is."""
    hidden = _hidden(protections, extra_secrets)
    readable, listable = cover(Path("/"), (*hidden, Path("/proc")))
    readable += proc_entries()
    entries: list[str] = []
    protected: list[str] = []
    own = protections.installation_inside_roots()
    deeper = [Path(p) for path in nested for p in _kept(path, git=git)]
    # what protected configuration names as code (`core.hooksPath`'s directory…): read-only
    deeper += [path for path in protections.named_code() if os.path.lexists(path)]
    for root in roots:
        more, kept = _writable_entries(root, protections)
        for entry in more:  # a secret, toolbelt's own install or a nested protected entry
            entries += cover(Path(entry), (*hidden, *own, *deeper))[0]  # inside: grant around
        if git and os.path.isdir(root / ".git") and not os.path.islink(root / ".git"):
            kept.remove(str(root / ".git"))
            kept += [str(root / ".git" / n) for n in GIT_CODE if os.path.lexists(root / ".git" / n)]
        protected += kept + virtualenv_startup_files(root, protections)
    outside = git_code_outside(git_dirs) if git else []
    protected = list(dict.fromkeys([*protected, *map(str, own), *map(str, deeper), *outside]))
    # granted like a root: whole where mounts keep its code read-only, else not at all
    linked = [str(d) for d in git_dirs] if git else []
    write = [str(p) for p in writable] + list(DEVICES)
    return Grants(
        tuple(readable),
        tuple(listable),
        tuple(write),
        tuple(str(h) for h in hidden),
        tuple(protected),
        tuple(dict.fromkeys([*(str(r) for r in roots), *linked])),
        tuple(entries),
    )


def readonly_grants(
    roots: Sequence[Path],
    *,
    home: Path,
    protections: Protections,
    readable: Sequence[Path] = (),
    extra_secrets: Iterable[Path] = (),
) -> Grants:
    """The read-only profile: see the module docstring (the git configuration read from
    ``home``)."""
    hidden = _hidden(protections, extra_secrets)
    read: list[str] = []
    listable: list[str] = []
    bases = [Path(p) for p in SYSTEM_DIRS if os.path.lexists(p)]
    bases += [*roots, *readable, *(home / name for name in GIT_CONFIG)]
    for base in (b for b in bases if os.path.lexists(b)):
        more_read, more_list = cover(_real(base), hidden)
        read += more_read
        listable += more_list
    read += [p for p in SYSTEM_FILES if os.path.exists(p)] + proc_entries()
    return Grants(
        tuple(dict.fromkeys(read)),
        tuple(dict.fromkeys(listable)),
        ("/dev/null",),
        tuple(str(h) for h in hidden),
    )


def git_code_outside(git_dirs: Sequence[Path]) -> list[str]:
    """What of the git directories ``git_dirs`` stays read-only in the git profile: their
    ``GIT_CODE`` entries, except that the main repository's ``worktrees/`` is kept read-only
    entry by entry, all but the one of ``git_dirs`` (a linked worktree's own git directory,
    which git writes: its ``HEAD``, ``index`` and logs), whose own ``config.worktree``,
    ``commondir`` and ``gitdir`` stay read-only."""
    kept: list[str] = []
    own = {os.path.realpath(d) for d in git_dirs}
    for directory in git_dirs:
        for name in GIT_CODE:
            path = directory / name
            if not os.path.lexists(path):
                continue
            inner = [os.path.join(path, n) for n in _names(path)] if name == "worktrees" else []
            if any(os.path.realpath(i) in own for i in inner):
                kept += [i for i in inner if os.path.realpath(i) not in own]
            else:
                kept.append(str(path))
        if (directory / "gitdir").exists():
            kept.append(str(directory / "gitdir"))
    return list(dict.fromkeys(kept))


def _names(directory: Path) -> list[str]:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


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
    named = set(protections.named_code())
    for name in names:
        path = str(root / name)
        kept = protections.entry_reason(root, name) or root / name in named
        (protected if kept else writable).append(path)
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
