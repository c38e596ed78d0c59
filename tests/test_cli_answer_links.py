"""A link in the model's answer shows where it goes: on a terminal, ``toolbelt run`` and
``toolbelt chat`` print ``[text](url)`` as the text followed by its address, never as a
terminal hyperlink (OSC 8) whose text can name one site while a click opens another — the
answer may have been written at a tool result's bidding."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.fake_provider import FakeProvider
from tests.support.terminal_screen import Terminal

OSC8 = b"\x1b]8;"
SPOOFED = "See [docs.python.org](http://evil.example/steal) and [http://good.example](http://evil.example/2)."


def _environment() -> dict[str, str]:
    gone = {k: "" for k in os.environ if k.endswith(("_API_KEY", "_BASE_URL"))}
    return {**gone, "TOOLBELT_MODEL": "", "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm-256color"}


def test_run_shows_each_links_address_and_makes_no_hyperlink(tmp_path: Path) -> None:
    with FakeProvider([{"text": SPOOFED}]) as fake:
        model = ("--model", "openai:gpt-test", "--base-url", fake.openai_url)
        with Terminal.toolbelt(
            "run", *model, "--root", str(tmp_path), "hi", env=_environment(), cwd=str(tmp_path)
        ) as terminal:
            assert terminal.wait_to_end() == 0
    assert OSC8 not in terminal.raw
    shown = " ".join(terminal.screen.text.split())
    assert "See docs.python.org (http://evil.example/steal) and http://good.example" in shown
    assert "(http://evil.example/2)." in shown


def test_chat_shows_each_links_address_and_makes_no_hyperlink(tmp_path: Path) -> None:
    with FakeProvider([{"text": SPOOFED}]) as fake:
        model = ("--model", "openai:gpt-test", "--base-url", fake.openai_url)
        with Terminal.toolbelt(
            "chat", *model, "--root", str(tmp_path), env=_environment(), cwd=str(tmp_path)
        ) as terminal:
            terminal.wait_for(lambda s: s.cursor_row.startswith("›"), "the chat's input line")
            terminal.type("hi\r")
            terminal.wait_for(lambda s: "evil.example/2" in s.text, "the answer")
            terminal.type("\x04")
            assert terminal.wait_to_end() == 0
    assert OSC8 not in terminal.raw
    shown = " ".join(terminal.screen.text.split())
    assert "See docs.python.org (http://evil.example/steal) and http://good.example" in shown
