"""A remote server's question reaches only a person it may be for.

The HTTP door shares one connection per MCP server between its sessions. Two people call the
same remote tool through it at once, and the remote asks each caller a question; nothing on
the wire says which call asks, so neither person may see the other's question: both are
declined. One person's call alone is asked as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.types import ElicitRequestParams, ElicitResult

from tests.mcp.http_server import start
from tests.mcp_client.conftest import user_settings, write_servers
from tests.mcp_client.test_http_limits import serve

pytestmark = pytest.mark.anyio


def person(name: str, asked: list[str]) -> Any:
    """An MCP client's elicitation callback: notes the question, answers with ``name``."""

    async def answer(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"name": name})

    return answer


async def test_two_sessions_asking_at_once_get_no_question_of_the_other(
    workspace: Path, mark: str, user_config: Path
) -> None:
    remote, url = await serve("sse", mark)
    write_servers(workspace / ".mcp.json", {"fake": {"type": "http", "url": url}})
    user_settings(user_config, {"permissions": {"allow": ["mcp__fake"]}})
    door = start(workspace, "--trust-workspace")
    asked_alice: list[str] = []
    asked_bob: list[str] = []
    texts: dict[str, str] = {}
    try:
        async with (
            door.client(mode="legacy", elicitation_callback=person("alice", asked_alice)) as alice,
            door.client(mode="legacy", elicitation_callback=person("bob", asked_bob)) as bob,
        ):

            async def call(client: Any, text: str) -> None:
                result = await client.call_tool("mcp__fake__ask_together", {"text": text})
                texts[text] = result.content[0].text

            with anyio.fail_after(60):
                async with anyio.create_task_group() as group:
                    group.start_soon(call, alice, "for-alice")
                    group.start_soon(call, bob, "for-bob")
                assert (asked_alice, asked_bob) == ([], [])
                assert texts == {"for-alice": "for-alice: decline", "for-bob": "for-bob: decline"}

                alone = await alice.call_tool("mcp__fake__ask", {"text": "solo"})
    finally:
        door.stop()
        remote.terminate()
        with anyio.fail_after(20):
            await remote.wait()
    assert alone.content[0].text == "solo: alice"
    assert asked_alice == ["The MCP server `fake` asks: who is solo?"]
    assert asked_bob == []
