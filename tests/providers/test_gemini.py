"""Gemini through the official google-genai SDK against the loopback fake."""

from __future__ import annotations

import pytest

from tests.support.conversation import (
    PNG,
    Sleeps,
    answer_calls,
    model,
    one_turn,
    parallel_calls_answered,
    request,
    result,
    run_turn,
)
from tests.support.conversation import user as user_message
from tests.support.fake_provider import FakeProvider
from toolbelt.providers.model import (
    ModelToolCall,
    ProviderError,
    TextDelta,
    ToolCallStarted,
    Usage,
)

pytestmark = pytest.mark.anyio
SPEC = "gemini:gemini-2.5-flash"
IMAGE = {"inlineData": {"data": PNG, "mime_type": "image/png"}}
NOTE = "[image/png image: attached after the tool results]"


async def test_multi_turn_with_parallel_calls_an_error_and_an_image() -> None:
    first_reply = {
        "text": "Reading.",
        "calls": [
            {"name": "read_file", "arguments": {"path": "a.txt", "limit": 3.0}},
            {"name": "ls", "arguments": {"path": "."}},
        ],
    }
    with FakeProvider([first_reply, {"text": "Done."}]) as fake:
        async with model(SPEC, base_url=fake.url, api_key="g-key") as client:
            first = request(user_message("Look and read.", image=True))
            events, done, final = await parallel_calls_answered(
                client, first, ("gemini-call-2", "gemini-call-3")
            )
            assert events[:-1] == [
                TextDelta("Read"),
                TextDelta("ing."),
                ToolCallStarted("gemini-call-2", "read_file"),
                ToolCallStarted("gemini-call-3", "ls"),
            ]
            assert done.stop_reason == "tool_use"  # Gemini says STOP; the calls decide
            assert done.message.tool_calls == (
                ModelToolCall("gemini-call-2", "read_file", {"path": "a.txt", "limit": 3}),
                ModelToolCall("gemini-call-3", "ls", {"path": "."}),
            )
            assert isinstance(done.message.tool_calls[0].arguments["limit"], int)
    assert (final.message.text, final.stop_reason) == ("Done.", "end_turn")
    sent = fake.requests[1]
    assert sent.path == "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert sent.headers["x-goog-api-key"] == "g-key"
    body = sent.body
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}], "role": "user"}
    assert body["generationConfig"]["maxOutputTokens"] == 1000
    declarations = body["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declarations] == ["read_file", "ls"]
    assert declarations[0]["parameters"]["type"] == "OBJECT"
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Look and read."}, IMAGE]},
        {
            "role": "model",
            "parts": [
                {"text": "Reading."},
                {"functionCall": {"args": {"path": "a.txt", "limit": 3}, "name": "read_file"}},
                {"functionCall": {"args": {"path": "."}, "name": "ls"}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "read_file",
                        "response": {"output": f"a picture\n{NOTE}"},
                    }
                },
                {"functionResponse": {"name": "ls", "response": {"error": "permission denied"}}},
                IMAGE,
            ],
        },
    ]


async def test_thought_signatures_are_replayed_verbatim() -> None:
    reply = {
        "text": "Listing.",
        "thinking": "",
        "signature": "c2lnLTQy",
        "calls": [{"id": "fc-1", "name": "ls", "arguments": {"path": "."}}],
    }
    with FakeProvider([reply, {"text": "ok"}]) as fake:
        async with model(SPEC, base_url=fake.url, api_key="g") as client:
            first = request(user_message("list"))
            _, done = await run_turn(client, first)
            assert done.message.tool_calls == (ModelToolCall("fc-1", "ls", {"path": "."}),)
            await answer_calls(client, first, done, result("fc-1", "ls", "a.txt"))
    assert fake.requests[1].body["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"text": "Listing."},
                {
                    "functionCall": {"args": {"path": "."}, "id": "fc-1", "name": "ls"},
                    "thoughtSignature": "c2lnLTQy",
                },
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "fc-1", "name": "ls", "response": {"output": "a.txt"}}}
            ],
        },
    ]


async def test_usage_takes_cached_tokens_out_of_the_prompt_count() -> None:
    reply = {"text": "ok", "input_tokens": 30, "cache_read_tokens": 500, "output_tokens": 6}
    with FakeProvider([reply]) as fake:
        done = await one_turn(request(user_message("hi")), SPEC, base_url=fake.url, api_key="g")
    assert done.usage == Usage(30, 6, 500, 0)


async def test_max_tokens_marks_the_last_call_truncated() -> None:
    reply = {"calls": [{"name": "ls", "arguments": {"path": "."}}], "stop": "max_tokens"}
    with FakeProvider([reply]) as fake:
        done = await one_turn(request(user_message("hi")), SPEC, base_url=fake.url, api_key="g")
    assert done.stop_reason == "max_tokens"
    assert [call.truncated for call in done.message.invalid_calls] == [True]


async def test_rate_limits_and_overloads_are_retried_then_reported() -> None:
    limited = {"status": 429, "error": "Quota exceeded", "headers": {"retry-after": "4"}}
    busy = {"status": 503, "error": "The model is overloaded.", "headers": {"retry-after": "1"}}
    sleeps = Sleeps()
    with FakeProvider([limited, busy, busy]) as fake:
        with pytest.raises(ProviderError) as caught:
            await one_turn(
                request(user_message("hi")),
                SPEC,
                base_url=fake.url,
                api_key="g",
                retry=sleeps.policy(max_attempts=3),
            )
    assert sleeps.waits == [4.0, 1.0] and len(fake.requests) == 3
    assert caught.value.kind == "overloaded"
    assert str(caught.value) == (
        f"Gemini at {fake.url} is overloaded after 3 attempts (503: The model is overloaded.); "
        "try again in a few minutes."
    )


async def test_a_malformed_function_call_is_asked_again_then_reported() -> None:
    malformed = {"stop": "malformed", "error": "print(default_api.ls(path=.))"}
    sleeps = Sleeps()
    with FakeProvider([malformed, {"text": "ok"}, malformed, malformed]) as fake:
        done = await one_turn(
            request(user_message("hi")), SPEC, base_url=fake.url, api_key="g", retry=sleeps.policy()
        )
        assert done.message.text == "ok" and len(fake.requests) == 2
        with pytest.raises(ProviderError) as caught:
            await one_turn(
                request(user_message("hi")),
                SPEC,
                base_url=fake.url,
                api_key="g",
                retry=sleeps.policy(max_attempts=2),
            )
    assert str(caught.value) == (
        f"Gemini at {fake.url} failed with an unusable reply after 2 attempts (the model "
        "produced an unusable function call (MALFORMED_FUNCTION_CALL)); try again later."
    )
