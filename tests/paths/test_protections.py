"""One catalogue of protected paths per session, and the guard, the policy and the sandbox all
go by it: a location protected in one of them and not the others would be a hole (``cat``
showing what ``read_file`` asks for)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.sandboxes import backend_params
from toolbelt import Runtime, SandboxSettings, ToolCall
from toolbelt.config.factory import session_protections
from toolbelt.core.access import Access, AccessKind
from toolbelt.core.permission import Ask, PermissionRequest
from toolbelt.core.rule_identity import FILE_WRITE
from toolbelt.paths import protected
from toolbelt.paths.guard import PathGuard
from toolbelt.paths.protections import Protections
from toolbelt.paths.user_config import UserConfig
from toolbelt.policy.policy import ToolbeltPolicy
from toolbelt.sandbox.profiles import workspace_grants
from toolbelt.testing import tool_context
from toolbelt.tools._files import file_guard
from toolbelt.tools._shell import session_sandbox

pytestmark = pytest.mark.anyio

MARK = "kept-in-the-configuration-5150"


@pytest.fixture
def configuration() -> Path:
    """A file in the user's toolbelt configuration where ``XDG_CONFIG_HOME`` puts it: outside
    the home directory (the tests' private XDG directories are), so no list of home
    secrets names it — only the user's configuration does."""
    directory = Path(os.environ["XDG_CONFIG_HOME"]) / "toolbelt"
    directory.mkdir(parents=True, exist_ok=True)
    notes = directory / "notes.txt"
    notes.write_text(MARK + "\n")
    assert not notes.is_relative_to(Path.home())
    return notes


@pytest.mark.parametrize("backend", backend_params())
async def test_the_configuration_is_a_secret_to_the_tools_the_policy_and_the_sandbox(
    tmp_path: Path, configuration: Path, backend: str
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    (root / "show.sh").write_text(f"cat {configuration}\n")
    async with Runtime(root, mode="bypass") as runtime:  # bypass: only protections ask
        runtime.use_sandbox(SandboxSettings(mode=backend))
        found = runtime.protections.of(configuration)
        assert found is not None and found.kind == "secret"

        read = await runtime.run_one(ToolCall("r", "read_file", {"path": str(configuration)}))
        assert read.is_error and "touches a protected path" in read.text, read.text
        written = {"path": str(configuration), "content": "{}"}
        write = await runtime.run_one(ToolCall("w", "write_file", written))
        assert write.is_error and "touches a protected path" in write.text, write.text
        # a script the command analysis cannot see into runs without asking in bypass mode;
        # the sandbox hides the configuration from it
        shown = await runtime.run_one(ToolCall("b", "bash", {"command": "sh show.sh"}))
        assert shown.is_error, shown.text
        assert MARK not in shown.text
    assert configuration.read_text() == MARK + "\n"


async def test_the_guard_and_the_sandbox_take_the_runtimes_catalogue(
    tmp_path: Path, configuration: Path
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    async with Runtime(root, mode="bypass") as runtime:
        catalogue = runtime.protections
        assert session_protections(runtime.session) is catalogue
        ctx = tool_context(runtime.session, "read_file")
        assert file_guard(ctx).protections is catalogue
        assert session_sandbox(runtime.session).protections is catalogue
        resolved = file_guard(ctx).resolve(str(configuration), root)
        assert resolved.protection is not None and resolved.protection.kind == "secret"


def test_a_location_given_to_the_catalogue_reaches_all_three(tmp_path: Path) -> None:
    """One new entry — here a configuration directory of the user's — and nothing else: the
    guard stamps a path there as secret, the policy's listings leave it out, the sandbox
    hides it; a write there asks in every mode (``test_user_config``)."""
    root, elsewhere = tmp_path / "w", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    secret = elsewhere / "mcp-9.token"
    secret.write_text("t\n")
    plain = Protections([root])
    given = Protections(
        [root], user_config=UserConfig.at([elsewhere], home=tmp_path / "h", runtime_dir=None)
    )
    assert plain.of(secret) is None
    assert not plain.listed_secret(secret)
    assert str(elsewhere) not in workspace_grants([root], protections=plain).hidden

    resolved = PathGuard(root, protections=given).resolve(str(secret), root)
    assert resolved.protection is not None and resolved.protection.kind == "secret"
    assert given.listed_secret(secret)
    assert str(elsewhere) in workspace_grants([root], protections=given).hidden


def test_a_protected_name_added_to_the_table_reaches_all_three(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name added to the one table of protected names (``paths.protected``): a write tool's
    path is stamped with it, the policy asks before the write in every mode, and the sandbox
    keeps the file read-only."""
    root = tmp_path / "w"
    root.mkdir()
    (root / "deploy.cfg").write_text("hosts\n")
    before = Protections([root])
    assert PathGuard(root, protections=before).resolve("deploy.cfg", root).protection is None
    assert str(root / "deploy.cfg") not in workspace_grants([root], protections=before).protected

    monkeypatch.setitem(protected._FILES, "deploy.cfg", "deploy.cfg names the hosts to deploy to")
    protections = Protections([root])
    resolved = PathGuard(root, protections=protections).resolve("deploy.cfg", root)
    assert resolved.protection is not None and resolved.protection.kind == "code"
    access = Access(AccessKind.WRITE, paths=(resolved.path,), protections=(resolved.protection,))
    request = PermissionRequest("c", "write_file", {}, access, readonly=False, identity=FILE_WRITE)
    policy = ToolbeltPolicy(mode="bypass", roots=[root], protections=protections)
    decision = policy.decide(request)
    assert isinstance(decision, Ask) and "deploy.cfg names the hosts" in decision.reason
    unguarded = Access(AccessKind.WRITE, paths=(resolved.path,))  # a tool without the guard
    assert isinstance(
        policy.decide(
            PermissionRequest("c", "mcp__x__y", {}, unguarded, readonly=False, identity=FILE_WRITE)
        ),
        Ask,
    )
    assert str(root / "deploy.cfg") in workspace_grants([root], protections=protections).protected


@pytest.mark.parametrize(
    "name",
    [
        ".devcontainer/.env",
        ".git/.env.local",
        "sub/.vscode/.ENV",
        ".github/workflows/.env.prod",
        ".toolbelt/skills/x/.env",
    ],
)
def test_a_secret_name_below_a_protected_directory_is_a_secret(tmp_path: Path, name: str) -> None:
    """The strongest answer of every component: the directory says code, the name secret."""
    assert protected.protected_name(name) == ("secret", ".env files hold secrets")
    protections = Protections([tmp_path], home=tmp_path / "home")
    found = protections.of(tmp_path / name)
    assert found is not None and found.kind == "secret"
    assert protections.listed_secret(tmp_path / name)
    # the directory's own files stay code, and a `.env/` directory protects only its name
    code = protected.protected_name(".devcontainer/devcontainer.json")
    assert code is not None and code[0] == "code"
    assert protected.protected_name(".env/lib/site.py") is None
