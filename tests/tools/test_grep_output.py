"""grep prints the same lines whether or not it must cut paths out of rg's output to filter
them (a read-deny rule is set): rg's own `path:N:text` form, or `path\\0N:text` joined."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.tools.helpers import Harness

from toolbelt.config.factory import build_policy
from toolbelt.config.settings import load_settings

pytestmark = pytest.mark.anyio


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "w"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a:b.py").write_text("one\nneedle 1\ntwo\nthree\nfour\nneedle 2\nfive\n")
    (root / "src" / "c.py").write_text("needle 3\n")
    (root / "hidden").mkdir()
    (root / "hidden" / "d.py").write_text("needle 4\n")
    return root


def harness(root: Path, *, deny: bool) -> Harness:
    h = Harness(root, mode="bypass")
    if deny:
        (root / ".toolbelt").mkdir(exist_ok=True)
        rules = {"permissions": {"deny": ["Read(./hidden/**)"]}}
        (root / ".toolbelt" / "settings.json").write_text(json.dumps(rules))
        settings = load_settings(root, home=root.parent / "home")
        h.executor.policy = build_policy(h.session, "bypass", settings=settings)
        hidden = h.executor.policy.hidden_paths()
        assert hidden is not None and hidden(root / "hidden" / "d.py")
    return h


HIDDEN = "hidden/d.py:1:needle 4"
CASES: list[tuple[dict[str, Any], list[str]]] = [
    (
        {"output_mode": "content"},
        ["src/a:b.py:2:needle 1", "src/a:b.py:6:needle 2", "src/c.py:1:needle 3", HIDDEN],
    ),
    (
        {"output_mode": "content", "context": 1},
        [
            "src/a:b.py-1-one",
            "src/a:b.py:2:needle 1",
            "src/a:b.py-3-two",
            "--",
            "src/a:b.py-5-four",
            "src/a:b.py:6:needle 2",
            "src/a:b.py-7-five",
            "--",
            "src/c.py:1:needle 3",
            "--",
            HIDDEN,
        ],
    ),
    ({"output_mode": "count"}, ["src/a:b.py:2", "src/c.py:1", "hidden/d.py:1"]),
]


@pytest.mark.parametrize(("arguments", "expected"), CASES)
async def test_the_same_lines_with_and_without_a_read_deny_rule(
    tree: Path, arguments: dict[str, Any], expected: list[str]
) -> None:
    plain = await harness(tree, deny=False).call("grep", pattern="needle", **arguments)
    filtered = await harness(tree, deny=True).call("grep", pattern="needle", **arguments)
    assert sorted(plain.text.split("\n")) == sorted(expected)
    # with the rule, the lines cut out of rg's NUL form read the same; hidden/ is gone
    kept = [line for line in expected if not line.startswith("hidden/")]
    assert sorted(filtered.text.split("\n")) == sorted(kept[:-1] if kept[-1] == "--" else kept)


async def test_context_lines_count_as_results_when_paging(tree: Path) -> None:
    h = harness(tree, deny=False)
    page = await h.call(
        "grep",
        pattern="needle",
        path="src/a:b.py",
        output_mode="content",
        context=1,
        head_limit=1,
        offset=1,
    )
    assert page.text.split("\n\n")[0] == "a:b.py:2:needle 1"
    assert page.output.structured == {
        "mode": "content",
        "results": 1,
        "offset": 1,
        "truncated": True,
    }
