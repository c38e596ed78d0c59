"""Modules planted in a repository under the names of real ones, each leaving a mark when run.

A repository may hold ``zlib.py``, ``json.py`` or an ``encodings/`` package; Python run from
its directory would import them in place of the real ones. Tests plant such shadows, run the
real toolbelt there, and check that no mark was left: none of them ran.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = ["marks_left", "plant_shadows"]


def plant_shadows(
    directory: Path, marks: Path, modules: Iterable[str], packages: Iterable[str] = ()
) -> None:
    """``name.py`` for each of ``modules`` and ``name/__init__.py`` for each of ``packages``
    in ``directory``; importing one creates the file ``marks/name`` (``marks`` is made here)."""
    marks.mkdir()
    for name in modules:
        (directory / f"{name}.py").write_text(f"open({str(marks / name)!r}, 'w').write('ran')\n")
    for name in packages:
        (directory / name).mkdir()
        (directory / name / "__init__.py").write_text(f"open({str(marks / name)!r}, 'w')\n")


def marks_left(marks: Path) -> list[str]:
    """The names of the planted modules that ran, sorted (``[]``: none did)."""
    return sorted(path.name for path in marks.iterdir())
