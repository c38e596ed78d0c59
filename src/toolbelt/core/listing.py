"""What a listing of many files (grep, glob) leaves out, judged for a few string tests a file.

``ToolContext.visible`` judges one path on its own: the user's secret locations, read-deny
rules, secrets by name, secret configuration directories, hard links to secrets — some 10 µs a
path, most of it on what the path's directory alone decides. A search listing 2,000 files paid
that for each of them after ripgrep had ended. A listing judge asks the questions about a
directory once for all its files, and a file of a directory nothing makes special is visible
when its name is no secret's and it has no other hard links (the stat a listing takes anyway
says so); every other file gets ``visible``'s full judgement, so the answer is always
``visible``'s.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

from toolbelt.core.secret_paths import secret_near

__all__ = ["EntryTest", "HiddenPaths", "ListingJudge", "listing_judge"]

EntryTest = Callable[[str, os.stat_result | None], bool]
"""(a file's name, what ``os.stat`` said of it or None when it could not be stat'ed) → True
when the file is surely not hidden."""
ListingJudge = Callable[[str, os.stat_result | None], bool]
"""(a path relative to the listed directory, its ``os.stat`` or None) → whether the listing
leaves it out."""


class HiddenPaths(ABC):
    """What listings leave out (``PermissionPolicy.hidden_paths``), with a shortcut for the
    files of one directory."""

    @abstractmethod
    def __call__(self, path: Path) -> bool:
        """Whether a listing leaves ``path`` out."""

    def plain_entries(self, directory: str) -> EntryTest | None:
        """For the files directly in ``directory`` (absolute, as listed): a test that is True
        when such a file is surely not left out, so ``self`` need not judge it; None when
        every file there must be judged."""
        return None


def listing_judge(
    root: Path, visible: Callable[[Path], bool], hidden: Callable[[Path], bool] | None
) -> ListingJudge:
    """The judge of the paths one listing found below ``root``: ``not visible(root / path)``,
    with the directory-wide questions asked once a directory. ``hidden`` is what ``visible``
    applies besides the user's secret locations (``ToolContext.hidden``). Safe to call from
    a worker thread."""
    if hidden is None:
        plain: Callable[[str], EntryTest | None] | None = _nothing_hidden
    elif isinstance(hidden, HiddenPaths):
        plain = hidden.plain_entries
    else:
        plain = None
    tests: dict[str, EntryTest | None] = {}

    def hides(relative: str, info: os.stat_result | None) -> bool:
        directory, _, name = relative.rpartition("/")
        try:
            test = tests[directory]
        except KeyError:
            test = tests[directory] = _directory_test(root, directory, plain)
        if test is not None and test(name, info):
            return False
        return not visible(root / relative)

    return hides


def _directory_test(
    root: Path, directory: str, plain: Callable[[str], EntryTest | None] | None
) -> EntryTest | None:
    if plain is None:
        return None
    place = str(root / directory) if directory else str(root)
    if secret_near(place):  # a secret location is, holds or sits in this directory
        return None
    return plain(place)


def _nothing_hidden(directory: str) -> EntryTest:
    return _plain


def _plain(name: str, info: os.stat_result | None) -> bool:
    return True
