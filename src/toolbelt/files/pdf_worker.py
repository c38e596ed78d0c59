"""The process a PDF is parsed in: ``python -I -c "…pdf_worker import main; main()" PAGES CHARS``.

A PDF is untrusted input to a parser written in Python: content streams that are zlib bombs
within pypdf's own limits keep ``extract_text`` busy for minutes, in a thread no one can stop.
So the parse runs here, in a process of its own (``pdf_text`` starts it as a process tree and
ends it on a deadline or a cancellation), with its address space and CPU time capped by
``setrlimit`` before pypdf is imported. The PDF arrives on standard input; each result leaves
as one JSON line on standard output as soon as it exists, so what was extracted before the
deadline is kept:

- ``{"total": N, "pages": [..]}`` — the document's page count and the pages to extract;
- ``{"page": n, "text": "…"}`` — one page, its text cut to what is left of ``CHARS``;
- ``{"error": "…"}`` — a sentence for the model (a damaged PDF, a page range outside it).
"""

from __future__ import annotations

import io
import json
import resource
import sys

__all__ = ["MEMORY_BYTES", "main"]

MEMORY_BYTES = 1024 * 1024 * 1024
"""The address space the parse may use: past it, allocation fails (MemoryError) and the
process ends, rather than the machine swapping."""


def main() -> None:
    pages, chars, cpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    data = sys.stdin.buffer.read()
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    from toolbelt.core.errors import ToolError
    from toolbelt.files.media import chosen_pages

    try:
        reader = PdfReader(io.BytesIO(data))
        total = len(reader.pages)
        numbers = chosen_pages(pages or None, total)
    except ToolError as exc:
        _send({"error": str(exc)})
        return
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        _send({"error": f"This PDF could not be parsed ({exc}); it may be damaged."})
        return
    _send({"total": total, "pages": numbers})
    for number in numbers:
        if chars <= 0:
            return
        try:
            text = reader.pages[number - 1].extract_text() or ""
        except (PdfReadError, ValueError, KeyError, TypeError) as exc:
            text = f"[this page could not be read: {exc}]"
        except RecursionError:
            text = "[this page nests too deeply to read]"
        _send({"page": number, "text": text[:chars]})
        chars -= len(text)


def _send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
