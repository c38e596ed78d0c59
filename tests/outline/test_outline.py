"""Outlines from tree-sitter: a file's definitions with signatures and line ranges, as
read_file and the lsp tool show them, and the ranked map of a directory's definitions."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tools.helpers import Harness

from toolbelt.lsp.settings import LspSettings
from toolbelt.outline.grammars import grammar_for
from toolbelt.outline.outline import outline, render
from toolbelt.outline.repo_map import repo_map

pytestmark = pytest.mark.anyio

SOURCES = {
    "shapes.py": (
        b"from abc import ABC\n\n\nclass Shape(ABC):  # the base\n"
        b"    @property\n    def area(self) -> float:\n        def inner():\n"
        b"            pass\n        return 0.0\n\n\ndef total(shapes: list[Shape],\n"
        b"          scale: float = 1.0) -> float:\n    return 0.0\n",
        "class Shape(ABC)  (lines 4-9)\n"
        "  def area(self) -> float  (lines 6-9)\n"
        "def total(shapes: list[Shape], scale: float = 1.0) -> float  (lines 12-14)",
    ),
    "lib.ts": (
        b"export interface Shape { area(): number; }\n"
        b"export class Square implements Shape {\n  constructor(private side: number) {}\n"
        b"  area(): number { return this.side ** 2; }\n}\n"
        b"export const double = (n: number): number => n * 2;\ntype Id = string;\n",
        "interface Shape  (lines 1-1)\n"
        "  area(): number  (lines 1-1)\n"
        "class Square implements Shape  (lines 2-5)\n"
        "  constructor(private side: number)  (lines 3-3)\n"
        "  area(): number  (lines 4-4)\n"
        "double = (n: number): number  (lines 6-6)\n"
        "type Id = string  (lines 7-7)",
    ),
    "store.go": (
        b"package main\n\ntype Store struct {\n\titems []string\n}\n\n"
        b"func (s *Store) Add(item string) error {\n\treturn nil\n}\n",
        "Store struct  (lines 3-5)\nfunc (s *Store) Add(item string) error  (lines 7-9)",
    ),
    "lib.rs": (
        b"pub struct Store { items: Vec<String> }\n\nimpl Store {\n"
        b"    pub fn add(&mut self, item: String) -> bool { true }\n}\n",
        "pub struct Store  (lines 1-1)\n"
        "impl Store  (lines 3-5)\n"
        "  pub fn add(&mut self, item: String) -> bool  (lines 4-4)",
    ),
    "Store.java": (
        b"public class Store {\n    public Store() {}\n"
        b"    public boolean add(String item) { return true; }\n}\n",
        "public class Store  (lines 1-4)\n"
        "  public Store()  (lines 2-2)\n"
        "  public boolean add(String item)  (lines 3-3)",
    ),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_outline_of_each_language(name: str) -> None:
    data, expected = SOURCES[name]
    grammar = grammar_for(Path(name))
    assert grammar is not None
    assert render(outline(data, grammar)) == expected


def make_project(root: Path) -> None:
    (root / "core.py").write_text(
        "class Engine:\n    def start(self) -> None:\n        pass\n\n\n"
        "def helper_used_once() -> int:\n    return 1\n"
    )
    for n in range(4):
        (root / f"user{n}.py").write_text(
            f"from core import Engine\n\n\ndef use_{n}() -> None:\n    Engine().start()\n"
        )
    (root / "other.py").write_text("from core import helper_used_once\n")
    (root / "ignored.py").write_text("class Engine:\n    pass\n")
    (root / ".gitignore").write_text("ignored.py\n")


def test_the_map_ranks_definitions_by_the_files_that_use_them(tmp_path: Path) -> None:
    make_project(tmp_path)
    files = sorted(p for p in tmp_path.glob("*.py") if p.name != "ignored.py")
    text, entries = repo_map(tmp_path, files, shown=[p.name for p in files])
    assert text == (
        "core.py:\n"
        "  class Engine  (lines 1-3)\n"
        "    def start(self) -> None  (lines 2-3)\n"
        "  def helper_used_once() -> int  (lines 6-7)"
    )
    assert [(e.name, round(e.score, 2)) for e in entries] == [
        ("Engine", 2.0),  # 4 other files: √4
        ("helper_used_once", 1.0),  # 1 other file
        ("start", 0.6),  # 4 other files, but a plain lowercase word: √4 × 0.3
    ]


async def test_read_file_outline_and_the_lsp_tools_map(tmp_path: Path) -> None:
    make_project(tmp_path)
    (tmp_path / ".git").mkdir()  # a repository's .gitignore applies
    big = "".join(
        f"def function_{n}(value: int) -> int:\n    return value\n\n" for n in range(1200)
    )
    (tmp_path / "big.py").write_text(big)
    h = Harness(tmp_path)
    h.session.provide(LspSettings, LspSettings(servers={"python": None}))
    try:
        asked = await h.call("read_file", path="core.py", outline=True)
        whole = await h.call("read_file", path="big.py")
        mapped = await h.call("lsp", operation="symbols", path=".")
        filed = await h.call("lsp", operation="symbols", path="core.py")
    finally:
        await h.session.aclose()
    assert asked.text == (
        "Outline of core.py (7 lines):\n"
        "class Engine  (lines 1-3)\n"
        "  def start(self) -> None  (lines 2-3)\n"
        "def helper_used_once() -> int  (lines 6-7)"
    )
    assert asked.output.structured["definitions"][0]["children"][0]["name"] == "start"
    lines = whole.text.splitlines()
    assert lines[:3] == [
        "big.py has 3,600 lines, more than one read returns, so here is its outline; read the "
        "part you need with offset and limit.",
        "def function_0(value: int) -> int  (lines 1-2)",
        "def function_1(value: int) -> int  (lines 4-5)",
    ]
    assert mapped.text.splitlines()[:4] == [
        "The most used definitions in ., ranked by how many other files use their names "
        "(1 of 7 source files, about 2048 tokens):",
        "core.py:",
        "  class Engine  (lines 1-3)",
        "    def start(self) -> None  (lines 2-3)",
    ]
    assert "ignored.py" not in mapped.text  # .gitignore'd
    assert filed.text == asked.text  # no server for Python here: the outline stands in
