"""Pages fetched in the last 15 minutes, per session, so re-reading a page costs nothing.

Keyed by the canonical URL; the oldest entries go first once 32 are held (each is at most the
converted text of one capped response).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CACHE_SECONDS", "PageCache"]

CACHE_SECONDS = 15 * 60
_MAX_ENTRIES = 32


@dataclass
class PageCache:
    """A session resource: canonical URL → (when fetched, the converted page)."""

    entries: OrderedDict[str, tuple[float, Any]] = field(default_factory=OrderedDict)

    def get(self, url: str) -> Any | None:
        entry = self.entries.get(url)
        if entry is None:
            return None
        if time.monotonic() - entry[0] > CACHE_SECONDS:
            del self.entries[url]
            return None
        return entry[1]

    def put(self, url: str, value: Any) -> None:
        self.entries[url] = (time.monotonic(), value)
        self.entries.move_to_end(url)
        while len(self.entries) > _MAX_ENTRIES:
            self.entries.popitem(last=False)
