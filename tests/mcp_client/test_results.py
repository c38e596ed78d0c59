"""Remote results as our blocks: every MCP content type, structured content, and the cap."""

from __future__ import annotations

import base64
import uuid
from pathlib import Path

import mcp_types as types

from toolbelt.core.content import ImageBlock, TextBlock
from toolbelt.mcp_client.results import output_from_result
from toolbelt.shell.output import remove_spill_dir


def test_each_kind_of_block_is_mapped() -> None:
    audio = base64.b64encode(b"\0" * 2048).decode()
    result = types.CallToolResult(
        content=[
            types.TextContent(text="plain"),
            types.ImageContent(data="aW1n", mime_type="image/png"),
            types.AudioContent(data=audio, mime_type="audio/wav"),
            types.EmbeddedResource(
                resource=types.TextResourceContents(uri="file:///a.txt", text="inside")
            ),
            types.ResourceLink(uri="file:///b.bin", name="b", description="a blob"),
        ],
        structured_content={"count": 2},
        is_error=True,
    )
    output = output_from_result(result, session_id="s", call_id="c")
    assert output.content == (
        TextBlock("plain"),
        ImageBlock("aW1n", "image/png"),
        TextBlock("[audio: audio/wav, 2,048 bytes, not shown]"),
        TextBlock("[resource file:///a.txt]\ninside"),
        TextBlock("[resource link file:///b.bin (b) — a blob]"),
    )
    assert (output.structured, output.is_error) == ({"count": 2}, True)


def test_structured_content_that_is_not_an_object_is_kept_under_value() -> None:
    result = types.CallToolResult(content=[], structured_content=[1, 2])
    output = output_from_result(result, session_id="s", call_id="c")
    assert output.structured == {"value": [1, 2]}
    assert output.content == ()


def test_an_empty_result_says_so() -> None:
    output = output_from_result(types.CallToolResult(content=[]), session_id="s", call_id="c")
    assert output.content == (TextBlock("(the tool returned no content)"),)


def test_long_text_is_capped_and_the_whole_of_it_spilled() -> None:
    session = uuid.uuid4().hex
    lines = "".join(f"line {n}\n" for n in range(20_000))
    result = types.CallToolResult(content=[types.TextContent(text=lines)])
    try:
        output = output_from_result(result, session_id=session, call_id="call/1")
        (block,) = output.content
        assert isinstance(block, TextBlock)
        assert len(block.text) < 31_000
        assert block.text.startswith("line 0\nline 1\n")
        assert block.text.endswith("line 19999\n\n")
        note = block.text[block.text.index("[...") : block.text.index("...]") + 4]
        spilled = Path(note.split(" is in ")[1].split(" — ")[0])
        assert spilled.name == "mcp-call_1.txt"
        assert spilled.read_text() == lines + "\n"
    finally:
        remove_spill_dir(session)


def test_the_cap_follows_max_mcp_output_tokens_or_the_entry() -> None:
    from toolbelt.mcp_client.config import output_cap

    assert output_cap(None, {}) == 30_000  # a bash command's cap
    assert output_cap(None, {"MAX_MCP_OUTPUT_TOKENS": "50000"}) == 200_000  # 4 characters a token
    assert output_cap(1_000, {"MAX_MCP_OUTPUT_TOKENS": "50000"}) == 4_000  # the entry's own
    assert output_cap(None, {"MAX_MCP_OUTPUT_TOKENS": "lots"}) == 30_000
    session = uuid.uuid4().hex
    lines = "".join(f"line {n}\n" for n in range(20_000))  # 208,890 characters
    result = types.CallToolResult(content=[types.TextContent(text=lines)])
    try:
        whole = output_from_result(result, session_id=session, call_id="a", cap=250_000)
        assert whole.content == (TextBlock(lines),)
        small = output_from_result(result, session_id=session, call_id="b", cap=4_000)
        (block,) = small.content
        assert isinstance(block, TextBlock)
        assert 3_000 < len(block.text) < 5_000
    finally:
        remove_spill_dir(session)
