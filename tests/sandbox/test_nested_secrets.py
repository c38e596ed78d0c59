"""Commands that run without a prompt do not see a secret's name below a protected directory
(``.devcontainer/.env``, ``sub/.github/.env.local``, ``.git/.env``) any more than the top
``.env``, nor a hard link to one, with either backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sandboxes import backend_params
from tests.tools.helpers import Harness
from toolbelt.sandbox.sandbox import SandboxSettings

pytestmark = pytest.mark.anyio

SECRETS = [
    ".env",
    ".devcontainer/.env",
    ".github/.env",
    ".vscode/.env.local",
    ".git/.env",
    "sub/.idea/.env",
    "sub/.cargo/deep/.env.prod",
    ".claude/.vscode/.env",
]


@pytest.mark.parametrize("sandbox", backend_params(minimum_landlock_abi=4))
async def test_readonly_commands_do_not_see_secrets_below_protected_directories(
    tmp_path: Path, sandbox: str
) -> None:
    for number, name in enumerate(SECRETS):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"SEKRET_{number}\n")
    (tmp_path / "twin.txt").hardlink_to(tmp_path / ".github" / ".env")
    (tmp_path / "plain.txt").write_text("SEKRET_plain\n")
    h = Harness(tmp_path, mode="default", approve=False)
    h.session.resource(SandboxSettings, lambda: SandboxSettings(mode=sandbox))
    try:
        result = await h.call("bash", command="grep -rh SEKRET . ; find . -type f -exec cat {} +")
        assert h.requester.asked == []  # read-only: it ran without a prompt
        assert "SEKRET_plain" in result.text
        for number in range(len(SECRETS)):
            assert f"SEKRET_{number}" not in result.text, result.text
    finally:
        await h.session.aclose()
