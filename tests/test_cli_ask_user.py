"""`toolbelt call ask_user` at a real (pseudo-)terminal: picking an option, several options,
an answer in one's own words, Ctrl-D and Ctrl-C; and without a terminal, the refusal."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import time
from pathlib import Path

from tests.support.toolbelt_cli import TOOLBELT, toolbelt

QUESTIONS = {
    "questions": [
        {
            "question": "Which database?",
            "header": "DB",
            "options": [
                {"label": "PostgreSQL", "description": "already in production"},
                {"label": "SQLite"},
            ],
        },
        {
            "question": "Which features first?",
            "options": [{"label": "auth"}, {"label": "billing"}, {"label": "sso"}],
            "multi_select": True,
        },
        {"question": "Anything else?"},
    ]
}


class Terminal:
    """`toolbelt call ask_user …` running on a pseudo-terminal, read and typed into."""

    def __init__(self, root: Path, *extra: str) -> None:
        arguments = json.dumps(QUESTIONS)
        command = [*TOOLBELT, "call", "ask_user", arguments]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the CLI
            os.chdir(root)
            os.execv(sys.executable, [*command, *extra])
        self.seen = b""

    def read_until(self, marker: bytes, timeout: float = 30.0) -> None:
        """Read the terminal until ``marker`` appears past what was already matched."""
        start = len(self.seen)
        deadline = time.monotonic() + timeout
        while marker not in self.seen[start:]:
            left = deadline - time.monotonic()
            assert left > 0, f"{marker!r} never came; the terminal shows {self.seen!r}"
            if select.select([self.fd], [], [], left)[0]:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child is gone
                    chunk = b""
                assert chunk, f"the CLI ended before {marker!r}: {self.seen!r}"
                self.seen += chunk

    def answer(self, typed: str) -> None:
        self.read_until(b"> ")
        os.write(self.fd, typed.encode())

    def finish(self, timeout: float = 30.0) -> tuple[int, str]:
        """The exit status and everything the terminal showed, once the CLI has ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], deadline - time.monotonic())[0]:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                self.seen += chunk
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        while pid == 0 and time.monotonic() < deadline:  # the terminal closed; exit follows
            time.sleep(0.01)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
            raise AssertionError(f"the CLI did not end: {self.seen!r}")
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status), self.seen.decode().replace("\r\n", "\n")


def test_choosing_an_option_several_options_and_own_words(tmp_path: Path) -> None:
    terminal = Terminal(tmp_path)
    terminal.answer("1\n")
    terminal.answer("3, 1\n")
    terminal.answer("keep it small\n")
    status, shown = terminal.finish()
    assert status == 0
    assert "[DB] Which database?\n  1. PostgreSQL — already in production\n  2. SQLite\n" in shown
    assert shown.endswith(
        "The user answered:\n"
        "1. Which database? → PostgreSQL\n"
        "2. Which features first? → auth, sso\n"
        "3. Anything else? → keep it small\n"
        "Go on with these answers.\n"
    )


def test_own_words_instead_of_the_options_in_json(tmp_path: Path) -> None:
    terminal = Terminal(tmp_path, "--json")
    terminal.answer("MySQL\n")
    terminal.answer("nope\n")
    terminal.answer("\n")
    status, shown = terminal.finish()
    assert status == 0
    structured = json.loads(shown[shown.index("{") :])["structured"]
    assert structured["outcome"] == "dismissed"
    assert structured["answers"] == {
        "Which database?": "MySQL",
        "Which features first?": "nope",
    }
    assert [q["status"] for q in structured["questions"]] == ["answered", "answered", "dismissed"]
    assert structured["questions"][0]["other"] == "MySQL"


def test_end_of_input_dismisses_the_questions(tmp_path: Path) -> None:
    terminal = Terminal(tmp_path)
    terminal.answer("2\n")
    terminal.answer("\x04")  # Ctrl-D at the start of a line: end of input
    status, shown = terminal.finish()
    assert status == 0
    assert "2. Which features first? → (dismissed without an answer)\n" in shown
    assert "3. Anything else? → (not asked: the user stopped before it)\n" in shown


def test_ctrl_c_cancels_the_call_and_the_process_ends(tmp_path: Path) -> None:
    terminal = Terminal(tmp_path)
    terminal.answer("\x03")
    status, shown = terminal.finish()
    assert status == 130
    assert shown.endswith("toolbelt: interrupted; the call was cancelled.\n")
    assert "Traceback" not in shown


def test_without_a_terminal_nobody_is_asked(tmp_path: Path) -> None:
    done = toolbelt("call", "ask_user", json.dumps(QUESTIONS), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == (
        "No person is attached to this session, so the question cannot be asked; decide with "
        "what you know and say which assumption you made.\n"
    )
