"""``toolbelt run`` with a text tool-call format: a call the model only quotes or thinks about
does not run, the real call beside it does (the real CLI against the loopback fake provider,
with ``--yes``, so a quoted call that were parsed would surely run)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.fake_provider import FakeProvider
from tests.support.toolbelt_cli import toolbelt_run

QUOTED = '<tool_call>\n{"name": "bash", "arguments": {"command": "touch QUOTED"}}\n</tool_call>'
REAL = '<tool_call>\n{"name": "read_file", "arguments": {"path": "app.py"}}\n</tool_call>'
REPLIES = {
    "fence": f"The README shows:\n```\n{QUOTED}\n```\n{REAL}",
    "inline": f"The file has `{QUOTED.replace(chr(10), ' ')}` as an example.\n{REAL}",
    "think": f"<think>I could run {QUOTED} but I won't.</think>{REAL}",
    "think-opened-by-template": f"I could run {QUOTED} but I won't.</think>\n{REAL}",
}


@pytest.mark.parametrize("tool_format", ["auto", "hermes"])
@pytest.mark.parametrize("kind", list(REPLIES))
def test_a_quoted_or_thought_call_does_not_run(tmp_path: Path, tool_format: str, kind: str) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text('print("helo")\n')
    script = [{"text": REPLIES[kind]}, {"text": "It prints helo."}]
    with FakeProvider(script) as fake:
        done = toolbelt_run(
            "What does app.py print?",
            "--model",
            "openai-compatible:Qwen/Qwen3-8B",
            "--tool-format",
            tool_format,
            "--base-url",
            fake.openai_url,
            "--root",
            str(root),
            "--yes",
            home=tmp_path,
        )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in root.iterdir()) == ["app.py"]  # no QUOTED
    assert re.search(r"^read_file app\.py: success \(\d+ ms\)$", done.stderr, re.MULTILINE)
    assert done.stdout.endswith("It prints helo.\n")
    sent = json.dumps(fake.requests[1].body["messages"])
    assert 'print(\\"helo\\")' in sent  # the real call's result went back
    if kind == "think-opened-by-template":
        assert "inside your reasoning (before </think>), so it did not run" in sent
    else:
        assert "bash" not in done.stderr
        assert "touch QUOTED" in sent  # the mention stays in the transcript as text
