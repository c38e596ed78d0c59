"""symbol_edit: a rename across files through basedpyright, a definition replaced through
tree-sitter, both applied like apply_patch (every file or none, a diff per file, one
permission for all); the refusals a model can act on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.core.permission import Approval
from toolbelt.lsp.settings import LspSettings

pytestmark = pytest.mark.anyio

BASEDPYRIGHT = Path(sys.prefix) / "bin" / "basedpyright-langserver"

SHAPES = """class Square:
    def __init__(self, side: float) -> None:
        self.side = side

    @property
    def area(self) -> float:
        return self.side * self.side


def total_area(shapes: list[Square]) -> float:
    return sum(shape.area for shape in shapes)
"""
MAIN = """from pkg.shapes import Square, total_area

# total_area is documented here, a string "total_area" too


def run() -> float:
    return total_area([Square(1.0)])
"""


def project(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shapes.py").write_text(SHAPES)
    (root / "pkg" / "main.py").write_text(MAIN)


@pytest.mark.skipif(not BASEDPYRIGHT.exists(), reason="basedpyright is not installed")
async def test_rename_across_files_with_a_diff_each(tmp_path: Path) -> None:
    project(tmp_path)
    h = Harness(tmp_path)
    h.session.provide(LspSettings, LspSettings(diagnostics=False))
    try:
        result = await h.call(
            "symbol_edit",
            operation="rename",
            path="pkg/shapes.py",
            symbol="total_area",
            line=10,
            new_name="sum_areas",
        )
    finally:
        await h.session.aclose()
    assert not result.is_error, result.text
    assert h.requester.asked == [("symbol_edit", h.requester.asked[0][1])]  # one prompt
    assert (tmp_path / "pkg" / "shapes.py").read_text() == SHAPES.replace(
        "def total_area", "def sum_areas"
    )
    assert (tmp_path / "pkg" / "main.py").read_text() == MAIN.replace(
        "import Square, total_area", "import Square, sum_areas"
    ).replace("return total_area(", "return sum_areas(")  # the comment and string untouched
    assert result.text.splitlines()[0] == "Renamed total_area to sum_areas in 2 files:"
    assert "-def total_area(shapes: list[Square]) -> float:" in result.text
    assert "+    return sum_areas([Square(1.0)])" in result.text


async def test_replace_a_method_whole_keeping_its_decorator(tmp_path: Path) -> None:
    project(tmp_path)
    h = Harness(tmp_path)
    h.session.provide(LspSettings, LspSettings(diagnostics=False))
    try:
        result = await h.call(
            "symbol_edit",
            operation="replace_body",
            path="pkg/shapes.py",
            symbol="Square.area",
            body="    def area(self) -> float:\n        return self.side**2\n",
        )
        twice = await h.call(
            "symbol_edit", operation="replace_body", path="pkg/shapes.py", symbol="nope", body="x"
        )
    finally:
        await h.session.aclose()
    assert not result.is_error, result.text
    assert (tmp_path / "pkg" / "shapes.py").read_text() == SHAPES.replace(
        "return self.side * self.side", "return self.side**2"
    )
    assert result.text == (
        "Replaced Square.area in 1 file:\n"
        "--- a/pkg/shapes.py\n+++ b/pkg/shapes.py\n@@ -4,7 +4,7 @@\n \n"
        "     @property\n     def area(self) -> float:\n"
        "-        return self.side * self.side\n+        return self.side**2\n \n \n"
        " def total_area(shapes: list[Square]) -> float:"
    )
    assert twice.is_error
    assert twice.text == (
        "pkg/shapes.py has no definition 'nope'; see its definitions with read_file "
        "outline=true (name a method as Class.method)."
    )


async def test_a_refused_permission_writes_nothing(tmp_path: Path) -> None:
    project(tmp_path)
    h = Harness(tmp_path, approve=False)
    h.session.provide(LspSettings, LspSettings(diagnostics=False))
    try:
        result = await h.call(
            "symbol_edit",
            operation="replace_body",
            path="pkg/shapes.py",
            symbol="total_area",
            body="def total_area(shapes):\n    return 0\n",
        )
    finally:
        await h.session.aclose()
    assert result.is_error
    assert h.requester.approval is Approval.DENY
    assert (tmp_path / "pkg" / "shapes.py").read_text() == SHAPES


@pytest.mark.skipif(not BASEDPYRIGHT.exists(), reason="basedpyright is not installed")
async def test_insert_after_and_a_safe_delete_only_of_what_nothing_uses(tmp_path: Path) -> None:
    project(tmp_path)
    h = Harness(tmp_path)
    h.session.provide(LspSettings, LspSettings(diagnostics=False))
    try:
        inserted = await h.call(
            "symbol_edit",
            operation="insert_after",
            path="pkg/shapes.py",
            symbol="total_area",
            body="\n\ndef unused() -> int:\n    return 1",
        )
        used = await h.call(
            "symbol_edit", operation="safe_delete", path="pkg/shapes.py", symbol="total_area"
        )
        deleted = await h.call(
            "symbol_edit", operation="safe_delete", path="pkg/shapes.py", symbol="unused"
        )
    finally:
        await h.session.aclose()
    assert not inserted.is_error, inserted.text
    assert used.is_error
    assert used.text == (
        "total_area is still used (pkg/main.py:1, pkg/main.py:7), so it was not deleted; change "
        "those uses first, or remove it with replace_body if that is what you mean."
    )
    assert not deleted.is_error, deleted.text
    assert (tmp_path / "pkg" / "shapes.py").read_text() == SHAPES
