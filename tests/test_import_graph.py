"""No import cycles between toolbelt's modules.

Every ``import`` counts — at module level, under ``if TYPE_CHECKING:``, and inside functions
(a lazy import hides a cycle from Python, not from the reader) — except the re-exports in
``toolbelt/__init__.py``. A cycle means two modules each need the other: one of them should
depend on a small protocol or a third module instead.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).parent.parent / "src"


def module_graph(src: Path, package: str) -> dict[str, set[str]]:
    """Module → the package's modules it imports (anywhere in its code), read by a fresh
    interpreter: CPython 3.11's AST builder keeps one recursion counter per interpreter, which
    a thread left running by an earlier test can skew mid-parse ("AST constructor recursion
    depth mismatch", python/cpython#106905)."""
    done = subprocess.run(
        [sys.executable, __file__, str(src), package],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return {name: set(targets) for name, targets in json.loads(done.stdout).items()}


def _read_graph(src: Path, package: str) -> dict[str, set[str]]:
    files = {_module_name(path, src): path for path in (src / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        if name == package:
            continue  # the public facade re-exports everything
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for imported in _imported(node, name, path.name == "__init__.py"):
                while imported and imported not in files:
                    imported = imported.rpartition(".")[0]
                if imported and imported != name:
                    targets.add(imported)
        graph[name] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path ``[a, b, ..., a]``, or None when the graph is acyclic."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        anchor = module.split(".")
        anchor = anchor if is_package else anchor[:-1]
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return [f"{base}.{alias.name}" for alias in node.names]


def test_toolbelt_has_no_import_cycle() -> None:
    graph = module_graph(SRC, "toolbelt")
    assert len(graph) > 90
    assert find_cycle(graph) is None


def test_decisions_read_no_configuration() -> None:
    """``permissions`` decides from what it is given; reading and writing settings, trust and
    the user's configuration is ``config``'s job, which depends on ``permissions``, never the
    reverse (a decision that opened a file could not be tested or reused without one)."""
    graph = module_graph(SRC, "toolbelt")
    reaching = {
        module: sorted(t for t in targets if t.startswith("toolbelt.config"))
        for module, targets in graph.items()
        if module.startswith("toolbelt.permissions")
    }
    assert len(reaching) > 20
    assert {module: found for module, found in reaching.items() if found} == {}
    assert any(t.startswith("toolbelt.permissions") for t in graph["toolbelt.config.factory"])


def test_the_check_finds_a_cycle_hidden_in_a_lazy_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.b\n"
    )
    (package / "b.py").write_text("def f():\n    from pkg.c import g\n")
    (package / "c.py").write_text("from . import a\n")
    graph = module_graph(tmp_path, "pkg")
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]


if __name__ == "__main__":
    read = _read_graph(Path(sys.argv[1]), sys.argv[2])
    print(json.dumps({name: sorted(targets) for name, targets in read.items()}))
