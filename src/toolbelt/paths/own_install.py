"""toolbelt's own installation: the code toolbelt itself runs or imports, unconfined.

Its virtual environment (``sys.prefix``: the interpreter, the launcher script in its
``bin/``, the ``.pth`` and ``dist-info`` that make toolbelt importable, the packages it
imports later), the base installation the interpreter comes from, the interpreter's real
file, toolbelt's package directory (an editable install in its own repository), the site
directory its distribution is recorded in (a ``--user`` install), every directory on the
interpreter's ``sys.path`` (an editable install's ``.pth`` adds its whole ``src/``, where every
start looks for modules that are not installed: ``copy`` tries ``org.python.core``), the
launcher that started this process and the ``rg`` the grep tool runs. A change to any of them
runs with toolbelt's own rights the next time it starts (or imports a module lazily), before
and outside every check it makes: so they are protected like ``.git/`` — a sandboxed command
finds them read-only (``sandbox.profiles``) and a write tool asks in every mode,
accept_edits and bypass included (``OwnInstall.protection``), wherever they are, the workspace
included (a project whose ``.venv`` has toolbelt installed, or toolbelt's own repository).
Both come from the session's ``protections.Protections``.

A place that holds a workspace root itself (a project under ``/usr/src`` when Python's base
installation is ``/usr``) is left out, as the sandbox leaves it out: protecting it would
protect the whole workspace.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePath

from toolbelt.core.access import Protection
from toolbelt.core.distribution import DISTRIBUTION
from toolbelt.core.path_prefixes import PathPrefixes
from toolbelt.paths.containment import is_beneath, is_within, is_within_any

__all__ = ["OwnInstall", "install_places", "own_install"]

_REASON = "it is part of toolbelt's own installation, code toolbelt itself runs outside the sandbox"


def install_places() -> list[Path]:
    """The real paths of toolbelt's installation (see the module docstring), existing ones."""
    from toolbelt.core.programs import find_rg

    places = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent]
    places += [Path(sys.executable), Path(__file__).parents[1], *_distribution_site()]
    places += [Path(entry) for entry in sys.path if entry and os.path.isdir(entry)]
    launcher = sys.argv[0] if sys.argv else ""
    if os.path.basename(launcher) == "toolbelt" and os.path.isfile(launcher):
        places.append(Path(launcher))
    rg = find_rg()
    if rg is not None and "/" in rg:
        places.append(Path(rg))
    return list(dict.fromkeys(_real(p) for p in places if os.path.lexists(p)))


def own_install(roots: Sequence[Path], places: Iterable[Path] | None = None) -> list[Path]:
    """The places of toolbelt's installation (``places``, default ``install_places()``) that
    lie inside a root (not a root itself), outermost only: what the sandbox keeps read-only
    beneath a writable root."""
    real_roots = [_real(root) for root in roots]
    found: list[Path] = []
    for place in install_places() if places is None else places:
        inside = is_within_any(place, real_roots)
        if inside and place not in real_roots and not any(is_beneath(place, f) for f in found):
            found = [f for f in found if not is_beneath(f, place)] + [place]
    return found


@dataclass(frozen=True, slots=True)
class OwnInstall:
    """The installation's places as strings, fixed when the policy is built: the check runs
    for every path a call names, so it compares strings and touches no disk."""

    places: tuple[str, ...]
    _prefixes: PathPrefixes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_prefixes", PathPrefixes(self.places))

    @classmethod
    def around(cls, roots: Sequence[Path], places: Iterable[Path] | None = None) -> OwnInstall:
        """The places (``places``, default ``install_places()``), without those that hold one
        of ``roots`` (see the module docstring)."""
        real_roots = [_real(root) for root in roots]
        return cls(
            tuple(
                str(place)
                for place in (install_places() if places is None else places)
                if not any(is_within(root, place) for root in real_roots)
            )
        )

    def protection(self, path: PurePath | str, real: Path | None = None) -> Protection | None:
        """The protection of ``real`` (default ``path``) as toolbelt's installation, or None."""
        target = path if real is None else real
        if target in self._prefixes:
            return Protection("code", _REASON, Path(target))
        return None


@lru_cache(maxsize=1)
def _distribution_site() -> tuple[Path, ...]:
    """The directory holding toolbelt's ``dist-info`` (and the ``.pth`` of an editable
    install), when toolbelt is installed as a distribution: the first ``sys.path`` entry
    holding ``agent_toolbelt-VERSION.dist-info``, as ``importlib.metadata`` would find it
    (which costs every start tens of milliseconds of imports: email, zipfile, csv)."""
    prefix = DISTRIBUTION.replace("-", "_") + "-"
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                if any(e.name.startswith(prefix) and e.name.endswith(".dist-info") for e in found):
                    return (Path(entry or "."),)
        except OSError:
            continue
    return ()


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))
