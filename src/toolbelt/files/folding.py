"""Unicode look-alikes folded to the plain characters a model types, line by line.

A model reads ``—`` and types ``-``; it reads a no-break space and types a space; it types a
precomposed ``é`` where a file copied from a macOS file name stores ``e`` + U+0301, and
``...`` where the file has ``…``. ``fold`` maps each of those to one plain form (straight
quotes, ``-``, a space, NFC, three dots), so an ``old_string`` typed the plain way can be
found; the edit is then merged back so the file keeps its own characters (``files.merge``).

``fold_units`` cuts a line into the smallest pieces that fold independently (a base and its
combining marks; Hangul jamo or Indic vowel parts that NFC composes into one character), so
every position in the folded text maps back to a position in the file's own text — a fold that
changes lengths (NFD ↔ NFC, ``…`` ↔ ``...``) never shifts a column or an indentation.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "Line",
    "describe",
    "fold",
    "fold_units",
    "name",
    "normalize",
    "split_clusters",
    "strip_blanks",
]

_NAMES = {
    "\u2018": "left single quote",
    "\u2019": "right single quote",
    "\u201a": "low single quote",
    "\u201b": "reversed single quote",
    "\u2032": "prime",
    "\u201c": "left double quote",
    "\u201d": "right double quote",
    "\u201e": "low double quote",
    "\u201f": "reversed double quote",
    "\u2033": "double prime",
    "\u2010": "hyphen",
    "\u2011": "non-breaking hyphen",
    "\u2012": "figure dash",
    "\u2013": "en dash",
    "\u2014": "em dash",
    "\u2015": "horizontal bar",
    "\u2212": "minus sign",
    "\u00a0": "no-break space",
    "\u2000": "en quad",
    "\u2001": "em quad",
    "\u2002": "en space",
    "\u2003": "em space",
    "\u2004": "three-per-em space",
    "\u2005": "four-per-em space",
    "\u2006": "six-per-em space",
    "\u2007": "figure space",
    "\u2008": "punctuation space",
    "\u2009": "thin space",
    "\u200a": "hair space",
    "\u202f": "narrow no-break space",
    "\u205f": "medium mathematical space",
    "\u3000": "ideographic space",
    "\u2026": "ellipsis",
}
_PLAIN = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007", " "),
    **dict.fromkeys("\u2008\u2009\u200a\u202f\u205f\u3000", " "),
    "\u2026": "...",
}
_LOOKALIKE = re.compile("[" + "".join(_PLAIN) + "]")
_LEADING = re.compile(r"^[ \t]+", re.MULTILINE)
_TRAILING = re.compile(r"[ \t]+$", re.MULTILINE)
_BLANK = frozenset((" ", "\t"))


def _plain(match: re.Match[str]) -> str:
    return _PLAIN[match.group()]


def fold(text: str) -> str:
    """``text`` with look-alikes made plain and every character composed (NFC).

    ASCII text is returned as it is; otherwise the look-alikes are found by one regex scan
    (``str.translate`` with a table costs ~60 ms per MB) and NFC runs only when the quick
    check says the text is not already composed.
    """
    if text.isascii():
        return text
    text = _LOOKALIKE.sub(_plain, text)
    if unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)


def strip_blanks(folded: str, *, leading: bool, trailing: bool) -> str:
    """``folded`` without, per line, its leading and/or trailing blanks (spaces and tabs)."""
    if leading:
        folded = _LEADING.sub("", folded)
    if trailing:
        folded = _TRAILING.sub("", folded)
    return folded


def normalize(text: str, *, leading: bool, trailing: bool) -> str:
    """``fold`` and, per line, drop the leading and/or trailing blanks (spaces and tabs)."""
    return strip_blanks(fold(text), leading=leading, trailing=trailing)


def split_clusters(text: str) -> list[str]:
    """``text`` cut before every character that is not a combining mark."""
    clusters: list[str] = []
    for char in text:
        if clusters and unicodedata.combining(char):
            clusters[-1] += char
        else:
            clusters.append(char)
    return clusters


def fold_units(text: str) -> list[str]:
    """``text`` cut into pieces whose folds, joined, are the fold of ``text``.

    Clusters (``split_clusters``) fold one by one except where NFC composes across them:
    decomposed Hangul (a leading consonant, a vowel and a final consonant, none of them a
    combining mark, make one syllable), Indic two-part vowels. A cluster is joined to the
    piece before it when folding the two together gives something else than folding each.
    Should a rarer composition still escape that, the line's blanks stay pieces of their own
    and the text between them becomes one piece, so its indentation is never lost.
    """
    units: list[str] = []
    for cluster in split_clusters(text):
        if units and not cluster.isascii():
            before = units[-1]
            if fold(before + cluster) != fold(before) + fold(cluster):
                units[-1] = before + cluster
                continue
        units.append(cluster)
    if "".join(map(fold, units)) == fold(text):
        return units
    body = text.strip(" \t")
    if not body:
        return list(text)
    start = text.index(body)
    return [*text[:start], body, *text[start + len(body) :]]


def describe(text: str) -> str:
    """How a message names ``text``: "an em dash (U+2014)", "'-'", "'é' decomposed (NFD)"."""
    if text in _NAMES:
        name = _NAMES[text]
        article = "an" if name[0] in "aeiou" else "a"
        return f"{article} {name} (U+{ord(text):04X})"
    if len(text) > 1 and unicodedata.normalize("NFC", text) != text:
        points = " + ".join(f"U+{ord(c):04X}" for c in text)
        return f"'{unicodedata.normalize('NFC', text)}' decomposed ({points})"
    if len(text) == 1 and not text.isascii() and unicodedata.normalize("NFD", text) != text:
        return f"'{text}' precomposed (U+{ord(text):04X})"
    return repr(text) if text in ("'", "\t") or not text.isprintable() else f"'{text}'"


@dataclass(frozen=True, slots=True)
class Line:
    """One line cut into folding units, with its indentation and trailing blanks marked.

    ``bounds[i]`` is where unit ``i`` starts (``bounds[-1]`` is the line's length) and
    ``folds[i]`` its folded text; the units are ``fold_units``, so the folds joined are the
    fold of the whole line.
    """

    text: str
    bounds: tuple[int, ...]
    folds: tuple[str, ...]
    body_start: int
    """Unit index where the indentation ends."""
    body_end: int
    """Unit index where the trailing blanks begin (all blank: equal to ``body_start``)."""

    @classmethod
    def of(cls, text: str) -> Line:
        clusters = fold_units(text)
        folds = [fold(c) for c in clusters]
        bounds = [0]
        for cluster in clusters:
            bounds.append(bounds[-1] + len(cluster))
        start = 0
        while start < len(folds) and folds[start] in _BLANK:
            start += 1
        end = len(folds)
        while end > start and folds[end - 1] in _BLANK:
            end -= 1
        return cls(text, tuple(bounds), tuple(folds), start, end)

    @property
    def indent(self) -> str:
        return self.text[: self.bounds[self.body_start]]

    @property
    def body(self) -> str:
        return self.text[self.bounds[self.body_start] : self.bounds[self.body_end]]

    @property
    def trail(self) -> str:
        return self.text[self.bounds[self.body_end] :]

    def positions(self, *, leading: bool, trailing: bool) -> list[tuple[int, int]]:
        """(offset in the normalized line, offset in the line) at every unit boundary."""
        out, at = [(0, 0)], 0
        all_blank = self.body_start == self.body_end == len(self.folds)
        for index, folded in enumerate(self.folds):
            dropped = (leading and index < self.body_start) or (
                trailing and (index >= self.body_end or all_blank)
            )
            at += 0 if dropped else len(folded)
            out.append((at, self.bounds[index + 1]))
        return out


def name(text: str) -> str:
    """A short name for a look-alike in a recovery label: "em dash", "no-break space"."""
    return _NAMES.get(text) or describe(text)
