"""One read_file call returns a bounded amount, whatever ``limit`` says: a ranged read stops
at 256 KiB of text and says the offset to go on from; a limit past the maximum is refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.toolbelt_cli import toolbelt


def read(root: Path, args: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return toolbelt("call", "read_file", json.dumps(args), "--root", str(root))


def test_a_ranged_read_stops_at_the_budget_and_names_the_next_offset(tmp_path: Path) -> None:
    line = "x" * 999  # 1,000 characters a line with its newline
    (tmp_path / "big.txt").write_text((line + "\n") * 20_000)  # 20 MB: lines not counted
    out = read(tmp_path, {"path": "big.txt", "limit": 20_000})
    assert out.returncode == 0, out.stderr
    body, _, note = out.stdout.rpartition("\n\n[")
    shown = body.splitlines()
    assert shown[0] == "1\t" + line
    last = len(shown)
    assert shown[-1] == f"{last}\t{line}"
    assert 200 < last < 263  # about 256 KiB of 1,000-character lines
    assert len(out.stdout) < 300_000
    assert note == f"Showing lines 1–{last}. Continue with offset={last + 1}.]\n"
    following = read(tmp_path, {"path": "big.txt", "offset": last + 1, "limit": 5})
    assert following.stdout.splitlines()[0] == f"{last + 1}\t{line}"


def test_a_limit_past_the_maximum_is_refused(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("a\n")
    out = read(tmp_path, {"path": "b.txt", "limit": 3_000_000})
    assert out.returncode == 2
    assert "limit" in out.stdout + out.stderr
    assert "20000" in (out.stdout + out.stderr).replace(",", "")


def test_a_small_file_s_ranged_read_says_the_budget(tmp_path: Path) -> None:
    line = "y" * 999
    (tmp_path / "small.txt").write_text((line + "\n") * 400)  # 400 KB: lines counted
    out = read(tmp_path, {"path": "small.txt", "offset": 2, "limit": 400})
    body, _, note = out.stdout.rpartition("\n\n[")
    last = int(body.splitlines()[-1].partition("\t")[0])
    assert body.splitlines()[0] == "2\t" + line
    assert note == (
        f"Showing lines 2–{last} of 400: the rest would exceed the read budget of 262,144 "
        f"characters. Continue with offset={last + 1}, or use grep to find what you need.]\n"
    )


def png(width: int, height: int) -> bytes:
    """A valid PNG of ``width``×``height`` black pixels (a few hundred bytes: one zlib
    stream of zero rows)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    rows = zlib.compress(b"".join(b"\0" + b"\0" * width for _ in range(height)), 9)
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


def test_an_image_larger_than_a_model_accepts_is_refused_not_sent(tmp_path: Path) -> None:
    """A tiny file can claim 15,000 px: sent, the provider refuses the request, and every
    later request of the conversation, which carries it too."""
    (tmp_path / "wide.png").write_bytes(png(15_000, 2))
    out = read(tmp_path, {"path": "wide.png"})
    assert out.returncode == 1
    assert out.stdout == (
        "wide.png is 15000×2 px, larger than the 8000 px a side models accept; resize it "
        "(for example with `convert wide.png -resize 8000x8000 smaller.png`) and read that.\n"
    )
    (tmp_path / "fine.png").write_bytes(png(8000, 2))
    assert read(tmp_path, {"path": "fine.png"}).returncode == 0
