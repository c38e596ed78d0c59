"""Response bodies as text for the model: HTML → Markdown, text decoded, PDFs per page.

Why markdownify: on three test pages (docs with a table and code, a blog post with sidebar and
comments, a README) it kept every structure a model uses — fenced code with its line breaks,
pipe tables, lists, links, blockquotes. html2text indents code blocks and mangles tables (and
is GPL-licensed); trafilatura drops boilerplate best on articles but flattened the README to
one word per line, merged the code lines, and its newest release fails to import without an
extra package. Boilerplate is handled here instead: scripts, styles, navigation, footers and
asides are removed, and ``<main>`` (or a single ``<article>``) is preferred over the body.

The reader is a model that copies identifiers into code, not a Markdown renderer: text keeps
its underscores and stars as written (``PAGE_TOKEN_93``, ``*args``, ``src/*.py``), never
``PAGE\\_TOKEN\\_93``; markdownify's escaping is off.
"""

from __future__ import annotations

import re

from toolbelt.core.errors import ToolError

__all__ = ["TEXT_TYPES", "body_text", "html_to_markdown", "is_html", "is_pdf", "pdf_body_text"]

TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml")
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_DROP = ("script", "style", "noscript", "template", "svg", "iframe", "form", "nav", "aside")
_BLANK_RUNS = re.compile(r"\n{3,}")


def body_text(content_type: str, body: bytes, charset: str | None) -> tuple[str, str]:
    """``(kind, text)`` for a body that is not a PDF (``pdf_body_text`` reads those): kind is
    ``html`` or ``text``; ToolError otherwise."""
    if is_html(content_type, body):
        return "html", html_to_markdown(body, charset)
    if content_type and not _is_text(content_type):
        raise ToolError(
            f"The server returned {content_type}, which web_fetch does not read (it reads text, "
            "HTML, JSON, XML and PDF); look for a text or HTML version of the page."
        )
    from toolbelt.files.text import decode_text, looks_binary

    if looks_binary(body[:8192]):
        raise ToolError("The server returned binary data, not text; fetch a text or HTML page.")
    if charset:
        try:
            return "text", body.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
    return "text", decode_text(body).text


def html_to_markdown(html: bytes | str, charset: str | None = None) -> str:
    """The page's main content as Markdown, led by its title when the content does not show it."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(
        html, "html.parser", from_encoding=charset if isinstance(html, bytes) else None
    )
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(_DROP):
        tag.decompose()
    for tag in soup.find_all(["header", "footer"]):
        if tag.find_parent(["article", "main"]) is None:
            tag.decompose()
    articles = soup.find_all("article")
    main = soup.find("main") or (articles[0] if len(articles) == 1 else None) or soup.body or soup
    converter = MarkdownConverter(
        heading_style="ATX",
        bullets="-",
        escape_misc=False,
        escape_underscores=False,
        escape_asterisks=False,
    )
    text = converter.convert_soup(main).strip()
    text = _BLANK_RUNS.sub("\n\n", "\n".join(line.rstrip() for line in text.splitlines()))
    if title and title not in text[: len(title) + 200]:
        text = f"Title: {title}\n\n{text}"
    return text


def is_pdf(content_type: str, body: bytes) -> bool:
    """Whether the body is read as a PDF (by its type, or its start when untyped)."""
    return content_type == "application/pdf" or (not content_type and body.startswith(b"%PDF-"))


async def pdf_body_text(body: bytes) -> str:
    """A PDF's first pages as text, extracted in a process of its own (``files.pdf_text``:
    bounded in time, memory and characters, and ended by a cancellation); what was left out
    is said before the text."""
    from toolbelt.files.media import MAX_PDF_PAGES_PER_CALL
    from toolbelt.files.pdf_text import pdf_text

    extracted = await pdf_text(body, f"1-{MAX_PDF_PAGES_PER_CALL}")
    pages, total = extracted.pages, extracted.total
    # what is missing is said first: a long page is read in parts, and a note at its end
    # would only be seen by a model that read every part
    notes = []
    if extracted.note:
        notes.append(f"[{extracted.note[:1].upper()}{extracted.note[1:]}.]")
    if total > len(extracted.wanted):
        notes.append(f"[The PDF has {total} pages; only the first {len(pages)} are shown.]")
    text = "\n\n".join(f"--- page {number} ---\n{content}" for number, content in pages)
    return "\n\n".join([*notes, text]) if notes else text


def _is_text(content_type: str) -> bool:
    return content_type.startswith(TEXT_TYPES) or content_type.endswith(("+json", "+xml"))


def is_html(content_type: str, body: bytes) -> bool:
    """Whether the body is converted as HTML (by its type, or its start when untyped)."""
    return content_type in _HTML_TYPES or (not content_type and _looks_html(body))


def _looks_html(body: bytes) -> bool:
    head = body[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))
