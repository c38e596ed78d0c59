"""Files that are not plain text but that read_file can still show: images, PDFs, notebooks.

Images go to the model as image content (a vision model reads them) with their pixel size,
read from the header alone — no imaging library needed. PDFs become text per page (pypdf,
in a process of its own: ``pdf_text``). Notebooks become their cells — id, type, source and text
outputs — which is what a model needs to edit one with notebook_edit.
"""

from __future__ import annotations

import base64
import json
import struct
from dataclasses import dataclass
from typing import Any

from toolbelt.core.errors import ToolError

__all__ = [
    "IMAGE_TYPES",
    "MAX_PDF_PAGES_PER_CALL",
    "ImageInfo",
    "chosen_pages",
    "image_info",
    "parse_page_range",
    "render_notebook",
]

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif", ".webp": "image/webp"}  # fmt: skip
MAX_PDF_PAGES_PER_CALL = 20


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """An image as the model receives it."""

    mime_type: str
    width: int | None
    height: int | None
    size: int
    data: str  # base64


def image_info(data: bytes, mime_type: str) -> ImageInfo:
    """Encode ``data`` for the model and read its dimensions from the header when possible."""
    width, height = _dimensions(data)
    return ImageInfo(mime_type, width, height, len(data), base64.b64encode(data).decode())


def _dimensions(data: bytes) -> tuple[int | None, int | None]:
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n":
            width, height = struct.unpack(">II", data[16:24])
            return width, height
        if data[:6] in (b"GIF87a", b"GIF89a"):
            width, height = struct.unpack("<HH", data[6:10])
            return width, height
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_dimensions(data)
        if data[:2] == b"\xff\xd8":
            return _jpeg_dimensions(data)
    except struct.error:
        pass
    return None, None


def _webp_dimensions(data: bytes) -> tuple[int | None, int | None]:
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None, None


def _jpeg_dimensions(data: bytes) -> tuple[int | None, int | None]:
    offset = 2
    while offset + 9 < len(data):
        if data[offset] != 0xFF:
            offset += 1
            continue
        marker = data[offset + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            offset += 2
            continue
        length = struct.unpack(">H", data[offset + 2 : offset + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[offset + 5 : offset + 9])
            return width, height
        offset += 2 + length
    return None, None


def parse_page_range(pages: str, total: int) -> list[int]:
    """``"3"``, ``"1-5"`` or ``"2,4,7-9"`` → 1-based page numbers within ``total``."""
    chosen: list[int] = []
    for part in pages.replace(" ", "").split(","):
        if not part:
            continue
        try:
            if "-" in part:
                start_text, end_text = part.split("-", 1)
                start, end = int(start_text), int(end_text or total)
            else:
                start = end = int(part)
        except ValueError as exc:
            raise ToolError(
                f'pages {pages!r} is not a page range; use forms like "3", "1-5" or "2,4-6".'
            ) from exc
        if start < 1 or end < start or start > total:
            raise ToolError(f"pages {pages!r} is outside the document, which has {total} pages.")
        chosen.extend(range(start, min(end, total) + 1))
    if len(chosen) > MAX_PDF_PAGES_PER_CALL:
        raise ToolError(
            f"pages {pages!r} selects {len(chosen)} pages; read at most "
            f"{MAX_PDF_PAGES_PER_CALL} pages per call."
        )
    return sorted(set(chosen))


def chosen_pages(pages: str | None, total: int) -> list[int]:
    """The pages to read of a PDF of ``total`` pages: those ``pages`` names, or all of them
    when there are at most ``MAX_PDF_PAGES_PER_CALL`` (ToolError otherwise)."""
    if pages is not None:
        return parse_page_range(pages, total)
    if total > MAX_PDF_PAGES_PER_CALL:
        raise ToolError(
            f'This PDF has {total} pages; pass `pages` (for example "1-20") to read at '
            f"most {MAX_PDF_PAGES_PER_CALL} pages per call."
        )
    return list(range(1, total + 1))


def render_notebook(data: bytes) -> tuple[str, list[dict[str, Any]]]:
    """A notebook as text for the model (cells with ids, sources, text outputs) and as data."""
    try:
        notebook = json.loads(data)
        cells = notebook["cells"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ToolError(f"This .ipynb file is not a valid notebook ({exc}).") from exc
    language = notebook.get("metadata", {}).get("language_info", {}).get("name", "python")
    parts, listing = [], []
    for number, cell in enumerate(cells):
        cell_id = cell.get("id") or f"cell-{number}"
        kind = cell.get("cell_type", "code")
        source = _joined(cell.get("source", ""))
        outputs = [_output_text(o) for o in cell.get("outputs", [])]
        outputs = [o for o in outputs if o]
        header = f'<cell id="{cell_id}" number="{number}" type="{kind}"'
        if kind == "code":
            header += f' language="{language}"'
        parts.append(f"{header}>\n{source}\n</cell>")
        if outputs:
            parts.append(f'<outputs cell="{cell_id}">\n' + "\n".join(outputs) + "\n</outputs>")
        listing.append({"id": cell_id, "number": number, "type": kind, "source": source,
                        "outputs": outputs})  # fmt: skip
    return "\n".join(parts) if parts else "The notebook has no cells.", listing


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _output_text(output: dict[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return _joined(output.get("text", "")).rstrip("\n")
    if kind in ("execute_result", "display_data"):
        data = output.get("data", {})
        if "text/plain" in data:
            return _joined(data["text/plain"]).rstrip("\n")
        images = [m for m in data if m.startswith("image/")]
        return f"[{images[0]} output]" if images else ""
    if kind == "error":
        return f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
    return ""
