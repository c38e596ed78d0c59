"""The ids of the calls parsed from one assistant turn.

A text call seldom carries an id, and when it does the model may repeat one, so every call
gets an id unique within its turn: the model's own when it is fresh, else a new one. New ids
are nine random alphanumerics, the shape Mistral requires of the ids it is sent back.
"""

from __future__ import annotations

import random
import secrets
import string
from collections.abc import Callable

__all__ = ["TurnCallIds", "new_call_id"]

_ID_ALPHABET = string.ascii_letters + string.digits
# Ids need to be unique, not secret: a generator seeded once from the OS costs no system call
# per id (``secrets`` reads the OS for every one).
_ID_RANDOM = random.Random(secrets.randbits(128))


def new_call_id() -> str:
    """Nine random alphanumerics: unique in practice, and the id shape Mistral requires."""
    number = _ID_RANDOM.getrandbits(53)  # two ids never meet in practice
    chars = []
    for _ in range(9):
        number, digit = divmod(number, 62)
        chars.append(_ID_ALPHABET[digit])
    return "".join(chars)


class TurnCallIds:
    """The ids handed out in one turn; ``new_id`` makes a fresh one when needed."""

    def __init__(self, new_id: Callable[[], str] = new_call_id) -> None:
        self._new_id = new_id
        self._ids: set[str] = set()

    def unique(self, proposed: str | None) -> str:
        """``proposed`` when it is given and unused this turn, else a new unused id."""
        call_id = proposed if proposed and proposed not in self._ids else self._new_id()
        while call_id in self._ids:
            call_id = self._new_id()
        self._ids.add(call_id)
        return call_id
