"""How the file spells the look-alikes the model typed plainly, for the text it inserts.

Learned from the quoted lines, one aligned pair (typed, held) at a time. A spelling is applied
to inserted text only where the file is consistent: the model typed ``'`` and the file held a
curly quote every time, never a straight one. A file that holds both (a regex ``/['’]/``)
teaches nothing, and inserted text stays as typed. Hyphens and spaces are never restyled.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

__all__ = ["Style"]

_CURLY = {"'": ("\u2018", "\u2019"), '"': ("\u201c", "\u201d")}
_OPENS_AFTER = "([{<\u2014\u2013-"


@dataclass(slots=True)
class Style:
    """How the file spells what the model typed plainly, where it is consistent about it."""

    spelled: dict[str, set[str]] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)
    forms: set[str] = field(default_factory=set)
    """"NFD" when the file decomposed what the model typed composed, "NFC" the reverse."""
    mixed_forms: bool = False

    def learn(self, typed: str, held: str) -> None:
        if typed == held:
            self.kept.add(typed)
            if unicodedata.normalize("NFD", typed) != typed:
                self.mixed_forms = True  # the file holds composed text where it was typed so
            return
        for form in ("NFD", "NFC"):
            if unicodedata.normalize(form, typed) == held:
                self.forms.add(form)
                return
        self.spelled.setdefault(typed, set()).add(held)

    def _swaps(self) -> dict[str, str | tuple[str, str]]:
        swaps: dict[str, str | tuple[str, str]] = {}
        for typed, helds in self.spelled.items():
            if typed in self.kept or not typed.strip() or typed == "-":
                continue  # the file also holds it as typed, or blanks and hyphens: ambiguous
            family = _CURLY.get(typed)
            if family is not None and helds <= set(family):
                swaps[typed] = family
            elif len(helds) == 1:
                swaps[typed] = next(iter(helds))
        return swaps

    def apply(self, line: str, start: int, end: int) -> str:
        """``line[start:end]``, text the model inserted, spelled the way the file spells its
        look-alikes — except inside a code span (between backticks), where quotes are code."""
        text = line[start:end]
        swaps = self._swaps()
        if swaps:
            out: list[str] = []
            at = 0
            in_code = line.count("`", 0, start) % 2 == 1
            multi = [typed for typed in swaps if len(typed) > 1]
            while at < len(text):
                typed = next((t for t in multi if text.startswith(t, at)), text[at])
                swap = swaps.get(typed, typed) if not in_code else typed
                if isinstance(swap, tuple):
                    prev = out[-1][-1:] if out else line[start - 1 : start]
                    opening = not prev or prev.isspace() or prev in _OPENS_AFTER
                    swap = swap[0] if opening else swap[1]
                in_code ^= typed == "`"
                out.append(swap)
                at += len(typed)
            text = "".join(out)
        if self.forms == {"NFD"} and not self.mixed_forms:
            text = unicodedata.normalize("NFD", text)
        elif self.forms == {"NFC"} and not self.mixed_forms:
            text = unicodedata.normalize("NFC", text)
        return text
