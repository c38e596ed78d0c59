"""ask_user over MCP: the questions reach the client's user as one elicitation form — through
the official SDK client in both wire eras, fastmcp's client, and a 2025-06-18 client spoken to
by hand — and a client without elicitation gets the no-one-to-ask error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import stdio_client
from mcp.types import ElicitResult
from tests.support.toolbelt_cli import TOOLBELT, TOOLBELT_ARGS

from mcp import Client, ClientSession, StdioServerParameters

pytestmark = pytest.mark.anyio

QUESTIONS = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [
                {"label": "PostgreSQL", "description": "already in production"},
                {"label": "SQLite"},
            ],
        },
        {
            "question": "Which features first?",
            "options": [{"label": "auth"}, {"label": "billing"}, {"label": "sso"}],
            "multi_select": True,
        },
        {"question": "Anything else?"},
    ]
}
FORM = {
    "type": "object",
    "properties": {
        "answer_1": {
            "type": "string",
            "title": "Database",
            "description": "Which database?",
            "enum": ["PostgreSQL", "SQLite"],
        },
        "answer_1_other": {
            "type": "string",
            "title": "Or in your own words",
            "description": "Instead",
        },
        "answer_2": {
            "type": "array",
            "title": "Question 2",
            "description": "Which features first?",
            "items": {"type": "string", "enum": ["auth", "billing", "sso"]},
            "uniqueItems": True,
        },
        "answer_2_other": {
            "type": "string",
            "title": "Or in your own words",
            "description": "Besides the choices",
        },
        "answer_3": {"type": "string", "title": "Question 3", "description": "Anything else?"},
    },
    "required": ["answer_3"],
}
MESSAGE = (
    "3 questions:\n\n"
    "1. [Database] Which database?\n  - PostgreSQL: already in production\n\n"
    "2. Which features first?\n\n"
    "3. Anything else?"
)
ANSWERS = {"answer_1": "SQLite", "answer_2": ["sso", "auth"], "answer_3": "keep it small"}
TOLD = (
    "The user answered:\n"
    "1. Which database? → SQLite\n"
    "2. Which features first? → auth, sso\n"
    "3. Anything else? → keep it small\n"
    "Go on with these answers."
)


def server(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=[*TOOLBELT_ARGS, "mcp", "--root", str(root)]
    )


def user(*replies: dict[str, Any]) -> Any:
    forms: list[tuple[str, Any]] = []
    queue = list(replies)

    async def elicit(context: Any, params: Any) -> ElicitResult:
        forms.append((params.message, params.requested_schema))
        return ElicitResult(**queue.pop(0))

    elicit.forms = forms  # type: ignore[attr-defined]
    return elicit


async def test_sdk_session_gets_one_form_and_the_model_the_answers(tmp_path: Path) -> None:
    elicit = user({"action": "accept", "content": ANSWERS}, {"action": "decline"})
    async with (
        stdio_client(server(tmp_path)) as (read, write),
        ClientSession(read, write, elicitation_callback=elicit) as client,
    ):
        await client.initialize()
        answered = await client.call_tool("ask_user", QUESTIONS)
        declined = await client.call_tool("ask_user", QUESTIONS)
    assert elicit.forms[0] == (MESSAGE, FORM)
    assert (answered.is_error, answered.content[0].text) == (False, TOLD)  # type: ignore[union-attr]
    assert answered.structured_content is not None
    assert answered.structured_content["answers"] == {
        "Which database?": "SQLite",
        "Which features first?": "auth, sso",
        "Anything else?": "keep it small",
    }
    assert declined.structured_content is not None
    assert declined.structured_content["outcome"] == "declined"
    assert declined.content[0].text.startswith(  # type: ignore[union-attr]
        "The user declined to answer:\n1. Which database? → (declined)\n"
    )


async def test_sdk_client_in_the_stateless_era_answers_by_retrying(tmp_path: Path) -> None:
    elicit = user({"action": "accept", "content": ANSWERS})
    async with Client(server(tmp_path), elicitation_callback=elicit) as client:
        assert client.session.discover_result is not None  # the 2026-07-28 wire
        answered = await client.call_tool("ask_user", QUESTIONS)
    assert elicit.forms == [(MESSAGE, FORM)]
    assert (answered.is_error, answered.content[0].text) == (False, TOLD)  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_without_elicitation_is_told_nobody_can_be_asked(
    tmp_path: Path, mode: str
) -> None:
    async with Client(server(tmp_path), mode=mode) as client:
        result = await client.call_tool("ask_user", QUESTIONS)
    assert result.is_error
    assert result.content[0].text == (  # type: ignore[union-attr]
        "This MCP client cannot ask the user a question in the middle of a call (it does not "
        "support elicitation); decide with what you know and say which assumption you made."
    )


async def test_fastmcp_client_fills_the_form(tmp_path: Path) -> None:
    from fastmcp.client import Client as FastClient
    from fastmcp.client.transports import StdioTransport

    seen: list[str] = []

    async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
        seen.append(message)
        return {"answer_1": "PostgreSQL", "answer_2_other": "audit log", "answer_3": "no"}

    args = [*TOOLBELT_ARGS, "mcp", "--root", str(tmp_path)]
    transport = StdioTransport(sys.executable, args, keep_alive=False)
    async with FastClient(transport, elicitation_handler=handler) as client:
        result = await client.call_tool("ask_user", QUESTIONS)
    assert seen == [MESSAGE]
    assert result.content[0].text.splitlines()[1:4] == [  # type: ignore[union-attr]
        "1. Which database? → PostgreSQL",
        "2. Which features first? → (in their own words) audit log",
        "3. Anything else? → no",
    ]


class RawClient:
    """`toolbelt mcp` on stdio, spoken to by hand, line by line, as a 2025-06-18 client."""

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [*TOOLBELT, "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        capabilities: dict[str, Any] = {"elicitation": {}}
        hello = {"protocolVersion": "2025-06-18", "capabilities": capabilities}
        self.send(
            {"id": 1, "method": "initialize", "params": {**hello, "clientInfo": {"name": "t"}}}
        )
        assert self.receive()["result"]["protocolVersion"] == "2025-06-18"
        self.send({"method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        return dict(json.loads(self.process.stdout.readline()))

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def test_before_2025_11_25_a_multiple_choice_is_a_checkbox_per_option(tmp_path: Path) -> None:
    """The 2025-06-18 elicitation schema has no arrays."""
    client = RawClient(tmp_path)
    try:
        features = {"questions": [QUESTIONS["questions"][1]]}
        call = {"name": "ask_user", "arguments": features}
        client.send({"id": 2, "method": "tools/call", "params": call})
        asking = client.receive()
        assert asking["method"] == "elicitation/create"
        schema = asking["params"]["requestedSchema"]
        assert list(schema["properties"]) == [
            "answer_option_1",
            "answer_option_2",
            "answer_option_3",
            "answer_other",
        ]
        assert schema["properties"]["answer_option_3"] == {
            "type": "boolean",
            "title": "sso",
            "description": "Answer: pick 'sso'",
            "default": False,
        }
        picked = {"answer_option_1": True, "answer_option_2": False, "answer_option_3": True}
        client.send({"id": asking["id"], "result": {"action": "accept", "content": picked}})
        result = client.receive()["result"]
        assert result["structuredContent"]["answers"] == {"Which features first?": "auth, sso"}
    finally:
        client.close()


def test_cancelling_a_call_that_waits_for_the_user(tmp_path: Path) -> None:
    client = RawClient(tmp_path)
    try:
        call = {"name": "ask_user", "arguments": {"questions": [{"question": "Go on?"}]}}
        client.send({"id": 2, "method": "tools/call", "params": call})
        assert client.receive()["method"] == "elicitation/create"
        client.send({"method": "notifications/cancelled", "params": {"requestId": 2}})
        thought = {"name": "think", "arguments": {"thought": "carry on"}}
        client.send({"id": 3, "method": "tools/call", "params": thought})
        reply = client.receive()
        assert reply["id"] == 3
        assert reply["result"]["content"][0]["text"] == "Thought recorded."
    finally:
        client.close()
    # at the end of input a waiting call would be answered (dismissed); a cancelled one is not
    assert client.process.stdout is not None
    assert client.process.stdout.read() == ""
