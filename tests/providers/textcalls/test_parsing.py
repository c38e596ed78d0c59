# ruff: noqa: E501 - fixtures read best as the one line the model wrote
"""Every family's fixtures parse to the expected text and calls, however the stream is split.

A model's output reaches the parser in pieces cut anywhere — inside a marker, between the two
bytes of a full-width bar — so each fixture is fed whole, split in two at every character and
at every byte offset, one character at a time, and in random chunkings; all must give the
same visible text and the same calls.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from toolbelt.providers.model import InvalidToolCall, ModelToolCall, TextDelta, ToolCallStarted
from toolbelt.providers.textcalls import FAMILY_NAMES, TextCallParser, text_call_family

from .cases import CASES, SCHEMAS, Case

Outcome = tuple[str, list[tuple[str, dict[str, Any]]], list[tuple[str, bool]]]


def run(case: Case, chunks: Iterable[str | bytes], *, natural_stop: bool = False) -> Outcome:
    parser = TextCallParser(text_call_family(case.family), SCHEMAS)
    events = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.finish(natural_stop=natural_stop)
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == parser.text
    started = [(e.id, e.name) for e in events if isinstance(e, ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ModelToolCall | InvalidToolCall)]
    assert started == [(c.id, c.name) for c in finished], "each call is announced, then given"
    assert len({c.id for c in finished}) == len(finished), "ids are unique within the turn"
    return (
        parser.text,
        [(c.name, dict(c.arguments)) for c in parser.calls],
        [(c.name, c.truncated) for c in parser.invalid],
    )


def splits(text: str) -> Iterable[list[str]]:
    for cut in range(1, len(text)):
        yield [text[:cut], text[cut:]]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixture_fed_whole(case: Case) -> None:
    parser = TextCallParser(text_call_family(case.family), SCHEMAS)
    parser.feed(case.source)
    parser.finish()
    if case.text is None:
        assert parser.text.strip() == ""
    else:
        assert parser.text == case.text
    assert [(c.name, dict(c.arguments)) for c in parser.calls] == case.calls
    if case.ids is not None:
        assert [c.id for c in parser.calls] == case.ids
    assert [(c.name, c.truncated) for c in parser.invalid] == [(n, t) for n, t, _ in case.invalid]
    for call, (_, _, phrase) in zip(parser.invalid, case.invalid, strict=True):
        assert phrase in call.problem
        if not call.truncated:  # the correction shows the shape that works
            assert text_call_family(case.family).shape in call.problem
    for call in parser.invalid:
        assert call.raw and call.raw in case.source, "the raw text is what the model wrote"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_split_at_every_character_and_byte(case: Case) -> None:
    whole = run(case, [case.source])
    for pieces in splits(case.source):
        assert run(case, pieces) == whole, pieces
    data = case.source.encode()
    for cut in range(1, len(data)):
        assert run(case, [data[:cut], data[cut:]]) == whole, cut
    assert run(case, list(case.source)) == whole
    assert run(case, [bytes([b]) for b in data]) == whole


@given(data=st.data())
def test_random_chunkings_agree(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES), label="case")
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(case.source) - 1)), max_size=12)))
    bounds = [0, *cuts, len(case.source)]
    pieces = [case.source[a:b] for a, b in itertools.pairwise(bounds)]
    assert run(case, pieces) == run(case, [case.source])


def test_partial_marker_is_held_back_then_released_as_text() -> None:
    parser = TextCallParser(text_call_family("hermes"), SCHEMAS)
    assert parser.feed("Compare a <tool") == [TextDelta("Compare a ")]
    assert parser.feed("box> with b") == [TextDelta("<toolbox> with b")]
    assert parser.finish() == []


def test_text_streams_without_waiting_for_the_turn_to_end() -> None:
    parser = TextCallParser(text_call_family("qwen3-coder"), SCHEMAS)
    assert parser.feed("Reading the file now") == [TextDelta("Reading the file now")]


def test_missing_closing_tag_is_forgiven_only_when_the_model_stopped_by_itself() -> None:
    source = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n'
    case = Case("hermes", "eos", source)
    assert run(case, [source], natural_stop=True) == ("", [("read_file", {"path": "a.py"})], [])
    assert run(case, [source], natural_stop=False) == ("", [], [("read_file", True)])


def test_an_unclosed_call_that_does_not_parse_at_a_natural_stop_gets_a_correction() -> None:
    source = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.p'
    assert run(Case("hermes", "cut", source), [source], natural_stop=True) == (
        "",
        [],
        [("read_file", False)],
    )
    parser = TextCallParser(text_call_family("hermes"), SCHEMAS)
    parser.feed(source)
    parser.finish(natural_stop=True)
    assert "is not valid JSON" in parser.invalid[0].problem


def test_llama_builtin_tool_call_gets_a_correction() -> None:
    parser = TextCallParser(text_call_family("llama3"), SCHEMAS)
    parser.feed('<|python_tag|>brave_search.call(query="weather")')
    parser.finish(natural_stop=True)
    [invalid] = parser.invalid
    assert invalid.name == "brave_search.call"
    assert invalid.problem.startswith("There is no built-in tool brave_search.call;")
    assert not invalid.truncated


def test_harmony_call_without_call_token_is_accepted_at_a_natural_stop() -> None:
    """Servers stop gpt-oss at ``<|call|>`` and leave the stop token out of the text."""
    source = '<|channel|>commentary to=functions.ls <|constrain|>json<|message|>{"path": "src"}'
    case = Case("harmony", "stop", source)
    assert run(case, [source], natural_stop=True) == ("", [("ls", {"path": "src"})], [])


def test_invented_ids_are_stable_from_announcement_to_call() -> None:
    ids = iter(["first0001", "second002"])
    parser = TextCallParser(text_call_family("hermes"), SCHEMAS, new_id=lambda: next(ids))
    events = parser.feed('<tool_call>{"name": "ls", "arguments": {}}</tool_call>' * 2)
    assert [(type(e).__name__, getattr(e, "id", None)) for e in events] == [
        ("ToolCallStarted", "first0001"),
        ("ModelToolCall", "first0001"),
        ("ToolCallStarted", "second002"),
        ("ModelToolCall", "second002"),
    ]


def test_a_model_id_used_twice_gets_a_fresh_one_the_second_time() -> None:
    parser = TextCallParser(text_call_family("mistral-v11"), SCHEMAS, new_id=lambda: "fresh0001")
    parser.feed("[TOOL_CALLS]ls[CALL_ID]same00001[ARGS]{}[TOOL_CALLS]ls[CALL_ID]same00001[ARGS]{}")
    parser.finish()
    assert [c.id for c in parser.calls] == ["same00001", "fresh0001"]


def test_long_call_in_tiny_chunks_is_parsed_whole() -> None:
    content = "x = 1\n" * 20_000
    source = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nbig.py\n</parameter>\n"
        f"<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>"
    )
    parser = TextCallParser(text_call_family("qwen3-coder"), SCHEMAS)
    for start in range(0, len(source), 7):
        parser.feed(source[start : start + 7])
    parser.finish()
    assert parser.calls[0].arguments == {"path": "big.py", "content": content}


@pytest.mark.parametrize(
    ("family", "head", "rest", "announced"),
    [
        (
            "hermes",
            '<tool_call>\n{"name": "write_file", "arguments": {"content": "lo',
            'ng"}}</tool_call>',
            "write_file",
        ),
        (
            "qwen3-coder",
            "<tool_call>\n<function=write_file>\n<parameter=content>\nlo",
            "ng\n</parameter>\n</function>\n</tool_call>",
            "write_file",
        ),
        (
            "glm-4.7",
            "<tool_call>write_file<arg_key>content</arg_key><arg_value>lo",
            "ng</arg_value></tool_call>",
            "write_file",
        ),
        (
            "mistral-v11",
            '[TOOL_CALLS]write_file[CALL_ID]abcDEF123[ARGS]{"content": "lo',
            'ng"}',
            "write_file",
        ),
        ("llama3", '{"name": "write_file", "parameters": {"content": "lo', 'ng"}}', "write_file"),
        (
            "deepseek-v3",
            '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n{"content": "lo',
            'ng"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
            "write_file",
        ),
        (
            "deepseek-v3.1",
            '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{"content": "lo',
            'ng"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
            "write_file",
        ),
        (
            "deepseek-v3.2",
            '<｜DSML｜function_calls>\n<｜DSML｜invoke name="write_file">\n<｜DSML｜parameter name="content" string="true">lo',
            "ng</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            "write_file",
        ),
        (
            "kimi-k2",
            '<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:3<|tool_call_argument_begin|>{"content": "lo',
            'ng"}<|tool_call_end|><|tool_calls_section_end|>',
            "write_file",
        ),
        (
            "harmony",
            '<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{"content": "lo',
            'ng"}<|call|>',
            "write_file",
        ),
    ],
)
def test_a_call_is_announced_while_its_arguments_still_stream(
    family: str, head: str, rest: str, announced: str
) -> None:
    parser = TextCallParser(text_call_family(family), SCHEMAS)
    early = [e for e in parser.feed(head) if isinstance(e, ToolCallStarted)]
    assert [e.name for e in early] == [announced]
    later = parser.feed(rest) + parser.finish()
    assert not any(isinstance(e, ToolCallStarted) for e in later), "announced once"
    [call] = [e for e in later if isinstance(e, ModelToolCall)]
    assert call.id == early[0].id
    assert call.arguments == {"content": "long"}
    if family == "kimi-k2":
        assert call.id == "functions.write_file:3"
    if family == "mistral-v11":
        assert call.id == "abcDEF123"


def test_an_announced_call_that_is_cut_off_keeps_its_id() -> None:
    parser = TextCallParser(text_call_family("hermes"), SCHEMAS)
    [started] = parser.feed('<tool_call>{"name": "write_file", "arguments": {"content": "x')
    assert isinstance(started, ToolCallStarted)
    [invalid] = parser.finish()
    assert isinstance(invalid, InvalidToolCall)
    assert (invalid.id, invalid.name, invalid.truncated) == (started.id, "write_file", True)


def test_harmony_final_text_streams_and_its_terminator_is_not_shown() -> None:
    parser = TextCallParser(text_call_family("harmony"), SCHEMAS)
    assert parser.feed("<|channel|>analysis<|message|>The user wants a sum.<|end|>") == []
    assert parser.feed("<|start|>assistant<|channel|>final<|message|>It is") == [TextDelta("It is")]
    assert parser.feed(" 4.<|ret") == [TextDelta(" 4.")]
    assert parser.feed("urn|>") == []
    assert parser.finish() == []
    assert parser.text == "It is 4."


@given(
    family=st.sampled_from([n for n in FAMILY_NAMES if n != "llama3"]),
    text=st.text(alphabet="<>[]{}|/=_:.`abcfhiklnotuHIKNT ｜▁\n", max_size=60),
    cuts=st.sets(st.integers(1, 59), max_size=8),
)
def test_text_without_a_marker_comes_through_exactly(
    family: str, text: str, cuts: set[int]
) -> None:
    """Nothing the model wrote is lost or held back at the end, however the text is split."""
    markers = [o.marker for o in text_call_family(family).openers]
    assume(not any(marker in text for marker in markers))
    bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
    parser = TextCallParser(text_call_family(family), SCHEMAS)
    shown = [
        e
        for piece in itertools.starmap(lambda a, b: text[a:b], itertools.pairwise(bounds))
        for e in parser.feed(piece)
    ]
    shown += parser.finish()
    assert "".join(e.text for e in shown if isinstance(e, TextDelta)) == text
    assert parser.calls == []
    assert parser.invalid == []
