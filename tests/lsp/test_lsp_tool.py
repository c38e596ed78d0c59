"""The lsp tool against the real basedpyright and typescript-language-server: definitions,
references, implementations, hover, a file's symbols, a workspace search and diagnostics,
each answer as the model reads it; and the refusals a model can act on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.lsp.settings import LspSettings

pytestmark = pytest.mark.anyio

BASEDPYRIGHT = Path(sys.prefix) / "bin" / "basedpyright-langserver"
REPO = Path(__file__).resolve().parents[2]
TS_SERVER = REPO / ".node" / "node_modules" / ".bin" / "typescript-language-server"
needs_basedpyright = pytest.mark.skipif(
    not BASEDPYRIGHT.exists(), reason="basedpyright is not installed (scripts/bootstrap)"
)

SHAPES = """from abc import ABC, abstractmethod


class Shape(ABC):
    @abstractmethod
    def area(self) -> float: ...


class Square(Shape):
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side


def total_area(shapes: list[Shape]) -> float:
    return sum(shape.area() for shape in shapes)
"""

MAIN = """from pkg.shapes import Square, total_area


def run() -> float:
    squares: list[Shape] = [Square(1.0), Square(2.0)]
    return total_area(squares)
"""


@pytest.fixture
async def h(tmp_path: Path) -> Harness:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "shapes.py").write_text(SHAPES)
    (tmp_path / "pkg" / "main.py").write_text(MAIN)
    harness = Harness(tmp_path)
    harness.session.provide(LspSettings, LspSettings())
    yield harness
    await harness.session.aclose()


async def ask(h: Harness, **arguments: object) -> str:
    result = await h.call("lsp", **arguments)
    assert not result.is_error, result.text
    return result.text


@needs_basedpyright
async def test_definition_references_implementations_hover(h: Harness) -> None:
    assert await ask(
        h, operation="definition", path="pkg/main.py", line=6, symbol="total_area"
    ) == (
        "Definition of total_area (pkg/main.py:6): 1 in 1 file:\n"
        "pkg/shapes.py:17:5: def total_area(shapes: list[Shape]) -> float:"
    )
    assert await ask(h, operation="references", path="pkg/shapes.py", line=17, character=5) == (
        "References of the symbol (pkg/shapes.py:17): 3 in 2 files:\n"
        "pkg/main.py:1:32: from pkg.shapes import Square, total_area\n"
        "pkg/main.py:6:12: return total_area(squares)\n"
        "pkg/shapes.py:17:5: def total_area(shapes: list[Shape]) -> float:"
    )
    assert await ask(
        h, operation="implementations", path="pkg/shapes.py", line=6, symbol="area"
    ) == (
        "Implementations of area (pkg/shapes.py:6): 2 in 1 file:\n"
        "pkg/shapes.py:6:9: def area(self) -> float: ...\n"
        "pkg/shapes.py:13:9: def area(self) -> float:"
    )
    by_name = await ask(h, operation="references", path="pkg/shapes.py", symbol="Square.area")
    assert by_name.splitlines()[0] == "References of area (pkg/shapes.py:13): 1 in 1 file:"
    hover = await ask(h, operation="hover", path="pkg/shapes.py", line=17, symbol="total_area")
    assert "def total_area(shapes: list[Shape]) -> float" in hover


@needs_basedpyright
async def test_symbols_of_a_file_a_workspace_search_and_diagnostics(h: Harness) -> None:
    assert await ask(h, operation="symbols", path="pkg/shapes.py") == (
        "Outline of pkg/shapes.py (18 lines):\n"
        "class Shape(ABC)  (lines 4-6)\n"
        "  def area(self) -> float  (lines 6-6)\n"
        "class Square(Shape)  (lines 9-14)\n"
        "  def __init__(self, side: float) -> None  (lines 10-11)\n"
        "  def area(self) -> float  (lines 13-14)\n"
        "def total_area(shapes: list[Shape]) -> float  (lines 17-18)"
    )
    assert await ask(h, operation="symbols", path=".", symbol="Square.area") == (
        "Definitions named 'Square.area': 1 in 1 file:\n"
        "pkg/shapes.py:13: def area(self) -> float  (lines 13-14, in Square)"
    )
    assert await ask(h, operation="symbols", path=".", symbol="total") == (
        "Definitions with names containing 'total': 1 in 1 file:\n"
        "pkg/shapes.py:17: def total_area(shapes: list[Shape]) -> float  (lines 17-18)"
    )
    assert await ask(h, operation="diagnostics", path="pkg/main.py") == (
        "1 diagnostics in pkg/main.py (basedpyright), errors first:\n"
        '  pkg/main.py:5:19: error [reportUndefinedVariable] "Shape" is not defined'
    )


@needs_basedpyright
async def test_refusals_say_what_to_give_instead(h: Harness) -> None:
    missing = await h.call("lsp", operation="definition", path="pkg/main.py")
    assert missing.is_error
    assert missing.text == (
        "definition needs `symbol` (a definition's name, Class.method for a method) or `line` "
        "(and `symbol` or `character` on it)."
    )
    wrong = await h.call("lsp", operation="definition", path="pkg/main.py", line=6, symbol="nope")
    assert wrong.is_error
    assert wrong.text == (
        "'nope' is not on line 6 of pkg/main.py, which reads: 'return total_area(squares)'. "
        "Give the line where it appears, or its character column."
    )
    (h.root / "notes.txt").write_text("hello\n")
    unknown = await h.call("lsp", operation="symbols", path="notes.txt")
    assert unknown.is_error
    assert unknown.text == "No language server knows notes.txt's kind of file."


@pytest.mark.skipif(not TS_SERVER.exists(), reason="typescript-language-server is not installed")
async def test_typescript_references(tmp_path: Path) -> None:
    (tmp_path / "lib.ts").write_text(
        "export function double(n: number): number {\n  return n * 2;\n}\n"
    )
    (tmp_path / "main.ts").write_text('import { double } from "./lib";\nconsole.log(double(2));\n')
    (tmp_path / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    h = Harness(tmp_path)
    h.session.provide(LspSettings, LspSettings(servers={"typescript": (str(TS_SERVER), "--stdio")}))
    try:
        text = await ask(h, operation="references", path="lib.ts", line=1, symbol="double")
    finally:
        await h.session.aclose()
    assert text.splitlines() == [
        "References of double (lib.ts:1): 3 in 2 files:",
        "lib.ts:1:17: export function double(n: number): number {",
        'main.ts:1:10: import { double } from "./lib";',
        "main.ts:2:13: console.log(double(2));",
    ]
