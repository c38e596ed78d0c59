"""What web_fetch returns: a window of the converted page, the small model's answer to the
caller's prompt, or the report of a redirect to another host.

Kept apart from the tool so each stays small: the tool decides what to fetch and whether it
may; this module words the result the model reads and its structured twin.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.errors import ToolError
from toolbelt.web.urls import WebUrl

__all__ = ["ConvertedPage", "condensed_page", "page_window", "redirect_result"]


@dataclass(frozen=True, slots=True)
class ConvertedPage:
    """A fetched page as text (what the 15-minute cache keeps)."""

    url: str
    status: int
    reason: str
    content_type: str
    text: str
    cut_at_bytes: int | None
    incomplete: str | None = None
    """Why the page ends before the server finished sending it (kept out of the cache)."""


async def condensed_page(
    page: ConvertedPage, prompt: str, offset: int, max_length: int, ctx: ToolContext
) -> ToolOutput:
    """The small model's answer to ``prompt`` from the page; the page window (as without a
    model, with why) if it fails."""
    from toolbelt.web.condense import CondenseError, condense, page_budget

    model = ctx.model
    assert model is not None
    _check_offset(page, offset)
    piece = page.text[offset : offset + page_budget(model)]
    ctx.progress(f"condensing the page with {model.model}")
    try:
        answer = await condense(model, url=page.url, page=piece, prompt=prompt)
    except CondenseError as exc:
        why = f"The page could not be condensed ({exc})"
        return page_window(page, prompt, offset, max_length, why=why)
    total, end = len(page.text), offset + len(piece)
    lines = [
        f"URL: {page.url}",
        f"Status: {page.status} {page.reason} ({page.content_type})",
        f"Prompt: {prompt}",
        f"Answer from the page, by {model.model} (the page's text was not shown to you; call "
        "again without `prompt` to read it):",
        "",
        answer,
    ]
    notes = [f"The model read characters {offset:,}–{end:,} of {total:,}"]
    if end < total:
        notes.append(f"continue with offset={end}")
    if page.cut_at_bytes is not None:
        notes.append(f"only the first {page.cut_at_bytes:,} bytes of the response were used")
    if page.incomplete is not None:
        notes.append(f"the page is incomplete: {page.incomplete}")
    if len(notes) > 1:
        lines.append("\n[" + "; ".join(notes) + ".]")
    structured = {**_structured(page, offset, len(piece)), "condensed_by": model.model}
    return ToolOutput.text("\n".join(lines), structured, is_error=page.status >= 400)


def page_window(
    page: ConvertedPage,
    prompt: str | None,
    offset: int,
    max_length: int,
    *,
    why: str = "No model condenses pages in this runtime",
) -> ToolOutput:
    """Up to ``max_length`` characters of the page from ``offset``, with how to read on."""
    _check_offset(page, offset)
    total = len(page.text)
    shown = page.text[offset : offset + max_length]
    end = offset + len(shown)
    lines = [f"URL: {page.url}", f"Status: {page.status} {page.reason} ({page.content_type})"]
    if prompt:
        lines.append(
            f"Prompt: {prompt}\n({why}: the page follows in full; look for the answer in it.)"
        )
    notes = []
    if page.cut_at_bytes is not None:
        notes.append(
            f"Only the first {page.cut_at_bytes:,} bytes of the response were used (the cap), "
            "so the page ends early."
        )
    if page.incomplete is not None:
        notes.append(
            f"The page is incomplete: {page.incomplete}; this is what had arrived. Try again "
            "later for the rest."
        )
    if end < total:
        notes.append(
            f"Showing characters {offset:,}–{end:,} of {total:,}. Continue with "
            f"offset={end} (the page is cached for 15 minutes)."
        )
    text = "\n".join(lines) + "\n\n" + shown
    if notes:
        text += "\n\n[" + " ".join(notes) + "]"
    structured = _structured(page, offset, len(shown))
    return ToolOutput.text(text, structured, is_error=page.status >= 400)


def redirect_result(url: WebUrl, target: WebUrl, status: int) -> ToolOutput:
    """A redirect to another host, reported rather than followed."""
    text = (
        f"{url} redirected (HTTP {status}) to another host: {target}. It was not followed; "
        f'to read it, call web_fetch again with url="{target}".'
    )
    structured = {
        "url": str(url),
        "status": status,
        "content_type": "",
        "total_chars": 0,
        "offset": 0,
        "returned_chars": 0,
        "redirect_to": str(target),
    }
    return ToolOutput.text(text, structured)


def _check_offset(page: ConvertedPage, offset: int) -> None:
    total = len(page.text)
    if offset > total or (offset == total and total):
        raise ToolError(
            f"offset {offset} is past the end of the page, which has {total:,} characters."
        )


def _structured(page: ConvertedPage, offset: int, returned: int) -> dict[str, object]:
    return {
        "url": page.url,
        "status": page.status,
        "content_type": page.content_type,
        "total_chars": len(page.text),
        "offset": offset,
        "returned_chars": returned,
    }
