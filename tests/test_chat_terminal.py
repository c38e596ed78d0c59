"""``toolbelt chat`` driven in a pseudo-terminal (pexpect), against the loopback fake provider
through the real OpenAI SDK: prompts answered yes and no (with a reason the model receives),
a turn cancelled with Esc, plan mode refusing a write, a conversation resumed in a new
process, /compact, and a subagent's prompt labelled with its name."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.agent.test_cancel import TAG, sleeps_running
from tests.support.fake_provider import FakeProvider

PROMPT = "›"


def chat(url: str, root: Path, *extra: str) -> pexpect.spawn:
    """``toolbelt chat`` on a 120×40 pseudo-terminal, pointed at the fake provider."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env |= {"TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1", "NO_COLOR": "1"}
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "toolbelt.cli.main",
            "chat",
            "--model",
            "openai:gpt-test",
            "--base-url",
            url,
            "--root",
            str(root),
            *extra,
        ],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 120),
    )
    child.expect_exact(PROMPT)
    return child


def say(child: pexpect.spawn, text: str) -> None:
    child.send(text + "\r")


def leave(child: pexpect.spawn) -> None:
    child.expect_exact(PROMPT)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def tool_texts(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def test_an_edit_approved_and_a_write_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text('print("helo")\n')
    edit = {"path": "app.py", "old_string": "helo", "new_string": "hello"}
    script = [
        {"text": "Reading it.", "calls": [{"name": "read_file", "arguments": {"path": "app.py"}}]},
        {"text": "Fixing.", "calls": [{"name": "edit_file", "arguments": edit}]},
        {"text": "Fixed the **typo**."},
        {"calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "x"}}]},
        {"text": "Understood, no notes."},
    ]
    with FakeProvider(script) as fake:
        child = chat(fake.openai_url, tmp_path)
        say(child, "fix the typo in app.py")
        child.expect_exact("Allow edit_file on ")
        child.expect_exact("> ")
        child.send("y\r")
        child.expect(r"Fixed the (\x1b\[[0-9;]*m)+typo(\x1b\[[0-9;]*m)+\.")  # bold, no **
        child.expect_exact(PROMPT)
        say(child, "write notes")
        child.expect_exact("Allow write_file on ")
        child.expect_exact("> ")
        child.send("n\r")
        child.expect_exact("Denied write_file: reason for the model (optional) > ")
        child.send("keep the tree clean\r")
        child.expect_exact("Understood, no notes.")
        leave(child)
    assert (tmp_path / "app.py").read_text() == 'print("hello")\n'
    assert not (tmp_path / "notes.txt").exists()
    refused = tool_texts(fake.requests[4].body)[-1]
    assert "The user denied this call: keep the tree clean" in refused


def test_esc_cancels_a_turn_and_the_conversation_goes_on(tmp_path: Path) -> None:
    script = [
        {"calls": [{"name": "bash", "arguments": {"command": f"sleep 100{TAG}"}}]},
        {"text": "Still here."},
    ]
    with FakeProvider(script) as fake:
        child = chat(fake.openai_url, tmp_path, "--mode", "bypass")
        say(child, "sleep for a while")
        deadline = time.monotonic() + 20
        while not sleeps_running():
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        child.send("\x1b")
        child.expect_exact("cancelled — the conversation goes on")
        assert sleeps_running() == []
        child.expect_exact(PROMPT)
        say(child, "are you there?")
        child.expect_exact("Still here.")
        leave(child)
    last = fake.requests[1].body["messages"]
    assert "Aborted" in tool_texts(fake.requests[1].body)[0]
    assert last[-1] == {"role": "user", "content": "are you there?"}


def test_plan_mode_refuses_a_write(tmp_path: Path) -> None:
    script = [
        {"calls": [{"name": "write_file", "arguments": {"path": "plan.txt", "content": "x"}}]},
        {"text": "I will only plan."},
    ]
    with FakeProvider(script) as fake:
        child = chat(fake.openai_url, tmp_path)
        say(child, "/mode plan")
        child.expect_exact("The permission mode is now plan.")
        child.expect_exact(PROMPT)
        say(child, "write the plan to a file")
        child.expect(r"✗.*write_file.*plan\.txt.*\(\d+ ms\).* — .*Plan mode is on")
        child.expect_exact("I will only plan.")
        leave(child)
    assert not (tmp_path / "plan.txt").exists()
    body = json.dumps(fake.requests[0].body["messages"][-1])
    assert "The user switched the permission mode to plan." in body


def test_a_conversation_resumed_in_a_new_process(tmp_path: Path) -> None:
    with FakeProvider([{"text": "Noted: 42."}, {"text": "You said 42."}]) as fake:
        first = chat(fake.openai_url, tmp_path)
        say(first, "remember the number 42")
        first.expect_exact("Noted: 42.")
        leave(first)
        second = chat(fake.openai_url, tmp_path, "--continue")
        assert "messages" in second.before and "resumed" in second.before  # the banner
        say(second, "which number?")
        second.expect_exact("You said 42.")
        leave(second)
    assert fake.requests[1].body["messages"][1:] == [
        {"role": "user", "content": "remember the number 42"},
        {"role": "assistant", "content": "Noted: 42."},
        {"role": "user", "content": "which number?"},
    ]


def test_compact_replaces_the_conversation_with_a_summary(tmp_path: Path) -> None:
    script = [
        {"text": "Hello Ada."},
        {"text": "The user introduced herself as Ada."},
        {"text": "You are Ada."},
    ]
    with FakeProvider(script) as fake:
        child = chat(fake.openai_url, tmp_path)
        say(child, "my name is Ada")
        child.expect_exact("Hello Ada.")
        child.expect_exact(PROMPT)
        say(child, "/compact names")
        child.expect_exact("Compacted: about")
        child.expect_exact(PROMPT)
        say(child, "who am I?")
        child.expect_exact("You are Ada.")
        leave(child)
    asked = json.dumps(fake.requests[1].body["messages"][-1])
    assert "Summarise the conversation so far" in asked and "names" in asked
    after = fake.requests[2].body["messages"]
    assert [m["role"] for m in after] == ["system", "user"]
    assert "The user introduced herself as Ada." in json.dumps(after[1])
    assert "my name is Ada" in json.dumps(after[1])  # the request, verbatim


def test_a_subagents_permission_prompt_carries_its_name(tmp_path: Path) -> None:
    task = {"description": "make a file", "prompt": "create made.txt", "agent": "general"}
    script = [
        {"calls": [{"name": "task", "arguments": task}]},
        {"calls": [{"name": "bash", "arguments": {"command": "echo hi > made.txt"}}]},
        {"text": "Created made.txt."},
        {"text": "The subagent made it."},
    ]
    with FakeProvider(script) as fake:
        child = chat(fake.openai_url, tmp_path, "--sandbox", "off")
        say(child, "delegate the file")
        child.expect(r"subagent \S*general\S*: \S*bash\S* wants permission")
        child.expect_exact("for subagent general? ")
        child.expect_exact("> ")
        child.send("y\r")
        child.expect_exact("The subagent made it.")
        leave(child)
    assert (tmp_path / "made.txt").read_text() == "hi\n"
    assert "Created made.txt." in tool_texts(fake.requests[3].body)[0]


@pytest.fixture(autouse=True)
def _no_leftover_sleep() -> Any:
    yield
    assert sleeps_running() == []


def test_without_a_terminal_each_line_is_a_prompt_and_sessions_lists_it(tmp_path: Path) -> None:
    import subprocess

    (tmp_path / "a.txt").write_text("alpha\n")
    script = [
        {"calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "It says alpha."},
        {"text": "Still alpha."},
    ]
    command = [sys.executable, "-m", "toolbelt.cli.main"]
    with FakeProvider(script) as fake:
        done = subprocess.run(
            [*command, "chat", "--model", "openai:gpt-test", "--base-url", fake.openai_url,
             "--root", str(tmp_path)],
            input="what is in a.txt?\n/mode plan\nsure?\n",
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It says alpha.\nThe permission mode is now plan.\nStill alpha.\n"
    assert "\x1b" not in done.stdout + done.stderr
    assert [line.split(" (")[0] for line in done.stderr.splitlines()] == [
        "read_file a.txt: success"
    ]
    listed = subprocess.run(
        [*command, "sessions", "--root", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    [session] = json.loads(listed.stdout)
    assert session["title"] == "what is in a.txt?"
