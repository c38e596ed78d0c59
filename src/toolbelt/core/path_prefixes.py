"""A fixed set of places, and the one question asked of it on every path a call names: does
this path lie at or beneath one of them?

Asked of each place in turn (``paths.containment.is_within`` in a loop) that question cost a
read_file tens of microseconds — the installation's places alone are a dozen or more, asked
twice a call. Asked of all at once it is one ``str.startswith`` with a tuple (the loop runs in
C) and one set lookup; only a path that does lie inside one of them pays for finding which.
Paths are compared as given: absolute, normalised (resolved where resolution matters), so
``/w`` never contains ``/w-evil``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import PurePath

__all__ = ["PathPrefixes"]


class PathPrefixes:
    """Places (absolute, normalised paths) and the test for a path within one of them."""

    __slots__ = ("_exact", "_parents", "_prefixes", "places")

    def __init__(self, places: Iterable[PurePath | str]) -> None:
        texts = [os.fspath(place) for place in places]
        self.places = tuple(t.rstrip("/") if len(t) > 1 else t for t in texts)
        self._exact = frozenset(self.places)
        self._prefixes = tuple(p if p == "/" else p + "/" for p in self.places)
        self._parents = frozenset(os.path.dirname(p) for p in self.places)

    def __contains__(self, path: object) -> bool:
        """Whether ``path`` is one of the places or lies beneath one."""
        if not isinstance(path, (str, PurePath)):
            return False
        text = os.fspath(path)
        if len(text) > 1:
            text = text.rstrip("/")
        return text in self._exact or text.startswith(self._prefixes)

    def near(self, directory: PurePath | str) -> bool:
        """Whether an entry of ``directory`` can be one of the places or lie beneath one: the
        directory is a place or lies beneath one, or a place is one of its entries. False
        answers for all its entries at once (a listing asks once per directory)."""
        text = os.fspath(directory)
        if len(text) > 1:
            text = text.rstrip("/")
        return text in self._parents or text in self

    def containing(self, path: PurePath | str) -> str | None:
        """The first place (in the order given) that ``path`` is or lies beneath, or None."""
        text = os.fspath(path)
        if len(text) > 1:
            text = text.rstrip("/")
        if text not in self._exact and not text.startswith(self._prefixes):
            return None
        for place, prefix in zip(self.places, self._prefixes, strict=True):
            if text == place or text.startswith(prefix):
                return place
        return None  # pragma: no cover - one of them matched above
