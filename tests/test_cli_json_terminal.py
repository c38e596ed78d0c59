"""``--json`` into a terminal escapes C1 controls and bidi overrides; into a pipe it is exact."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

from tests.support.toolbelt_cli import TOOLBELT

# prints A, CSI (U+009B) "2J", B, RIGHT-TO-LEFT OVERRIDE (U+202E), C, DEL
COMMAND = r'printf "A\xc2\x9b2JB\xe2\x80\xaeC\x7f"'
ARGS = [*TOOLBELT, "call", "bash"]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path)}


def test_json_on_a_terminal_escapes_c1_controls_and_bidi_overrides(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [*ARGS, json.dumps({"command": COMMAND}), "--json", "--root", str(tmp_path)],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=_env(tmp_path),
    )
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the terminal's last writer is gone
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert process.wait(timeout=60) == 0
    text = shown.decode("utf-8").replace("\r\n", "\n")
    assert '"text": "A\\u009b2JB\\u202eC\\u007f"' in text
    assert "\x9b" not in text and "\u202e" not in text and "\x7f" not in text
    assert json.loads(text)["content"][0]["text"] == "A\x9b2JB\u202eC\x7f"


def test_json_into_a_pipe_keeps_the_exact_characters(tmp_path: Path) -> None:
    result = subprocess.run(
        [*ARGS, json.dumps({"command": COMMAND}), "--json", "--root", str(tmp_path)],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        env=_env(tmp_path),
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert '"text": "A\u009b2JB\u202eC\x7f"'.encode() in result.stdout


def test_a_character_beyond_the_basic_plane_is_escaped_as_a_surrogate_pair() -> None:
    from toolbelt.cli.json_output import terminal_safe_json

    tagged = json.dumps({"t": "x\U000e0041é"}, ensure_ascii=False)  # TAG LATIN CAPITAL A
    assert terminal_safe_json(tagged) == '{"t": "x\\udb40\\udc41é"}'
    assert json.loads(terminal_safe_json(tagged)) == {"t": "x\U000e0041é"}
