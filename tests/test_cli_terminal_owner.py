"""The terminal has one owner (issue #27, class 3), seen the way a person sees it: ``toolbelt
run``, ``toolbelt chat`` and ``toolbelt call`` on a pseudo-terminal whose screen is read
through a terminal emulator (``tests/support/terminal_screen``), a person who answers only
what the line the cursor waits on asks, the model scripted on the loopback fake provider and
an MCP server on the real SDK that asks through the terminal (elicitation).

What must hold: one prompt at a time (a question's answer never approves a permission prompt,
a form's field never answers another prompt); nothing typed before a prompt was on screen
answers it; a prompt given up (the turn cancelled) leaves no reader behind to swallow the next
answer; the line an answer is typed on says what it answers, escaped and whole; nothing else
is written on that line while it waits.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_provider import FakeProvider
from tests.support.terminal_screen import Terminal
from tests.support.waiting import wait_until

SERVER = Path(__file__).parent / "support" / "eliciting_mcp_server.py"
SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- the-key-itself"
QUESTION = "Shall I go on? Answer y or n."
REASON = "reason for the model"
"""The line after a no; it names the denied call, so it is looked for before the tool's name."""


@pytest.fixture
def home() -> Path:
    """The test's private home (``tests/conftest.py``), with a private key in it."""
    path = Path(os.environ["HOME"])
    (path / ".ssh").mkdir(exist_ok=True)
    (path / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as provider:
        yield provider


def _environment() -> dict[str, str]:
    """No provider variable of the machine's leaks in; no colour, so rows read plainly."""
    gone = {k: "" for k in os.environ if k.endswith(("_API_KEY", "_BASE_URL"))}
    return {**gone, "TOOLBELT_MODEL": "", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1"}


def run(fake: FakeProvider, root: Path, task: str, *extra: str) -> Terminal:
    """``toolbelt run TASK`` against the fake provider, on a pseudo-terminal."""
    model = ("--model", "openai:gpt-test", "--base-url", fake.openai_url, "--root", str(root))
    return Terminal.toolbelt("run", *model, *extra, task, env=_environment(), cwd=str(root))


def calls(*called: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"calls": [{"name": name, "arguments": arguments} for name, arguments in called]}


def ask_user(question: str = QUESTION) -> tuple[str, dict[str, Any]]:
    return "ask_user", {"questions": [{"question": question}]}


def tool_texts(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def answer_each(terminal: Terminal, answers: dict[str, str], count: int) -> list[str]:
    """Answer ``count`` prompts as a person does: read the line the cursor waits on (and, when
    it does not say, the rows just above it, nearest first) and type the answer for what it is
    about — the first key of ``answers`` found. The answer lines seen, in order."""
    seen: list[str] = []
    for _ in range(count):
        line = terminal.wait_for_answer_line(f"prompt {len(seen) + 1} of {count}")
        typed = _answer_for([line, *reversed(terminal.screen.above_cursor(3))], answers)
        assert typed is not None, f"a prompt nobody expected: {line!r}\n{terminal.screen.text}"
        seen.append(line)
        terminal.type(typed + "\r")
        terminal.wait_for(lambda s, line=line: s.answer_line != line, f"{typed!r} taken")
    return seen


def _answer_for(rows: list[str], answers: dict[str, str]) -> str | None:
    for row in rows:
        for asked, typed in answers.items():
            if asked in row:
                return typed
    return None


def test_the_answer_to_a_question_never_approves_reading_a_key(
    home: Path, root: Path, fake: FakeProvider
) -> None:
    """The issue's reproduction: ``[read_file ~/.ssh/id_rsa, ask_user]`` in one turn; the
    person answers y to the question and n to the permission prompt, each where it asks."""
    fake.add(
        calls(("read_file", {"path": str(home / ".ssh" / "id_rsa")}), ask_user()),
        {"text": "Done."},
    )
    with run(fake, root, "tidy up") as terminal:
        seen = answer_each(terminal, {REASON: "", "Shall I go on": "y", "read_file": "n"}, 3)
        terminal.wait_for(lambda s: "Done." in s.text, "the model's last word")
        assert terminal.wait_to_end() == 3  # a call refused
    assert sorted(line.split(" ")[0] for line in seen) == ["Allow", "Denied", "answer"]
    assert tool_texts(fake.requests[1].body) == [
        "Error: The user denied this call. Do not retry the same call; ask the user how to "
        "proceed.",
        "The user answered:\n1. Shall I go on? Answer y or n. → y\nGo on with these answers.",
    ]


def test_keys_typed_before_a_permission_prompt_never_answer_it(
    root: Path, fake: FakeProvider
) -> None:
    fake.add(calls(("write_file", {"path": "notes.txt", "content": "x\n"})), {"text": "Done."})
    with run(fake, root, "write notes") as terminal:
        terminal.type("y\r")  # typed ahead, while the model was still thinking
        seen = answer_each(terminal, {REASON: "not now", "write_file": "n"}, 2)
        terminal.wait_for(lambda s: "Done." in s.text, "the model's last word")
        assert terminal.wait_to_end() == 3
    assert seen[0] == f"Allow write_file on {root / 'notes.txt'}? [y/s/n] >"
    assert seen[1] == "Denied write_file: reason for the model (optional) >"
    assert not (root / "notes.txt").exists()
    assert tool_texts(fake.requests[1].body) == ["Error: The user denied this call: not now"]


def test_the_answer_line_restates_the_whole_command_escaped(root: Path) -> None:
    """``toolbelt call bash``: a long command whose harmless start fills the line and whose
    end deletes, with a sequence in it that would rewrite the row: the line the answer is
    typed on shows all of it, the sequence as visible text."""
    command = f"echo {'all good ' * 5}\x1b[2K\r; rm -rf build"
    (root / "build").mkdir()
    arguments = json.dumps({"command": command})
    with Terminal.toolbelt(
        "call", "bash", arguments, "--root", str(root), env=_environment(), cwd=str(root)
    ) as terminal:
        [line, _] = answer_each(terminal, {REASON: "", "bash": "n"}, 2)
        terminal.wait_to_end()
    shown = f"echo {'all good ' * 5}\\x1b[2K\\r; rm -rf build"
    assert line == f"Allow bash to run `{shown}`? [y/n] >"
    assert (root / "build").is_dir()


def chat(fake: FakeProvider, root: Path) -> Terminal:
    model = ("--model", "openai:gpt-test", "--base-url", fake.openai_url, "--root", str(root))
    terminal = Terminal.toolbelt("chat", *model, env=_environment(), cwd=str(root))
    terminal.wait_for(lambda s: s.cursor_row.startswith("›"), "the chat's input line")
    return terminal


@pytest.mark.parametrize("key", ["\x03", "\x1b"], ids=["ctrl-c", "esc"])
def test_a_prompt_given_up_leaves_no_reader_to_swallow_the_next_answer(
    root: Path, fake: FakeProvider, key: str
) -> None:
    """In ``toolbelt chat``, Ctrl-C or Esc at a permission prompt cancels the turn, as it
    does anywhere in a turn; the next turn's question gets the answer typed to it."""
    fake.add(
        calls(("write_file", {"path": "notes.txt", "content": "x\n"})),
        calls(ask_user("Which colour?")),
        {"text": "Blue it is."},
    )
    with chat(fake, root) as terminal:
        terminal.type("write notes\r")
        terminal.wait_for_answer_line("the permission prompt")
        terminal.type(key)
        terminal.wait_for(lambda s: "cancelled — the conversation goes on" in s.text, "cancel")
        terminal.wait_for(lambda s: s.cursor_row.startswith("›"), "the next input line")
        terminal.type("ask me\r")
        [line] = answer_each(terminal, {"Which colour?": "blue"}, 1)
        terminal.wait_for(lambda s: "Blue it is." in s.text, "the model's last word")
        terminal.type("\x04")
        assert terminal.wait_to_end() == 0
    assert line == "answer to “Which colour?” >"
    assert not (root / "notes.txt").exists()
    assert tool_texts(fake.requests[2].body)[-1] == (
        "The user answered:\n1. Which colour? → blue\nGo on with these answers."
    )


@pytest.fixture
def eliciting_server(tmp_path: Path) -> Path:
    """The eliciting server among the user's own MCP servers; the file it writes once the
    client has its progress notification."""
    shown = tmp_path / "progress-shown"
    env = {"ELICIT_PROGRESS": "uploading\x1b[2J the bundle", "ELICIT_PROGRESS_SHOWN": str(shown)}
    entry = {"command": sys.executable, "args": [str(SERVER)], "env": env}
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "toolbelt"
    config.mkdir(parents=True, exist_ok=True)
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {"eliciting": entry}}))
    return shown


def test_a_servers_form_owns_the_line_while_it_waits(root: Path, eliciting_server: Path) -> None:
    """``toolbelt call`` of an MCP tool whose server asks through the terminal and writes
    progress while its form waits: the progress is shown once the form is answered, never on
    the line the answer is typed on."""
    with Terminal.toolbelt(
        "call", "mcp__eliciting__deploy", "{}", "--root", str(root), "--yes",
        env=_environment(), cwd=str(root),
    ) as terminal:  # fmt: skip
        line = terminal.wait_for_answer_line("the form's field")
        wait_until(eliciting_server.exists, "the server's progress reached the client")
        terminal.type("staging\r")
        assert terminal.wait_to_end() == 0
        rows = terminal.screen.text.splitlines()
    progress = next(number for number, row in enumerate(rows) if "uploading" in row)
    assert rows[progress - 1 : progress + 1] == [
        f"{line} staging",  # the answer, on the form's line
        "… uploading\\x1b[2J the bundle",  # then what the server said meanwhile, escaped
    ]
    assert line == "  Target for “The MCP server `eliciting` asks: Where shall I deploy?” >"
    assert 'deploy: accept {"target": "staging"}' in rows
