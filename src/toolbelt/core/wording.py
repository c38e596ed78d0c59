"""Counts in messages: ``1 byte``, ``2 bytes``, ``1 entry`` — a model and a person read them."""

from __future__ import annotations

__all__ = ["counted"]


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun`` in the right grammatical number, thousands separated.

    ``plural`` is needed only when adding "s" is wrong (``entry`` → ``entries``).
    """
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
