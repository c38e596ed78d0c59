"""What a session leaves on disk: its spilled output stops at a size limit, and its whole
directory (spills, background jobs' output, the sandbox's temporary files) is deleted when
the session ends."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.toolbelt_cli import toolbelt
from toolbelt.shell.output import OutputBuffer


def test_a_cli_call_leaves_no_session_directory(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (tmp_path / "ws").mkdir()
    command = '{"command": "seq 1 20000"}'
    out = toolbelt(
        "call",
        "bash",
        command,
        "--root",
        str(tmp_path / "ws"),
        "--yes",
        env={"XDG_RUNTIME_DIR": str(run)},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    spilled = out.stdout.split(" is in ")[1].split(" — ")[0]
    base = run / f"toolbelt-{os.getuid()}"
    assert Path(spilled).parent.parent == base  # the output was spilled there...
    assert list(base.iterdir()) == []  # ...and the session's directory is gone with it


def test_the_spill_file_stops_at_its_limit_and_the_note_says_so(tmp_path: Path) -> None:
    spill = tmp_path / "command-1.out"
    buffer = OutputBuffer(spill, cap=100, spill_limit=2_500)
    for n in range(10):
        buffer.feed(str(n).encode() * 1_000)
    buffer.finish()
    assert spill.read_bytes() == b"0" * 1_000 + b"1" * 1_000 + b"2" * 500
    assert buffer.spill_truncated
    text = buffer.text()
    assert text.startswith("0" * 50 + "\n[... 9,900 characters omitted; the output was 10,000 ")
    assert "of which only the first 2,500 bytes were kept, in " + str(spill) in text
    assert text.endswith("...]\n" + "9" * 50)


def test_under_the_limit_the_whole_output_is_spilled(tmp_path: Path) -> None:
    spill = tmp_path / "command-1.out"
    buffer = OutputBuffer(spill, cap=100, spill_limit=10_000)
    for n in range(10):
        buffer.feed(str(n).encode() * 1_000)
    buffer.finish()
    assert spill.stat().st_size == 10_000
    assert not buffer.spill_truncated
    assert "the full output (10,000 bytes) is in " + str(spill) in buffer.text()
