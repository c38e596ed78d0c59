"""A remote result's images held to what a model may be shown: a count and a size, like text.

Text from a remote tool is capped and spilled like a command's output (``results``); images
were passed through whole: 10,000 image blocks (13 MB of base64), or one 15 MB image, all
reached the model's context (issue #32). So a result keeps at most ``MAX_IMAGES`` images and
``MAX_IMAGE_BYTES`` of them (decoded), in the server's order; every other image is written to
the call's spill directory (decoded, at most the 16 MB a message may hold in all) and the
result says so in one line — how many, how large, where — so the model can ask for less or
have one opened.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from pathlib import Path

from toolbelt.core.content import ContentBlock, ImageBlock, TextBlock
from toolbelt.core.wording import counted

__all__ = ["MAX_IMAGES", "MAX_IMAGE_BYTES", "capped_images"]

MAX_IMAGES = 8
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Decoded bytes of images one result may show (the largest image one provider accepts)."""
_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


def _size(block: ImageBlock) -> int:
    """The decoded size of a base64 image, from its length (no decoding)."""
    data = block.data.rstrip("=")
    return len(data) * 3 // 4


def capped_images(blocks: Sequence[ContentBlock], spill: Path) -> list[ContentBlock]:
    """``blocks`` with the images past the count or size cap saved under ``spill`` and
    described in one text block where the first of them stood."""
    kept: list[ContentBlock] = []
    left: list[ImageBlock] = []
    shown = shown_bytes = 0
    note_at: int | None = None
    for block in blocks:
        if not isinstance(block, ImageBlock):
            kept.append(block)
            continue
        size = _size(block)
        if shown < MAX_IMAGES and shown_bytes + size <= MAX_IMAGE_BYTES:
            kept.append(block)
            shown, shown_bytes = shown + 1, shown_bytes + size
            continue
        if note_at is None:
            note_at = len(kept)
        left.append(block)
    if note_at is None:
        return kept
    kept.insert(note_at, TextBlock(_spilled(left, spill)))
    return kept


def _spilled(images: list[ImageBlock], spill: Path) -> str:
    spill.mkdir(mode=0o700, parents=True, exist_ok=True)
    total = 0
    for number, image in enumerate(images, start=1):
        try:
            data = base64.b64decode(image.data, validate=False)
        except (binascii.Error, ValueError):
            data = image.data.encode("ascii", "replace")
        total += len(data)
        suffix = _SUFFIXES.get(image.mime_type, ".bin")
        (spill / f"image-{number:05d}{suffix}").write_bytes(data)
    return (
        f"[{counted(len(images), 'more image')} ({counted(total, 'byte')}) not shown: a result "
        f"shows at most {MAX_IMAGES} images and {MAX_IMAGE_BYTES // (1024 * 1024)} MB of them; "
        f"they are saved as {spill}/image-NNNNN.*, ask for fewer or smaller images]"
    )
