"""The pure parts: ``retry-after`` parsing and backoff bounds, the model catalog and costs,
and how one call's raw arguments become a runnable call or an instructive refusal."""

from __future__ import annotations

import email.utils

import pytest

from toolbelt.providers.catalog import (
    DEFAULT_CONTEXT_WINDOW,
    LOCAL_CONTEXT_WINDOW,
    context_window,
    cost,
)
from toolbelt.providers.model import InvalidToolCall, ModelToolCall, Usage
from toolbelt.providers.retry import RetryPolicy, retry_after_seconds
from toolbelt.providers.turn import TurnBuilder, parse_call

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": email.utils.formatdate(NOW + 12, usegmt=True)}, 12.0),
        ({"retry-after": email.utils.formatdate(NOW - 60, usegmt=True)}, 0.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_reads_seconds_milliseconds_and_http_dates(
    headers: dict[str, str], expected: float | None
) -> None:
    assert retry_after_seconds(headers, now=NOW) == expected


def test_backoff_without_retry_after_doubles_up_to_the_ceiling() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0)]:
        delay = policy.delay(attempt, None)
        assert ceiling / 2 <= delay <= ceiling
    assert policy.delay(1, 42.0) == 42.0


@pytest.mark.parametrize(
    ("spec", "window"),
    [
        ("anthropic:claude-sonnet-4-5-20250929", 200_000),
        ("openai:gpt-5-mini", 400_000),
        ("gemini:gemini-2.5-pro", 1_048_576),
        ("anthropic:claude-opus-4-7", 200_000),
        ("openai:some-future-model", DEFAULT_CONTEXT_WINDOW),
        ("ollama:qwen3-coder", LOCAL_CONTEXT_WINDOW),
    ],
)
def test_context_window_by_family(spec: str, window: int) -> None:
    assert context_window(spec) == window


def test_cost_weighs_each_kind_of_token_by_its_price() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=2_000_000)
    # claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read per million tokens.
    assert cost("anthropic:claude-sonnet-4-5", usage) == pytest.approx(3.0 + 1.5 + 0.6)
    assert cost("openai:gpt-5-mini", Usage(output_tokens=1_000_000)) == pytest.approx(2.0)
    assert cost("openai:gpt-5-2025-08-07", Usage(input_tokens=1_000_000)) == pytest.approx(1.25)
    assert cost("openai:unknown-model", usage) is None
    assert cost("anthropic:claude-sonnet-4-6", usage) is None  # a newer model: price not known
    assert cost("ollama:qwen3-coder", usage) is None


def test_arguments_that_parse_to_an_object_make_a_call() -> None:
    assert parse_call("c1", "ls", '{"path": "."}') == ModelToolCall("c1", "ls", {"path": "."})
    assert parse_call("c2", "todo_read", "") == ModelToolCall("c2", "todo_read", {})


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (
            '"a.txt"',
            "The arguments of ls must be a JSON object of named arguments, not a string, so it "
            'was not run; send for example {"path": "src/app.py"}.',
        ),
        (
            '{"path": ".", "path": "/"}',
            "The arguments of ls are not valid JSON (the key 'path' appears twice in one object), "
            'so it was not run; send one JSON object of named arguments, for example {"path": '
            '"src/app.py"}.',
        ),
    ],
)
def test_arguments_that_cannot_run_say_why(raw: str, problem: str) -> None:
    call = parse_call("c1", "ls", raw)
    assert call == InvalidToolCall("c1", "ls", raw, problem)


def test_only_the_last_call_of_a_cut_off_turn_is_truncated() -> None:
    turn = TurnBuilder()
    turn.start_call(0, "c1", "ls")
    turn.add_arguments(0, '{"path": "."}')
    turn.start_call(1, "c2", "read_file")
    turn.add_arguments(1, '{"path": "a.txt"}')  # complete-looking, but the limit cut it
    done = turn.finish("max_tokens", Usage())
    assert done.message.tool_calls == (ModelToolCall("c1", "ls", {"path": "."}),)
    assert [(c.id, c.truncated) for c in done.message.invalid_calls] == [("c2", True)]


def test_a_repeated_call_start_keeps_the_first_id_and_name() -> None:
    turn = TurnBuilder()
    assert turn.start_call(0, "call_1", "ls") is not None
    assert turn.start_call(0, "call_1", "ls") is None
    turn.add_arguments(0, "{}")
    assert turn.finish("tool_use", Usage()).message.tool_calls == (
        ModelToolCall("call_1", "ls", {}),
    )
