"""Binary and escape-heavy bash output through the real bash tool: summarised or cut so what
a client receives stays small once JSON-escaped, with the whole output kept in a file."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from tests.tools.helpers import Harness

from toolbelt.core.events import CallState, ProgressEvent
from toolbelt.shell.output import MAX_SENT_BYTES

pytestmark = pytest.mark.anyio


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = Harness(tmp_path, mode="bypass")
    yield harness
    await harness.session.aclose()


def spill_of(result_structured: dict[str, object] | None) -> Path:
    assert result_structured is not None
    path = result_structured["output_path"]
    assert isinstance(path, str)
    return Path(path)


async def test_thirty_thousand_nuls_become_a_short_summary(h: Harness) -> None:
    result = await h.call("bash", command="head -c 30000 /dev/zero")
    assert result.state is CallState.SUCCESS
    spill = spill_of(result.output.structured)
    assert result.text.startswith(
        "[binary output: 30,000 bytes, 30,000 of them control bytes (NUL and the like), not "
        f"shown. The whole output is in {spill}; inspect it with `xxd {spill} | head`"
    )
    assert "first bytes: " + " ".join(["00"] * 32) + " …" in result.text
    assert result.text.endswith("printable strings at the start: none]")
    assert "\x00" not in result.text
    assert len(json.dumps(result.text)) < 1000
    assert spill.read_bytes() == b"\x00" * 30000  # nothing is lost


async def test_a_binary_summary_shows_hex_and_strings(h: Harness) -> None:
    result = await h.call("bash", command="printf 'hello-binary-world'; head -c 3000 /dev/zero")
    assert "first bytes: 68 65 6c 6c 6f 2d 62 69 6e 61 72 79 2d 77 6f 72 6c 64 00 00" in result.text
    assert "printable strings at the start: 'hello-binary-world']" in result.text
    assert spill_of(result.output.structured).read_bytes().startswith(b"hello-binary-world\x00")


async def test_escape_heavy_text_is_cut_to_the_byte_budget(h: Harness) -> None:
    """29,700 characters fit the character cap, but 8,100 of them escape to six bytes."""
    command = "python3 -c \"import sys; sys.stdout.write('\\\\x01\\\\x02\\\\x03abcdefgh' * 2700)\""
    result = await h.call("bash", command=command)
    assert result.state is CallState.SUCCESS
    assert not result.text.startswith("[binary output")
    assert len(json.dumps(result.text)) <= MAX_SENT_BYTES
    assert "characters omitted; the full output (29,700 bytes) is in" in result.text
    assert spill_of(result.output.structured).read_bytes() == b"\x01\x02\x03abcdefgh" * 2700


async def test_ordinary_text_is_shown_whole(h: Harness) -> None:
    result = await h.call("bash", command="seq 1 2000")
    assert result.text == "\n".join(str(i) for i in range(1, 2001))
    assert result.output.structured is not None
    assert result.output.structured["output_path"] is None


async def test_progress_events_carry_no_control_characters(h: Harness) -> None:
    seen: list[str] = []
    h.executor.events.subscribe(
        lambda e: seen.append(e.message) if isinstance(e, ProgressEvent) else None
    )
    await h.call("bash", command="head -c 3000 /dev/zero; printf 'done\\t\\033[1mbold\\n'")
    assert "".join(seen) == "done\t\x1b[1mbold\n"  # NULs dropped; tab, ESC and newline kept


async def test_background_binary_output_is_summarised_when_polled(h: Harness) -> None:
    await h.call("bash", command="head -c 20000 /dev/zero > zeros.bin")
    # cat writes the file in one write(2), so a poll sees none or all of it
    started = await h.call("bash", command="cat zeros.bin", run_in_background=True)
    assert started.output.structured is not None
    job = str(started.output.structured["id"])
    bodies: list[str] = []
    with anyio.fail_after(10):
        while not bodies or "exited" not in bodies[-1].split("\n", 1)[0]:
            bodies.append((await h.call("bash_output", id=job)).text)
    assert not any("\x00" in body for body in bodies)
    summaries = [body for body in bodies if "[binary output: 20,000 bytes, 20,000 of them" in body]
    assert len(summaries) == 1, bodies
