"""``toolbelt run`` where the model providers' SDKs (the ``providers`` extra) are not installed:
one sentence naming the install command, the exit status of a set-up error, no traceback.

The SDK is hidden from a real ``toolbelt run`` process by a ``sitecustomize`` module on its
``PYTHONPATH`` whose import hook makes importing it fail, as it fails where it is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.toolbelt_cli import toolbelt_run

HIDE = '''\
import sys


class HideSdk:
    """Makes `import {module}` fail as it does where the SDK is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "{module}":
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, HideSdk())
'''


@pytest.mark.parametrize(
    ("model", "module", "label"),
    [
        ("openai:gpt-test", "openai", "OpenAI"),
        ("ollama:qwen3-coder", "openai", "Ollama"),
        ("anthropic:claude-test", "anthropic", "Anthropic"),
        ("gemini:gemini-test", "google", "Gemini"),
    ],
)
def test_a_missing_sdk_names_the_providers_extra(
    model: str, module: str, label: str, tmp_path: Path
) -> None:
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(HIDE.format(module=module))
    done = toolbelt_run(
        "say hi",
        "--model",
        model,
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--root",
        str(tmp_path),
        home=tmp_path,
        env={"PYTHONPATH": str(hide)},
    )
    assert done.stderr == (
        f"toolbelt: {model} needs the {label} SDK, which is not installed (no module named "
        f"'{module}'); install the providers extra: pip install 'agent-toolbelt[providers]'\n"
    )
    assert (done.returncode, done.stdout) == (2, "")
