"""TextToolCallClient through a scripted inner client: what the model is sent, what comes out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from toolbelt.core.content import ImageBlock, TextBlock, ToolOutput
from toolbelt.core.events import CallState
from toolbelt.core.executor import ToolCallResult
from toolbelt.core.tool import Tool
from toolbelt.providers.model import (
    AssistantMessage,
    ModelClient,
    ModelEvent,
    ModelRequest,
    ModelToolCall,
    ProviderError,
    StopReason,
    TextDelta,
    ToolCallStarted,
    ToolResultsMessage,
    TurnComplete,
    Usage,
    UserMessage,
)
from toolbelt.providers.textcalls import PROVIDER_DATA_KEY, TextToolCallClient
from toolbelt.tools import builtin_toolset

pytestmark = pytest.mark.anyio

TOOLS: tuple[Tool[Any], ...] = tuple(
    t for t in builtin_toolset() if t.name in ("read_file", "edit_file")
)
USAGE = Usage(input_tokens=120, output_tokens=30)


@dataclass
class Turn:
    chunks: Sequence[str]
    stop: StopReason = "end_turn"
    native: tuple[ModelToolCall, ...] = ()
    complete: bool = True


@dataclass
class ScriptedClient(ModelClient):
    """Plays back one scripted turn per request and keeps every request it was sent."""

    turns: list[Turn]
    requests: list[ModelRequest] = field(default_factory=list)
    closed_streams: int = 0
    model: str = "scripted:model"
    context_window: int = 32_000

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        turn = self.turns.pop(0)
        try:
            for chunk in turn.chunks:
                yield TextDelta(chunk)
            for call in turn.native:
                yield ToolCallStarted(call.id, call.name)
            if turn.complete:
                message = AssistantMessage(
                    "".join(turn.chunks), turn.native, provider_data={"seen": 1}
                )
                yield TurnComplete(message, USAGE, turn.stop)
        finally:
            self.closed_streams += 1


def request(*messages: Any, system: str = "You are careful.") -> ModelRequest:
    return ModelRequest(system, messages or (UserMessage((TextBlock("Fix a.py"),)),), TOOLS)


def chunked(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


async def collect(client: ModelClient, req: ModelRequest) -> list[ModelEvent]:
    return [event async for event in client.stream(req)]


QWEN_TURN = (
    "I will fix it.\n<tool_call>\n<function=edit_file>\n<parameter=path>\na.py\n</parameter>\n"
    "<parameter=old_string>\nx = 1\n</parameter>\n<parameter=new_string>\nx = 2\n</parameter>\n"
    "<parameter=replace_all>\nfalse\n</parameter>\n</function>\n</tool_call>"
)


async def test_tools_go_into_the_prompt_and_calls_come_out_typed() -> None:
    inner = ScriptedClient([Turn(chunked(QWEN_TURN))])
    client = TextToolCallClient(inner, "qwen3-coder", new_id=lambda: "call00001")
    events = await collect(client, request())

    sent = inner.requests[0]
    assert sent.tools == ()
    assert sent.system.startswith("You are careful.\n\n# Tools\n\n")
    assert "<function>\n<name>edit_file</name>" in sent.system
    assert "</IMPORTANT>" in sent.system

    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert shown == "I will fix it.\n"
    assert all("<" not in e.text for e in events if isinstance(e, TextDelta))
    assert [e for e in events if isinstance(e, ToolCallStarted)] == [
        ToolCallStarted("call00001", "edit_file")
    ]
    done = events[-1]
    assert isinstance(done, TurnComplete)
    assert done.stop_reason == "tool_use"
    assert done.usage == USAGE
    assert done.message.text == "I will fix it.\n"
    assert done.message.tool_calls == (
        ModelToolCall(
            "call00001",
            "edit_file",
            {"path": "a.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": False},
        ),
    )
    assert done.message.provider_data == {
        PROVIDER_DATA_KEY: {"family": "qwen3-coder", "raw": QWEN_TURN},
        "inner": {"seen": 1},
    }


async def test_a_call_cut_off_by_the_token_limit_is_never_a_runnable_call() -> None:
    cut = '<tool_call>\n{"name": "edit_file", "arguments": {"path": "a.py", "old_str'
    inner = ScriptedClient([Turn(chunked(cut), stop="max_tokens")])
    events = await collect(TextToolCallClient(inner, "hermes"), request())
    done = events[-1]
    assert isinstance(done, TurnComplete)
    assert done.message.tool_calls == ()
    [invalid] = done.message.invalid_calls
    assert invalid.truncated
    assert invalid.name == "edit_file"
    assert invalid.raw == cut
    assert done.stop_reason == "max_tokens"
    assert not any(isinstance(e, TextDelta) for e in events), "no tag fragment reaches the UI"


async def test_an_unclosed_call_at_a_natural_stop_is_accepted() -> None:
    source = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py", "limit": "10"}}'
    inner = ScriptedClient([Turn([source], stop="stop_sequence")])
    done = (await collect(TextToolCallClient(inner, "hermes"), request()))[-1]
    assert isinstance(done, TurnComplete)
    assert [(c.name, c.arguments) for c in done.message.tool_calls] == [
        ("read_file", {"path": "a.py", "limit": 10})
    ]
    assert done.stop_reason == "tool_use"


async def test_a_malformed_call_comes_back_with_a_correction() -> None:
    source = "<tool_call>edit_file\n<arg_key>path</arg_key>\n</tool_call>"
    inner = ScriptedClient([Turn([source])])
    done = (await collect(TextToolCallClient(inner, "glm-4.5"), request()))[-1]
    assert isinstance(done, TurnComplete)
    [invalid] = done.message.invalid_calls
    assert not invalid.truncated
    assert invalid.problem == (
        "In the call to edit_file, every <arg_key> needs its <arg_value>; use: "
        "<tool_call>TOOL\n<arg_key>PARAM</arg_key>\n<arg_value>VALUE</arg_value>\n</tool_call>"
    )
    assert done.stop_reason == "tool_use", "the loop answers it so the model can retry"


async def test_the_next_turn_replays_the_model_text_and_results_as_the_family_expects() -> None:
    inner = ScriptedClient([Turn(chunked(QWEN_TURN)), Turn(["Done."])])
    client = TextToolCallClient(inner, "qwen3-coder", new_id=lambda: "call00001")
    first = (await collect(client, request()))[-1]
    assert isinstance(first, TurnComplete)
    image = ImageBlock("aGk=", "image/png")
    result = ToolCallResult(
        "call00001",
        "edit_file",
        CallState.SUCCESS,
        ToolOutput((TextBlock("Edited a.py"), image)),
    )
    history = (
        UserMessage((TextBlock("Fix a.py"),)),
        first.message,
        ToolResultsMessage((result,)),
        UserMessage((TextBlock("Thanks"),)),
    )
    last = (await collect(client, request(*history)))[-1]
    assert isinstance(last, TurnComplete)
    assert last.stop_reason == "end_turn"
    assert last.message.text == "Done."

    sent = inner.requests[1].messages
    assert sent[1] == AssistantMessage(QWEN_TURN, provider_data={"seen": 1})
    assert sent[2] == UserMessage(
        (
            TextBlock("<tool_response>\nEdited a.py\n[image: image/png]\n</tool_response>"),
            image,
            TextBlock("\n\n"),
            TextBlock("Thanks"),
        )
    )
    assert len(sent) == 3


async def test_calls_from_another_provider_are_rendered_in_the_family_format() -> None:
    native_turn = AssistantMessage(
        "Looking.", (ModelToolCall("toolu_1", "read_file", {"path": "a.py"}),)
    )
    result = ToolCallResult("toolu_1", "read_file", CallState.SUCCESS, ToolOutput.text("1\tx"))
    inner = ScriptedClient([Turn(["ok"])])
    history = (UserMessage((TextBlock("Read"),)), native_turn, ToolResultsMessage((result,)))
    await collect(TextToolCallClient(inner, "mistral-v11"), request(*history))
    sent = inner.requests[0].messages
    assert sent[1] == AssistantMessage(
        'Looking.\n[TOOL_CALLS]read_file[CALL_ID]toolu_1[ARGS]{"path": "a.py"}'
    )
    assert sent[2] == UserMessage((TextBlock("[TOOL_RESULTS]1\tx[/TOOL_RESULTS]"),))


async def test_auto_keeps_native_tools_and_recognises_text_calls() -> None:
    text = (
        "Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0"
        '<|tool_call_argument_begin|>{"path": "a.py", "offset": "2"}<|tool_call_end|>'
        "<|tool_calls_section_end|>"
    )
    inner = ScriptedClient([Turn(chunked(text, 5))])
    req = request()
    done = (await collect(TextToolCallClient(inner, "auto"), req))[-1]
    assert inner.requests[0] is req, "auto sends the request unchanged, native tools included"
    assert isinstance(done, TurnComplete)
    assert done.message.text == "Sure."
    assert done.message.tool_calls == (
        ModelToolCall("functions.read_file:0", "read_file", {"path": "a.py", "offset": 2}),
    )
    assert done.stop_reason == "tool_use"


async def test_auto_passes_a_native_turn_through_untouched() -> None:
    native = (ModelToolCall("call_9", "read_file", {"path": "a.py"}),)
    inner = ScriptedClient([Turn(["Reading a < b"], stop="tool_use", native=native)])
    events = await collect(TextToolCallClient(inner, "auto"), request())
    assert events[-1] == TurnComplete(
        AssistantMessage("Reading a < b", native, provider_data={"seen": 1}), USAGE, "tool_use"
    )
    assert ToolCallStarted("call_9", "read_file") in events


async def test_auto_without_calls_keeps_the_text_the_ui_was_shown() -> None:
    chunks = ["<|channel|>final<|mess", "age|>It is 4.<|return|>"]
    inner = ScriptedClient([Turn(chunks)])
    events = await collect(TextToolCallClient(inner, "auto"), request())
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("It is 4.")]
    done = events[-1]
    assert isinstance(done, TurnComplete)
    assert done.message == AssistantMessage("It is 4.", provider_data={"seen": 1})
    assert done.stop_reason == "end_turn"


async def test_a_stream_that_never_completes_is_a_provider_error() -> None:
    inner = ScriptedClient([Turn(["half"], complete=False)])
    with pytest.raises(ProviderError, match="ended its stream without finishing the turn"):
        await collect(TextToolCallClient(inner, "hermes"), request())


async def test_closing_the_stream_early_closes_the_inner_stream() -> None:
    inner = ScriptedClient([Turn(["Hello ", "there", " friend"])])
    stream = TextToolCallClient(inner, "hermes").stream(request())
    assert await anext(stream) == TextDelta("Hello ")
    await stream.aclose()  # type: ignore[attr-defined]
    assert inner.closed_streams == 1


def test_unknown_family_names_the_choices() -> None:
    with pytest.raises(
        ValueError,
        match=r"unknown text tool-call format 'qwen9'; choose one of: auto, hermes, qwen3-coder",
    ):
        TextToolCallClient(ScriptedClient([]), "qwen9")


def test_aliases_resolve_to_their_family() -> None:
    assert TextToolCallClient(ScriptedClient([]), "gpt-oss").family.name == "harmony"
    assert TextToolCallClient(ScriptedClient([]), "GLM-4.6").family.name == "glm-4.5"
