"""The public API is exactly ``toolbelt.__all__``, every name resolves, and import is cheap."""

from __future__ import annotations

import subprocess
import sys

import toolbelt


def test_all_is_sorted_and_resolves() -> None:
    assert toolbelt.__all__ == sorted(toolbelt.__all__)
    for name in toolbelt.__all__:
        assert getattr(toolbelt, name) is not None


def test_importing_toolbelt_loads_no_heavy_module() -> None:
    code = (
        "import sys, toolbelt, toolbelt.cli.main; "
        "print(sorted(m for m in ('pydantic', 'rich', 'mcp', 'anthropic', 'openai', 'httpx') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_call_path_imports_no_provider_or_mcp_sdk() -> None:
    code = (
        "import sys; from toolbelt.cli.main import main; main(['call', 'think', "
        "'{\"thought\": \"x\"}']); print(sorted(m for m in ('mcp', 'anthropic', 'openai', "
        "'google.genai', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[]"
