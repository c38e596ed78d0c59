"""No import cycles between toolbelt's modules, and packages stacked in one order.

Modules: every ``import`` counts — at module level, under ``if TYPE_CHECKING:``, and inside
functions (a lazy import hides a cycle from Python, not from the reader) — except the
re-exports in ``toolbelt/__init__.py``. A cycle means two modules each need the other: one of
them should depend on a small protocol or a third module instead.

Packages: every import that *runs* counts (module level and inside functions; a
``TYPE_CHECKING`` import is a type annotation, not a dependency), and each package may import
only the packages below it in ``LAYERS``. That is what keeps the rooms apart: ``core`` imports
no other toolbelt package, the policy decides without reading configuration, the sandbox knows
nothing of the tools, and no door is imported by what it serves.
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


LAYERS = (
    "core",
    "paths",
    "policy",
    "commands",
    "procs",
    "sandbox",
    "shell",
    "runners",
    "files",
    "checkpoints",
    "search",
    "outline",
    "lsp",
    "providers",
    "web",
    "hooks",
    "config",
    "skills",
    "toolsearch",
    "tools",
    "mcp_client",
    "remote",
    "runtime",
    "agent",
    "mcp",
    "integrations",
    "testing",
    "cli",
    "__main__",  # `python -m toolbelt`: the command
)
"""toolbelt's packages (and top-level modules), lowest first: each imports only those before it."""


def package_graph(src: Path, package: str) -> dict[str, set[str]]:
    """Package → the packages its imports that run reach, read by a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, __file__, str(src), package, "--packages"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return {name: set(targets) for name, targets in json.loads(done.stdout).items()}


def upward_imports(graph: dict[str, set[str]], layers: tuple[str, ...]) -> list[str]:
    """Every edge that goes to a package at the same height or above, as ``a -> b``."""
    height = {name: index for index, name in enumerate(layers)}
    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if height[target] >= height[source]
    )


def _read_package_graph(src: Path, package: str) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in (src / package).rglob("*.py"):
        parts = path.relative_to(src / package).with_suffix("").parts
        if parts == ("__init__",):
            continue  # the public facade re-exports everything
        own = parts[0]
        targets = graph.setdefault(own, set())
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            for imported in _imported(node, ".".join((package, *parts)), parts[-1] == "__init__"):
                pieces = imported.split(".")
                if pieces[0] == package and len(pieces) > 1 and pieces[1] != own:
                    targets.add(pieces[1])
    return graph


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` outside ``if TYPE_CHECKING:`` blocks (their ``else`` runs)."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


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


def test_packages_import_only_the_layers_below_them() -> None:
    graph = package_graph(SRC, "toolbelt")
    assert set(graph) == set(LAYERS)
    assert upward_imports(graph, LAYERS) == []
    assert graph["core"] == set()


def test_decisions_read_no_configuration() -> None:
    """The policy, the path guard and the command analysis decide from what they are given;
    reading settings, trust and the user's configuration is ``config``'s job, which depends on
    them, never the reverse (a decision that opened a file could not be tested or reused
    without one) — not even through a type annotation."""
    graph = module_graph(SRC, "toolbelt")
    deciding = ("toolbelt.policy", "toolbelt.paths", "toolbelt.commands")
    reaching = {
        module: sorted(t for t in targets if t.startswith("toolbelt.config"))
        for module, targets in graph.items()
        if module.startswith(deciding)
    }
    assert len(reaching) > 30
    assert {module: found for module, found in reaching.items() if found} == {}
    assert any(t.startswith("toolbelt.policy") for t in graph["toolbelt.config.factory"])


def test_the_layer_check_sees_lazy_imports_and_skips_type_annotations(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    for name in ("low", "high"):
        (package / name).mkdir(parents=True)
        (package / name / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from pkg.high import x\n")
    (package / "low" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pkg.high import b\n"
        "def f():\n    from pkg.high.b import g\n"
    )
    (package / "high" / "b.py").write_text("import pkg.low.a\n")
    graph = package_graph(tmp_path, "pkg")
    assert graph == {"low": {"high"}, "high": {"low"}}
    assert upward_imports(graph, ("low", "high")) == ["low -> high"]
    (package / "low" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high import b\n"
    )
    assert upward_imports(package_graph(tmp_path, "pkg"), ("low", "high")) == []


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
    reader = _read_package_graph if sys.argv[3:] == ["--packages"] else _read_graph
    read = reader(Path(sys.argv[1]), sys.argv[2])
    print(json.dumps({name: sorted(targets) for name, targets in read.items()}))
