"""The fake provider itself: its non-streaming replies pass the official SDKs' strict response
validation, a script can be served from a JSON file by a separate process, and a request the
script did not plan for fails loudly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anthropic
import openai
import pytest
from google import genai
from google.genai import types as gemini_types

from tests.support.fake_provider import FakeProvider

REPLY = {
    "text": "Checking.",
    "calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
}
ROOT = Path(__file__).parent.parent.parent


def test_anthropic_non_streaming_reply_is_strictly_valid() -> None:
    with FakeProvider([REPLY]) as fake:
        client = anthropic.Anthropic(
            api_key="k", base_url=fake.url, max_retries=0, _strict_response_validation=True
        )
        message = client.messages.create(
            model="claude-sonnet-4-6", max_tokens=100, messages=[{"role": "user", "content": "?"}]
        )
        client.close()
    assert message.stop_reason == "tool_use"
    assert [block.type for block in message.content] == ["text", "tool_use"]
    assert message.content[1].model_dump()["input"] == {"city": "Paris"}


def test_openai_non_streaming_replies_are_strictly_valid() -> None:
    with FakeProvider([REPLY, REPLY]) as fake:
        client = openai.OpenAI(
            api_key="k", base_url=fake.openai_url, max_retries=0, _strict_response_validation=True
        )
        completion = client.chat.completions.create(
            model="gpt-5", messages=[{"role": "user", "content": "?"}]
        )
        response = client.responses.create(model="gpt-5", input="?")
        client.close()
    [call] = completion.choices[0].message.tool_calls or []
    assert completion.choices[0].finish_reason == "tool_calls"
    assert call.model_dump()["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }
    assert response.output_text == "Checking."
    assert [item.type for item in response.output] == ["message", "function_call"]


def test_gemini_non_streaming_reply_parses() -> None:
    with FakeProvider([REPLY]) as fake:
        client = genai.Client(api_key="k", http_options=gemini_types.HttpOptions(base_url=fake.url))
        response = client.models.generate_content(model="gemini-2.5-flash", contents="?")
        client.close()
    assert fake.requests[0].path == "/v1/models/gemini-2.5-flash:generateContent"
    assert response.text == "Checking."
    [call] = response.function_calls or []
    assert (call.name, call.args) == ("get_weather", {"city": "Paris"})


def test_a_request_beyond_the_script_fails_with_a_readable_error() -> None:
    with FakeProvider([]) as fake:
        client = openai.OpenAI(api_key="k", base_url=fake.openai_url, max_retries=0)
        with pytest.raises(openai.InternalServerError, match="no scripted reply for"):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "?"}])
        client.close()


def test_a_script_file_is_served_by_a_separate_process(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "From the file."}]))
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fake_provider", str(script)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        client = openai.OpenAI(api_key="k", base_url=f"{url}/v1", max_retries=0)
        completion = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "?"}]
        )
        client.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert completion.choices[0].message.content == "From the file."


STREAMED = [
    {**REPLY, "thinking": "Think.", "signature": "c2ln"},
    {"text": "Cut", "calls": [{"name": "ls", "arguments": '{"pa'}], "stop": "max_tokens"},
]


@pytest.mark.parametrize("reply", STREAMED)
def test_streamed_events_validate_against_the_sdk_event_types(reply: dict[str, object]) -> None:
    from anthropic.types import RawMessageStreamEvent
    from openai.types.chat import ChatCompletionChunk
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    from tests.support import fake_wire, fake_wire_responses_gemini
    from tests.support.fake_script import Reply

    scripted = Reply.from_dict(reply)
    checks = [
        (fake_wire.anthropic, TypeAdapter(RawMessageStreamEvent)),
        (fake_wire.chat, TypeAdapter(ChatCompletionChunk)),
        (fake_wire_responses_gemini.responses, TypeAdapter(ResponseStreamEvent)),
    ]
    for render, adapter in checks:
        frames = render(scripted, "m", stream=True)
        assert all(frame.endswith("\n\n") for frame in frames)
        for frame in frames:
            data = frame.split("data: ", 1)[1].strip()
            if data != "[DONE]":
                adapter.validate_python(json.loads(data))
