"""Diagnostics after edits, with the real servers the bootstrap installs (basedpyright,
typescript-language-server), the ruff checker, and a fake server that hangs, crashes or is
late: new problems are reported with their line, fixed ones named, old ones left out, and no
server holds an edit's result or outlives the session."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from tests.tools.helpers import Harness

from toolbelt.lsp.service import CodeDiagnostics
from toolbelt.lsp.settings import LspSettings

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
FAKE = REPO / "tests" / "support" / "fake_lsp.py"
BASEDPYRIGHT = Path(sys.prefix) / "bin" / "basedpyright-langserver"
TS_SERVER = REPO / ".node" / "node_modules" / ".bin" / "typescript-language-server"
RUFF = Path(sys.prefix) / "bin" / "ruff"

needs_basedpyright = pytest.mark.skipif(
    not BASEDPYRIGHT.exists(), reason="basedpyright is not installed (scripts/bootstrap)"
)
needs_ts = pytest.mark.skipif(
    not TS_SERVER.exists() or shutil.which("node") is None,
    reason="typescript-language-server is not installed (scripts/bootstrap, needs npm)",
)
needs_ruff = pytest.mark.skipif(not RUFF.exists(), reason="ruff is not installed")

CALC = "import os\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n\n\nprint(missing)\n"


def harness(root: Path, settings: LspSettings) -> Harness:
    h = Harness(root, mode="accept_edits")
    h.session.provide(LspSettings, settings)
    return h


async def edit(h: Harness, path: str, old: str, new: str) -> str:
    result = await h.call("edit_file", path=path, old_string=old, new_string=new)
    assert not result.is_error, result.text
    return result.text


def diagnostics_part(text: str) -> list[str]:
    """The result's lines from the first one about diagnostics on."""
    lines = text.splitlines()
    starts = ("New diagnostics", "No new diagnostics", "Fixed in", "Diagnostics", "Note:")
    first = next((i for i, line in enumerate(lines) if line.startswith(starts)), len(lines))
    return lines[first:]


def fake(mode: str, token: str = "") -> tuple[str, ...]:
    return (sys.executable, str(FAKE), mode, token)


def running(token: str) -> list[int]:
    """The live (not zombie) processes whose command line holds ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if token.encode() in cmdline.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


@needs_basedpyright
async def test_basedpyright_reports_a_new_undefined_name_with_its_line_and_then_it_fixed(
    tmp_path: Path,
) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    h = harness(tmp_path, LspSettings(timeout=60))
    try:
        await h.call("read_file", path="calc.py")
        added = await edit(h, "calc.py", "return a + b", "return a + b + undefined_two")
        assert diagnostics_part(added) == [
            "New diagnostics in calc.py (basedpyright): 1 error",
            '  calc.py:5:20: error [reportUndefinedVariable] "undefined_two" is not defined',
        ]
        fixed = await edit(h, "calc.py", "return a + b + undefined_two", "return a + b")
        assert diagnostics_part(fixed) == [
            "Fixed in calc.py (no longer reported):",
            '  calc.py:5:20: error [reportUndefinedVariable] "undefined_two" is not defined',
            "No new diagnostics in calc.py (basedpyright).",
        ]
        # the file's own error (`missing`, line 8) moves down two lines: still not new
        moved = await edit(h, "calc.py", "import os\n", "import os\nimport sys\n\n")
        assert diagnostics_part(moved) == ["No new diagnostics in calc.py (basedpyright)."]
    finally:
        await h.session.aclose()


@needs_basedpyright
async def test_a_new_file_reports_every_problem_and_apply_patch_reports_per_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    h = harness(tmp_path, LspSettings(timeout=60))
    try:
        await h.call("read_file", path="a.py")
        result = await h.call(
            "apply_patch",
            input="*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = y\n"
            "*** Add File: b.py\n+print(z)\n*** End Patch\n",
        )
        assert not result.is_error, result.text
        assert diagnostics_part(result.text) == [
            "New diagnostics in a.py (basedpyright): 1 error",
            '  a.py:1:5: error [reportUndefinedVariable] "y" is not defined',
            "New diagnostics in b.py (basedpyright): 1 error",
            '  b.py:1:7: error [reportUndefinedVariable] "z" is not defined',
        ]
    finally:
        await h.session.aclose()


@needs_ts
async def test_typescript_language_server_reports_an_undefined_name(tmp_path: Path) -> None:
    source = "export function double(n: number): number {\n  return n * 2;\n}\n"
    (tmp_path / "main.ts").write_text(source)
    settings = LspSettings(timeout=60, servers={"typescript": (str(TS_SERVER), "--stdio")})
    h = harness(tmp_path, settings)
    try:
        await h.call("read_file", path="main.ts")
        added = await edit(h, "main.ts", "return n * 2;", "return n * factor;")
        assert diagnostics_part(added) == [
            "New diagnostics in main.ts (typescript-language-server): 1 error",
            "  main.ts:2:14: error [2304] Cannot find name 'factor'.",
        ]
    finally:
        await h.session.aclose()


@needs_ruff
async def test_without_a_server_ruff_reports_what_is_new(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    h = harness(tmp_path, LspSettings(timeout=60, servers={"python": None}))
    try:
        await h.call("read_file", path="calc.py")
        added = await edit(h, "calc.py", "return a + b", "return a + b + undefined_two")
        assert diagnostics_part(added) == [
            "New diagnostics in calc.py (ruff): 1 error",
            "  calc.py:5:20: error [F821] Undefined name `undefined_two`",
        ]
    finally:
        await h.session.aclose()


async def test_diagnostics_off_say_nothing(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    h = harness(tmp_path, LspSettings(diagnostics=False))
    try:
        await h.call("read_file", path="calc.py")
        added = await edit(h, "calc.py", "return a + b", "return a + b + undefined_two")
        assert diagnostics_part(added) == []
        assert h.session.peek(CodeDiagnostics) is None  # nothing was started
    finally:
        await h.session.aclose()


@needs_ruff
@pytest.mark.parametrize("mode", ["hang", "crash"])
async def test_a_hung_or_crashing_server_never_holds_the_edit(tmp_path: Path, mode: str) -> None:
    token = f"fake-{mode}-{tmp_path.name}"
    (tmp_path / "calc.py").write_text(CALC)
    h = harness(tmp_path, LspSettings(timeout=20, servers={"python": fake(mode, token)}))
    try:
        await h.call("read_file", path="calc.py")
        first = await edit(h, "calc.py", "return a + b", "return a + b + undefined_two")
        if mode == "hang":  # not up by the deadline: the checker answers meanwhile
            assert diagnostics_part(first) == [
                "New diagnostics in calc.py (ruff): 1 error",
                "  calc.py:5:20: error [F821] Undefined name `undefined_two`",
            ]
            assert running(token)  # still starting, in the background
        else:  # up, then gone at the first document
            assert diagnostics_part(first)[0] in (
                "Note: fake_lsp.py exited while checking calc.py.",  # at the first document
                "New diagnostics in calc.py (ruff): 1 error",  # or before the deadline's half
            )
            second = await edit(h, "calc.py", "undefined_two", "undefined_three")
            lines = diagnostics_part(second)
            assert lines[:2] == [
                "New diagnostics in calc.py (ruff): 1 error",
                "  calc.py:5:20: error [F821] Undefined name `undefined_three`",
            ]
            assert "Note: fake_lsp.py exited; it will be restarted after 1 s." in lines, lines
            # once the back-off has passed, the next edit starts it again; it crashes again,
            # and the back-off doubles
            service = h.session.peek(CodeDiagnostics)
            assert service is not None
            slot = service.servers._slots["fake_lsp.py"]
            await until(lambda: time.monotonic() >= slot.retry_at and slot.starting is None)
            third = await edit(h, "calc.py", "undefined_three", "undefined_four")
            await until(lambda: slot.starting is None)
            fourth = await edit(h, "calc.py", "undefined_four", "undefined_five")
            said = diagnostics_part(third) + diagnostics_part(fourth)
            assert any("it will be restarted after 2 s" in line for line in said), said
    finally:
        await h.session.aclose()
    assert running(token) == []


async def test_late_diagnostics_come_with_the_next_result(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    (tmp_path / "b.py").write_text("b = 1\n")
    h = harness(tmp_path, LspSettings(timeout=1.0, servers={"python": fake("slow:1.5")}))
    try:
        await h.call("read_file", path="a.py")
        await h.call("read_file", path="b.py")
        await edit(h, "a.py", "a = 1\n", "a = 2\n")  # starts the server
        service = h.session.peek(CodeDiagnostics)
        assert service is not None
        await until(lambda: bool(service.servers.running()))
        text = await edit(h, "a.py", "a = 2\n", "a = 3  # BROKEN\n")
        assert diagnostics_part(text) == [
            "Diagnostics for a.py did not arrive within 1 s (fake_lsp.py is still checking); "
            "they will be reported with the next result."
        ]
        pending = service._pending[tmp_path / "a.py"]
        await until(pending.work.done)
        other = await edit(h, "b.py", "b = 1\n", "b = 2\n")
        assert diagnostics_part(other)[:3] == [
            "Diagnostics that arrived late, for an earlier edit:",
            "New diagnostics in a.py (fake_lsp.py): 1 error",
            "  a.py:1:1: error [fake] BROKEN is not allowed",
        ]
    finally:
        await h.session.aclose()


async def until(condition: Callable[[], bool], limit: float = 30.0) -> None:
    """Poll ``condition`` until it holds (failing after ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        await anyio.sleep(0.02)


async def test_a_workspace_server_starts_only_in_a_trusted_workspace(tmp_path: Path) -> None:
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    server = bin_dir / "basedpyright-langserver"
    server.write_text(
        f"#!{sys.executable}\nimport runpy, sys\nsys.argv = [{str(FAKE)!r}, "
        "'echo:the workspace server ran']\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    server.chmod(0o755)
    (tmp_path / "calc.py").write_text(CALC)
    for trusted in (False, True):
        h = harness(tmp_path, LspSettings(timeout=60, trusted=trusted))
        try:
            await h.call("read_file", path="calc.py")
            text = await edit(h, "calc.py", "return a + b", "return a + b  # BROKEN")
            await edit(h, "calc.py", "return a + b  # BROKEN", "return a + b")
        finally:
            await h.session.aclose()
        lines = diagnostics_part(text)
        if trusted:
            assert lines == [
                "New diagnostics in calc.py (basedpyright): 1 error",
                "  calc.py:5:1: error [fake] the workspace server ran",
            ]
        else:
            assert "the workspace server ran" not in text
            assert (
                f"Note: basedpyright at {server} is the workspace's own program and the "
                "workspace is not trusted, so it was not started (trust the workspace with "
                "`toolbelt trust` to use it)." in lines
            ), lines
        assert os.access(server, os.X_OK)


@needs_ruff
async def test_a_notebook_edit_reports_the_new_problem_by_cell(tmp_path: Path) -> None:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("import os\nx = 1", id="first"),
        nbformat.v4.new_markdown_cell("notes", id="notes"),
        nbformat.v4.new_code_cell("print(x)", id="last"),
    ]
    (tmp_path / "nb.ipynb").write_text(nbformat.writes(notebook))
    h = harness(tmp_path, LspSettings(timeout=60))
    try:
        await h.call("read_file", path="nb.ipynb")
        result = await h.call(
            "notebook_edit", path="nb.ipynb", cell_id="last", new_source="print(x)\nprint(y)"
        )
    finally:
        await h.session.aclose()
    assert not result.is_error, result.text
    assert diagnostics_part(result.text) == [
        "New diagnostics in nb.ipynb (ruff): 1 error",
        "  nb.ipynb:cell 3:2:7: error [F821] Undefined name `y`",
    ]
