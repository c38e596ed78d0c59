"""Anthropic Messages through the official SDK against the loopback fake."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.support.conversation import (
    PNG,
    TOOLS,
    Sleeps,
    answer_calls,
    model,
    one_turn,
    parallel_calls_answered,
    request,
    result,
    run_turn,
    user,
)
from tests.support.fake_provider import FakeProvider
from toolbelt.providers.model import (
    ModelToolCall,
    ProviderError,
    TextDelta,
    ToolCallStarted,
    Usage,
)

pytestmark = pytest.mark.anyio
SPEC = "anthropic:claude-sonnet-4-6"
PARALLEL = {
    "text": "Reading both.",
    "calls": [
        {"id": "toolu_a", "name": "read_file", "arguments": {"path": "a.txt"}},
        {"id": "toolu_b", "name": "ls", "arguments": {"path": "."}},
    ],
}


async def test_multi_turn_with_parallel_calls_an_error_and_an_image() -> None:
    with FakeProvider([PARALLEL, {"text": "Done."}]) as fake:
        async with model(SPEC, base_url=fake.url, api_key="sk-ant-test") as client:
            first = request(user("Read a.txt and list the folder.", image=True))
            events, done, final = await parallel_calls_answered(
                client, first, ("toolu_a", "toolu_b")
            )
            assert events[:-1] == [
                TextDelta("Readin"),
                TextDelta("g both."),
                ToolCallStarted("toolu_a", "read_file"),
                ToolCallStarted("toolu_b", "ls"),
            ]
            assert done.stop_reason == "tool_use"
            assert done.message.tool_calls == (
                ModelToolCall("toolu_a", "read_file", {"path": "a.txt"}),
                ModelToolCall("toolu_b", "ls", {"path": "."}),
            )
    assert final.message.text == "Done." and final.stop_reason == "end_turn"
    body = fake.requests[1].body
    assert fake.requests[1].path == "/v1/messages"
    headers = fake.requests[1].headers
    assert "sk-ant-test" in (headers.get("x-api-key"), headers.get("authorization", "")[7:])
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    assert body["system"] == [
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
    ]
    assert [tool["name"] for tool in body["tools"]] == [tool.name for tool in TOOLS]
    assert [("cache_control" in tool) for tool in body["tools"]] == [False, True]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Read a.txt and list the folder."}, image],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading both."},
                {
                    "type": "tool_use",
                    "id": "toolu_a",
                    "name": "read_file",
                    "input": {"path": "a.txt"},
                },
                {"type": "tool_use", "id": "toolu_b", "name": "ls", "input": {"path": "."}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_a",
                    "content": [{"type": "text", "text": "a picture"}, image],
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": [{"type": "text", "text": "permission denied"}],
                    "is_error": True,
                },
            ],
        },
    ]


async def test_thinking_blocks_are_replayed_with_their_signatures() -> None:
    thinking = {
        "thinking": "I should list first.",
        "signature": "sig-123",
        "calls": [{"id": "toolu_1", "name": "ls", "arguments": {"path": "."}}],
    }
    with FakeProvider([thinking, {"text": "ok"}]) as fake:
        async with model(SPEC, base_url=fake.url, api_key="k") as client:
            budget = {"type": "enabled", "budget_tokens": 2000}
            first = replace(request(user("list")), options={"thinking": budget})
            _, done = await run_turn(client, first)
            await answer_calls(client, first, done, result("toolu_1", "ls", "a.txt"))
    assert done.message.text == ""
    assert fake.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2000}
    assert fake.requests[1].body["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "I should list first.", "signature": "sig-123"},
            {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}},
        ],
    }


async def test_usage_reports_cache_reads_and_writes() -> None:
    reply = {
        "text": "ok",
        "input_tokens": 12,
        "output_tokens": 7,
        "cache_read_tokens": 900,
        "cache_write_tokens": 40,
    }
    with FakeProvider([reply]) as fake:
        done = await one_turn(request(user("hi")), SPEC, base_url=fake.url, api_key="k")
    assert done.usage == Usage(12, 7, 900, 40)


async def test_a_call_cut_off_by_max_tokens_is_marked_truncated() -> None:
    reply = {"calls": [{"id": "toolu_1", "name": "read_file", "arguments": '{"path": "a'}]}
    with FakeProvider([{**reply, "stop": "max_tokens"}]) as fake:
        done = await one_turn(request(user("read")), SPEC, base_url=fake.url, api_key="k")
    assert done.stop_reason == "max_tokens"
    [cut] = done.message.invalid_calls
    assert (cut.id, cut.raw, cut.truncated) == ("toolu_1", '{"path": "a', True)


async def test_overloaded_529_is_retried_after_the_wait_the_server_asked() -> None:
    overloaded = {"status": 529, "error": "Overloaded", "headers": {"retry-after": "3"}}
    sleeps = Sleeps()
    with FakeProvider([overloaded, overloaded, {"text": "ok"}]) as fake:
        done = await one_turn(
            request(user("hi")), SPEC, base_url=fake.url, api_key="k", retry=sleeps.policy()
        )
    assert done.message.text == "ok"
    assert sleeps.waits == [3.0, 3.0]
    assert len(fake.requests) == 3


async def test_retries_are_bounded_and_the_last_failure_is_reported() -> None:
    overloaded = {"status": 529, "error": "Overloaded", "headers": {"retry-after": "1"}}
    sleeps = Sleeps()
    with FakeProvider([overloaded] * 3) as fake:
        with pytest.raises(ProviderError) as caught:
            await one_turn(
                request(user("hi")),
                SPEC,
                base_url=fake.url,
                api_key="k",
                retry=sleeps.policy(max_attempts=3),
            )
    assert len(fake.requests) == 3 and sleeps.waits == [1.0, 1.0]
    assert caught.value.kind == "overloaded" and caught.value.status == 529
    assert str(caught.value) == (
        f"Anthropic at {fake.url} is overloaded after 3 attempts (529: Overloaded); try again "
        "in a few minutes."
    )


async def test_a_wait_longer_than_the_budget_is_not_slept() -> None:
    limited = {"status": 429, "error": "Slow down", "headers": {"retry-after": "600"}}
    sleeps = Sleeps()
    with FakeProvider([limited]) as fake:
        with pytest.raises(ProviderError) as caught:
            await one_turn(
                request(user("hi")), SPEC, base_url=fake.url, api_key="k", retry=sleeps.policy()
            )
    assert sleeps.waits == [] and caught.value.kind == "rate_limit"
    assert str(caught.value) == (
        f"Anthropic at {fake.url} is still rate-limiting (429: Slow down; it asked to wait "
        "600 s, longer than toolbelt waits); wait a minute and try again, or check the rate "
        "limits of your plan."
    )


async def test_an_overload_inside_a_started_stream_is_retried() -> None:
    broken = {"stream_error": "overloaded_error", "error": "Overloaded"}
    sleeps = Sleeps()
    with FakeProvider([broken, {"text": "ok"}]) as fake:
        done = await one_turn(
            request(user("hi")), SPEC, base_url=fake.url, api_key="k", retry=sleeps.policy()
        )
    assert done.message.text == "ok" and len(fake.requests) == 2
    assert len(sleeps.waits) == 1 and 0.5 <= sleeps.waits[0] <= 1.0  # backoff from 1 s, jittered
