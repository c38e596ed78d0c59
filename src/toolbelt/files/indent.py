"""Translate the model's indentation into the file's: tabs stay tabs, widths stay widths.

A model often re-types a tab-indented block with spaces (or four-space code with two). The
pairs of (model's indentation, file's indentation) seen on the lines it quoted teach the
mapping: an indentation seen there maps to what the file had; any other is measured from the
model's shallowest quoted line and scaled by the ratio the pairs show (eight typed spaces for
two tabs: one tab per four spaces).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import pairwise

__all__ = ["IndentMap", "IndentUnclear"]

_TYPED_TAB = 4
"""How many columns a tab the model typed counts for."""


def _width(typed: str) -> int:
    return len(typed.replace("\t", " " * _TYPED_TAB))


class IndentUnclear(ValueError):
    """The quoted lines do not show how the model's indentation maps onto the file's."""


class IndentMap:
    """Converts an indentation the model typed into the one the file would use."""

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        """``pairs``: (typed, held) indentations of the quoted lines that have text."""
        self.identity = all(typed == held for typed, held in pairs)
        seen: dict[str, set[str]] = {}
        for typed, held in pairs:
            seen.setdefault(typed, set()).add(held)
        self._known = {typed: next(iter(h)) for typed, h in seen.items() if len(h) == 1}
        self._typed_base = min((_width(typed) for typed, _ in pairs), default=0)
        self._held_base = min((held for _, held in pairs), key=len, default="")
        deeper = [held[len(self._held_base) :] for _, held in pairs]
        tabs = any("\t" in extra for extra in deeper) or self._held_base.startswith("\t")
        self._unit = "\t" if tabs else " "
        self._ratio = self._scale(pairs)
        levels: dict[int, set[int]] = {}
        for typed, held in pairs:
            levels.setdefault(_width(typed), set()).add(len(held))
        ordered = [levels[width] for width in sorted(levels)]
        self._consistent = all(len(h) == 1 for h in ordered) and all(
            min(a) < min(b) for a, b in pairwise(ordered)
        )
        """Deeper typed lines are deeper in the file too, equal ones equal: the structure the
        model saw is the file's, so other indentations can be translated."""

    def _scale(self, pairs: Sequence[tuple[str, str]]) -> Fraction:
        """File characters per typed column, from how the pairs step away from the base."""
        ratios = {
            Fraction(len(held) - len(self._held_base), _width(typed) - self._typed_base)
            for typed, held in pairs
            if _width(typed) != self._typed_base
        }
        if len(ratios) == 1:
            return ratios.pop()
        if self._typed_base and self._held_base:
            return Fraction(len(self._held_base), self._typed_base)
        return Fraction(1, _TYPED_TAB) if self._unit == "\t" else Fraction(1)

    def convert(self, typed: str) -> str:
        """The file's indentation for a line the model indented with ``typed``."""
        if self.identity:
            return typed
        if typed in self._known:
            return self._known[typed]
        if not self._consistent:
            raise IndentUnclear(typed)
        steps = round((_width(typed) - self._typed_base) * self._ratio)
        if steps >= 0:
            return self._held_base + self._unit * steps
        return self._held_base[: max(len(self._held_base) + steps, 0)]
