"""The model's answer as Markdown on a terminal, with every link's target in plain sight.

The answer is text nobody vetted: a tool result or a fetched page can prompt the model into
writing ``[docs.python.org](http://evil.example/x)``. Rendered as a terminal hyperlink (OSC 8)
the person sees only "docs.python.org" and a click goes elsewhere. So links are never made
hyperlinks: each shows its text followed by its address, ``docs.python.org
(http://evil.example/x)``, which the terminal may still make clickable — as what it says.
Control characters are escaped first (``escape_for_terminal``), newlines and tabs kept.

Imported only where rich already is (a terminal is attached).
"""

from __future__ import annotations

from rich.markdown import Markdown

from toolbelt.core.terminal_text import escape_for_terminal

__all__ = ["answer_markdown"]


def answer_markdown(text: str) -> Markdown:
    """``text`` (the model's Markdown) ready to print: escaped, links shown with targets."""
    return Markdown(escape_for_terminal(text, newlines=True, tabs=True), hyperlinks=False)
