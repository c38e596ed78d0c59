"""Read deny rules are enforced by the OS sandbox too: a command that reads a denied path in
a way the analysis cannot see (through awk, a variable, a symlink, a recursive reader) finds
it hidden, in every mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolbelt.core.executor import ToolCall
from toolbelt.runtime import Runtime
from toolbelt.sandbox.landlock import abi_version

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(abi_version() < 4, reason="needs Landlock ABI 4 (Linux 6.7+)"),
]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    out, root = tmp_path / "out", tmp_path / "ws"
    (root / "secret").mkdir(parents=True)
    out.mkdir()
    (out / "secret.txt").write_text("SECRET-OUT\n")
    (root / "secret" / "a.txt").write_text("SECRET-DIR\n")
    (root / "k.txt").write_text("SECRET-KEY\n")
    (root / "ok.txt").write_text("SECRET-NOT-DENIED\n")
    deny = ["Read(./secret/**)", f"Read(/{out}/**)", "Read(./k.txt)"]
    (root / ".toolbelt").mkdir()
    settings = {"permissions": {"deny": deny}}
    (root / ".toolbelt" / "settings.json").write_text(json.dumps(settings))
    return root


async def _bash(root: Path, mode: str, *commands: str) -> list[str]:
    async with Runtime(root, mode=mode) as runtime:
        calls = [ToolCall(str(n), "bash", {"command": c}) for n, c in enumerate(commands)]
        return [result.text for result in await runtime.run(calls)]


async def test_commands_cannot_read_denied_paths_by_indirection(ws: Path) -> None:
    out = ws.parent / "out"
    texts = await _bash(
        ws,
        "bypass",  # approved commands: the workspace profile hides them too
        f"cat ok.txt; awk 'BEGIN{{system(\"cat {out}/secret.txt\")}}'",
        f"x={out}; cat $x/secret.txt; cat ok.txt",
        f"ln -s {out} o; cat o/secret.txt; cat ok.txt",
        "awk 'BEGIN{system(\"cat secret/a.txt k.txt ok.txt\")}'",
    )
    for text in texts:
        assert "SECRET-NOT-DENIED" in text  # the command ran
        assert "SECRET-OUT" not in text and "SECRET-DIR" not in text
        assert "SECRET-KEY" not in text


async def test_recursive_readers_skip_denied_paths_in_plan_mode(ws: Path) -> None:
    grep, find = await _bash(ws, "plan", "grep -r SECRET .", "find . -type f -exec cat {} +")
    assert grep.splitlines()[0] == "./ok.txt:SECRET-NOT-DENIED"
    assert "SECRET-DIR" not in grep and "SECRET-KEY" not in grep
    assert "SECRET-NOT-DENIED" in find
    assert "SECRET-DIR" not in find and "SECRET-KEY" not in find
