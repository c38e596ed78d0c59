"""``open_model``: names, keys, base URLs, and the messages that say what to fix."""

from __future__ import annotations

import socket
import subprocess
import sys
from functools import partial
from pathlib import Path

import anyio
import pytest

from tests.support.conversation import model, one_turn, request, user
from tests.support.fake_provider import FakeProvider
from toolbelt.providers.model import ProviderError, TextDelta
from toolbelt.providers.open import open_model

KEYS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def test_unknown_provider_lists_the_valid_ones() -> None:
    with pytest.raises(ProviderError) as caught:
        open_model("mistral:large")
    assert str(caught.value) == (
        "Unknown model provider 'mistral' in 'mistral:large'; use one of anthropic, openai, "
        "openai-responses, gemini, ollama, openai-compatible."
    )


def test_a_name_without_provider_says_how_to_write_it() -> None:
    with pytest.raises(ProviderError, match=r"'gpt-5' names no provider; write provider:model"):
        open_model("gpt-5")


@pytest.mark.parametrize(
    ("spec", "variable"),
    [
        ("anthropic:claude-sonnet-4-6", "ANTHROPIC_API_KEY"),
        ("openai:gpt-5", "OPENAI_API_KEY"),
        ("openai-responses:gpt-5", "OPENAI_API_KEY"),
        ("gemini:gemini-2.5-flash", "GEMINI_API_KEY"),
    ],
)
def test_a_missing_key_names_the_variable_to_set(spec: str, variable: str) -> None:
    with pytest.raises(ProviderError) as caught:
        open_model(spec)
    assert caught.value.kind == "auth"
    assert str(caught.value) == (
        f"{spec} needs an API key: set {variable} (or point the base URL at a server on this "
        "machine, which needs none)."
    )


def test_keys_and_base_urls_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    with FakeProvider([{"text": "hi"}]) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
        anyio.run(one_turn, request(user("hi")), "openai:gpt-5")
    assert fake.requests[0].headers["authorization"] == "Bearer sk-from-env"


def test_openai_compatible_needs_a_base_url() -> None:
    with pytest.raises(ProviderError, match=r"needs the server's base URL; pass --base-url"):
        open_model("openai-compatible:Qwen/Qwen3-Coder-30B")


def test_a_base_url_that_is_not_http_is_refused() -> None:
    with pytest.raises(ProviderError, match=r"The base URL 'localhost:8000' is not an http"):
        open_model("openai-compatible:m", base_url="localhost:8000")


def test_an_unreachable_base_url_names_the_url() -> None:
    with socket.socket() as probe:  # a port nothing listens on any more
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    spec = "openai-compatible:qwen3"
    with pytest.raises(ProviderError) as caught:
        anyio.run(partial(one_turn, request(user("hi")), spec, base_url=url))
    assert caught.value.kind == "connection"
    message = str(caught.value)
    assert message.startswith(f"Cannot reach the OpenAI-compatible server at {url} (")
    assert message.endswith(
        "); check that the server is running and that the URL is right (set OPENAI_BASE_URL "
        "or pass --base-url)."
    )


@pytest.mark.parametrize(
    ("provider", "label", "url_of"),
    [
        ("openai", "OpenAI", "openai_url"),
        ("anthropic", "Anthropic", "url"),
        ("openai-responses", "OpenAI", "openai_url"),
        ("gemini", "Gemini", "url"),
    ],
)
def test_an_unknown_model_reports_the_servers_404(provider: str, label: str, url_of: str) -> None:
    missing = {"status": 404, "error": "The model 'nope' does not exist"}
    with FakeProvider([missing]) as fake:
        base = getattr(fake, url_of)
        turn = partial(
            one_turn, request(user("hi")), f"{provider}:nope", base_url=base, api_key="k"
        )
        with pytest.raises(ProviderError) as caught:
            anyio.run(turn)
    assert caught.value.kind == "not_found" and caught.value.status == 404
    assert str(caught.value) == (
        f"{label} at {base} does not know the model 'nope' (404: The model 'nope' does not "
        f"exist); check the model name after '{provider}:'."
    )


@pytest.mark.parametrize(
    ("spec", "url_of"),
    [
        ("openai:gpt-5", "openai_url"),
        ("anthropic:claude-sonnet-4-6", "url"),
        ("openai-responses:gpt-5", "openai_url"),
        ("gemini:gemini-2.5-flash", "url"),
    ],
)
def test_cancelling_mid_stream_closes_the_connection(spec: str, url_of: str) -> None:
    async def scenario(fake: FakeProvider) -> list[object]:
        seen: list[object] = []
        async with model(spec, base_url=getattr(fake, url_of), api_key="k") as client:
            with anyio.CancelScope() as scope:
                async for event in client.stream(request(user("hi"))):
                    seen.append(event)
                    if isinstance(event, TextDelta):
                        scope.cancel()
        return seen

    with FakeProvider([{"text": "Hello there", "hang": True}]) as fake:
        seen = anyio.run(scenario, fake)
        assert fake.disconnected.wait(10), "the client kept the connection open"
    assert seen == [TextDelta("Hello")]


def test_toolbelt_and_its_call_path_import_no_sdk(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    code = (
        "import sys; import toolbelt, toolbelt.providers.open, toolbelt.providers.catalog; "
        "from toolbelt.cli.main import main; "
        "status = main(['call', 'read_file', '{\"path\": \"a.txt\"}', '--root', sys.argv[1]]); "
        "print(status, sorted(m for m in ('anthropic', 'openai', 'google.genai', 'httpx2') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert "hello" in out.stdout
    assert out.stdout.splitlines()[-1] == "0 []"
