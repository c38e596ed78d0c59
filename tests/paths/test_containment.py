"""The one containment test: component-wise, on paths or strings, the root itself included
(``is_within``) or not (``is_beneath``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolbelt.paths.containment import is_beneath, is_within, is_within_any


@pytest.mark.parametrize(
    ("path", "root", "within", "beneath"),
    [
        ("/w", "/w", True, False),
        ("/w/src/a.py", "/w", True, True),
        ("/w-evil/a.py", "/w", False, False),
        ("/w", "/w/src", False, False),
        ("/w/", "/w", True, False),
        ("/w/src", "/w/", True, True),
        ("/etc/passwd", "/", True, True),
        ("/", "/", True, False),
        ("src/a.py", "src", True, True),
        ("/w/src", "w", False, False),
    ],
)
def test_containment_compares_components(path: str, root: str, within: bool, beneath: bool) -> None:
    assert (is_within(path, root), is_beneath(path, root)) == (within, beneath)
    assert (is_within(Path(path), Path(root)), is_beneath(Path(path), Path(root))) == (
        within,
        beneath,
    )


def test_within_any_root() -> None:
    assert is_within_any("/b/x", ["/a", "/b"])
    assert not is_within_any("/c/x", ["/a", "/b"])
    assert not is_within_any("/a", [])
