"""How the file spells the look-alikes the model typed plainly, for the text it inserts.

Learned from the quoted lines, one aligned pair (typed, held) at a time. A spelling is applied
to inserted text only where the file never holds the model's form — judged over the whole
file, not the quoted lines: a comment in the region that says ``wait…`` must not turn the
``...`` the model adds to a Python line into ``…`` (a SyntaxError) when the file writes
``...`` elsewhere. The model typed ``'`` and the file held a curly quote every time and never
a straight one: inserted quotes are curled; a file that holds both (a regex ``/['’]/``) teaches
nothing, and inserted text stays as typed. Normalisation forms likewise: inserted ``é`` is
decomposed only when the file decomposes it and never holds it precomposed. Hyphens and
spaces are never restyled.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from toolbelt.files.folding import fold_units

__all__ = ["Style"]

Form = Literal["NFC", "NFD"]
_FORMS: tuple[Form, ...] = ("NFD", "NFC")
_CURLY = {"'": ("\u2018", "\u2019"), '"': ("\u201c", "\u201d")}
_OPENS_AFTER = "([{<\u2014\u2013-"


@dataclass(slots=True)
class Style:
    """How the file spells what the model typed plainly, where it is consistent about it."""

    whole: str = ""
    """The whole file's text: a form it holds anywhere is never restyled away."""
    spelled: dict[str, set[str]] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)
    forms: set[Form] = field(default_factory=set)
    """"NFD" when the file decomposed what the model typed composed, "NFC" the reverse."""
    mixed_forms: bool = False
    _held: dict[str, bool] = field(default_factory=dict, init=False, repr=False)

    def holds(self, typed: str) -> bool:
        """Whether the file holds ``typed`` as the model typed it, anywhere (remembered)."""
        found = self._held.get(typed)
        if found is None:
            found = self._held[typed] = typed in self.whole
        return found

    def learn(self, typed: str, held: str) -> None:
        if typed == held:
            self.kept.add(typed)
            if unicodedata.normalize("NFD", typed) != typed:
                self.mixed_forms = True  # the file holds composed text where it was typed so
            return
        for form in _FORMS:
            if unicodedata.normalize(form, typed) == held:
                self.forms.add(form)
                return
        self.spelled.setdefault(typed, set()).add(held)

    def _swaps(self) -> dict[str, str | tuple[str, str]]:
        swaps: dict[str, str | tuple[str, str]] = {}
        for typed, helds in self.spelled.items():
            if typed in self.kept or not typed.strip() or typed == "-" or self.holds(typed):
                continue  # the file also holds it as typed, or blanks and hyphens: ambiguous
            family = _CURLY.get(typed)
            if family is not None and helds <= set(family):
                swaps[typed] = family
            elif len(helds) == 1:
                swaps[typed] = next(iter(helds))
        return swaps

    def _in_form(self, unit: str, form: Form) -> str:
        """``unit`` in the file's normalisation form, unless the file holds it as typed."""
        target = unicodedata.normalize(form, unit)
        return unit if target == unit or self.holds(unit) else target

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
        if len(self.forms) == 1 and not self.mixed_forms and not text.isascii():
            form = next(iter(self.forms))
            text = "".join(self._in_form(unit, form) for unit in fold_units(text))
        return text
