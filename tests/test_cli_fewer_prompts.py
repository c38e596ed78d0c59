"""The fewer-prompts rule, through ``toolbelt call``: a command that runs without a prompt runs
where what would have needed a prompt is impossible.

- Programs and options the analysis cannot see into (``base64``, ``awk``, ``tar``,
  ``env --chdir``, ``sort --files0-from``…) ask, so they can neither read the workspace's
  ``.env`` nor delete uncommitted work nor read outside the workspace unasked.
- A command that only creates files runs unasked in the create profile: it cannot change or
  delete what exists, and reads only the quiet view (the system, toolchains and the workspace
  minus its secrets); a read-only command runs in the read-only profile, which sees the same.
- What the analysis cannot see (a symlink followed by ``grep -R``, a hard link to a secret
  made outside the sandbox) the kernel still stops.

Each test runs under every sandbox backend this machine has (bubblewrap skips when absent).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.sandboxes import backend_params

TOOLBELT = [sys.executable, "-m", "toolbelt.cli.main"]
SECRET = "API_KEY=sk-fewer-prompts-secret"
OUTSIDE = "OUTSIDE-the-workspace-text"
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- SSHKEY-in-home"

pytestmark = pytest.mark.parametrize("sandbox", backend_params(minimum_landlock_abi=3))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / ".env").write_text(SECRET + "\n")
    (root / "config").mkdir()
    (root / "config" / ".env.local").write_text(SECRET + "-local\n")
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "lib" / "util.py").write_text("UTIL = 1\n")
    (root / "README.md").write_text("hello world\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "notes.txt").write_text(OUTSIDE + "\n")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    return root


def call(ws: Path, sandbox: str, command: str, *extra: str, tool: str = "bash") -> tuple[int, str]:
    args = {"command": command} if tool == "bash" else json.loads(command)
    tool = tool.removesuffix("-json")  # "bash-json": the arguments are given whole
    out = subprocess.run(
        [*TOOLBELT, "call", tool, json.dumps(args), "--root", str(ws), "--sandbox", sandbox,
         *extra],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(ws.parent / "home"), "COLUMNS": "200"},
        stdin=subprocess.DEVNULL,
        timeout=120,
    )  # fmt: skip
    return out.returncode, out.stdout + out.stderr


UNSEEN_READS = [
    "base64 .env",
    "strings .env",
    "tac .env",
    "paste .env",
    "awk 1 .env",
    "rev .env | rev",
    "fold -w 200 config/.env.local",
    "tar -cf - .env | tar -xOf -",
]


@pytest.mark.parametrize("command", UNSEEN_READS)
def test_programs_the_analysis_does_not_model_do_not_read_the_env_file_unasked(
    ws: Path, sandbox: str, command: str
) -> None:
    code, out = call(ws, sandbox, command)
    assert code == 3, out  # asked, and nobody could answer
    assert "sk-fewer-prompts-secret" not in out
    assert "whose reads, writes and deletions toolbelt cannot see" in out
    code, out = call(ws, sandbox, command, "--mode", "dont_ask")
    assert code == 3 and "sk-fewer-prompts-secret" not in out
    assert "The permission mode is dont_ask" in out


DELETIONS = [
    "awk 'BEGIN{system(\"rm -rf src\")}'",
    "tar -cf /dev/null --remove-files lib",
    "find src -name app.py -exec sh -c 'rm \"$1\"' _ {} ';'",
    "make -f /dev/stdin <<< 'all:; rm -rf src lib'",
]


@pytest.mark.parametrize("command", DELETIONS)
def test_uncommitted_work_is_not_deleted_unasked(ws: Path, sandbox: str, command: str) -> None:
    for mode in ("default", "dont_ask", "accept_edits"):
        code, out = call(ws, sandbox, command, "--mode", mode)
        assert code == 3, (mode, out)
    assert (ws / "src" / "app.py").read_text() == "print('app')\n"
    assert (ws / "lib" / "util.py").read_text() == "UTIL = 1\n"


WRITES_TO_EXISTING = [
    ": > src/app.py",
    "sed --in 's/hello/bye/' README.md",
    "echo more >> README.md",
    "cp lib/util.py src/app.py",
    "touch -d 2001-01-01 README.md",
]


@pytest.mark.parametrize("command", WRITES_TO_EXISTING)
def test_a_change_to_a_file_that_exists_asks(ws: Path, sandbox: str, command: str) -> None:
    code, out = call(ws, sandbox, command)
    assert code == 3, out
    assert "which exists (a command runs unasked only when all it writes are new files)" in out
    assert (ws / "src" / "app.py").read_text() == "print('app')\n"
    assert (ws / "README.md").read_text() == "hello world\n"


def outside_reads(ws: Path) -> list[str]:
    notes = ws.parent / "outside" / "notes.txt"
    return [
        f"env --chdir={notes.parent} cat notes.txt",
        f"env -C {notes.parent} cat notes.txt > copy.txt",
        f"printf '%s\\0' {notes} | sort --files0-from=-",
        f"printf '%s\\0' {notes.parent} | find -files0-from - -type f -exec cat {{}} +",
        f"printf '%s\\0' {notes.parent} | find --files0-from=- -type f -exec cat {{}} +",
        f"tar -C {notes.parent} -cf - notes.txt | tar -xOf -",
        f"git -C {notes.parent} --no-pager log -p",
        f"paste {notes}",
        f"awk 1 {notes}",
    ]


def test_reads_outside_the_workspace_the_analysis_misses_ask(ws: Path, sandbox: str) -> None:
    for command in outside_reads(ws):
        code, out = call(ws, sandbox, command)
        assert code == 3, (command, out)
        assert OUTSIDE not in out, command
    assert not (ws / "copy.txt").exists()


def test_a_command_that_only_creates_files_runs_unasked_and_says_where(
    ws: Path, sandbox: str
) -> None:
    code, out = call(
        ws,
        sandbox,
        "mkdir -p build/out && cp src/app.py build/app.py && sort README.md > build/s.txt "
        "&& echo note >> build/notes.txt && touch build/stamp && ls build",
    )
    assert (code, out.split()) == (0, ["app.py", "notes.txt", "out", "s.txt", "stamp"])
    assert (ws / "build" / "app.py").read_text() == "print('app')\n"
    assert (ws / "build" / "notes.txt").read_text() == "note\n"


def test_what_the_analysis_cannot_see_the_create_and_read_only_profiles_stop(
    ws: Path, sandbox: str
) -> None:
    """``grep -R`` follows a symlink in the workspace to a directory outside it, and a hard
    link made outside the sandbox gives ``.env`` another name: the analysis sees reads of
    ``.`` only, so the command runs unasked — and the kernel shows it none of them."""
    home = ws.parent / "home"
    (ws / "docs").symlink_to(ws.parent / "outside")
    (ws / "h").symlink_to(home)
    os.link(ws / ".env", ws / "lib" / "settings.txt")
    os.link(home / ".ssh" / "id_rsa", ws / "lib" / "key.txt")
    for command in (
        "grep -R -e sk-fewer -e OUTSIDE -e SSHKEY . > found.txt; cat found.txt",
        "grep -R -e sk-fewer -e OUTSIDE -e SSHKEY .",
        "cat lib/util.py src/app.py > both.txt; cat both.txt",
    ):
        code, out = call(ws, sandbox, command)
        assert "sk-fewer-prompts-secret" not in out, (command, out)
        assert OUTSIDE not in out and "SSHKEY" not in out, (command, out)
        assert "asks" not in out, (command, out)  # unasked: the sandbox decided
    code, out = call(ws, sandbox, "cat lib/util.py src/app.py > all.txt; cat all.txt")
    assert (code, out) == (0, "UTIL = 1\nprint('app')\n")


def test_a_hard_link_to_a_home_secret_asks_for_the_file_tools_and_commands(
    ws: Path, sandbox: str
) -> None:
    home = ws.parent / "home"
    os.link(home / ".ssh" / "id_rsa", ws / "notes.txt")
    for tool, arguments in (
        ("read_file", '{"path": "notes.txt"}'),
        ("grep", '{"pattern": "SSHKEY", "path": "notes.txt"}'),
        ("bash", "cat notes.txt"),
    ):
        code, out = call(ws, sandbox, arguments, tool=tool)
        assert code == 3, (tool, out)
        assert "SSHKEY" not in out
        assert f"it is a hard link of {home / '.ssh' / 'id_rsa'}" in out, out
    code, out = call(ws, sandbox, '{"pattern": "SSHKEY"}', tool="grep")
    assert "SSHKEY" not in out


def test_a_command_approved_at_a_prompt_runs_as_the_person_approved_it(
    ws: Path, sandbox: str
) -> None:
    """``cat .env`` is read-only but asks (the file is a secret): approved, it runs in the
    workspace profile, where ``.env`` is there to read — not in the read-only one, where it
    is hidden. A hard link to ``.env`` likewise; one to a home secret stays hidden."""
    home = ws.parent / "home"
    os.link(ws / ".env", ws / "lib" / "settings.txt")
    os.link(home / ".ssh" / "id_rsa", ws / "lib" / "key.txt")
    code, out = call(ws, sandbox, "cat .env", "--yes")
    assert (code, out) == (0, SECRET + "\n")
    code, out = call(ws, sandbox, "cp .env backup.txt && cat backup.txt lib/settings.txt", "--yes")
    assert (code, out) == (0, f"{SECRET}\n{SECRET}\n")
    code, out = call(ws, sandbox, "cat lib/key.txt", "--yes")
    assert "SSHKEY" not in out


def test_mkdir_p_of_a_directory_that_exists_changes_nothing(ws: Path, sandbox: str) -> None:
    code, out = call(ws, sandbox, "mkdir -p src lib/new && echo x > src/made.txt && ls src")
    assert (code, out.split()) == (0, ["app.py", "made.txt"])


def test_a_fifo_in_the_workspace_does_not_hold_a_command_that_runs_unasked(
    ws: Path, sandbox: str
) -> None:
    """An unpacked archive may hold a FIFO: ``cat`` of it, named or found, would wait for a
    writer until the command's timeout. The quiet profiles cover it: it reads as nothing."""
    os.mkfifo(ws / "lib" / "pipe")
    for command in ("cat lib/pipe; echo end", "find . -type p -exec cat {} +; echo end"):
        args = {"command": command, "timeout_ms": 20_000}
        _, out = call(ws, sandbox, json.dumps(args), tool="bash-json")
        assert "timed out" not in out, (command, out)
        assert out.rstrip().endswith("end"), (command, out)
