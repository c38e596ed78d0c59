"""Text tool-call parsing throughput on Hermes/Qwen-style output.

The corpus is 200 assistant turns (prose, then two ``<tool_call>`` blocks whose arguments hold
a few hundred characters of code, JSON-escaped), about 1 MB. Each turn gets a fresh parser, as
in the agent loop. Chunkings are made before timing:

- 4–16 characters (seeded random): how a model server streams tokens;
- 4 KiB: a server or proxy that batches its output.

Peers measured in the same run, on the same chunks:

- "re-parse and diff" — the strategy vLLM's streaming tool parsers use: on every chunk, run
  the ``<tool_call>(.*?)</tool_call>`` regex over everything received so far and emit what is
  new (quadratic in a turn's length);
- the batch floor — one regex pass plus ``json.loads`` over each whole turn, no streaming:
  the least any parser that decodes the JSON can cost.
"""

from __future__ import annotations

import json
import random
import re

from harness import Case, fmt_time, interleave, table, write_section
from toolbelt.providers.textcalls import TextCallParser, text_call_family

SCHEMAS = {
    "edit_file": {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_string": {"type": "string"},
            "new_string": {"type": "string"},
            "replace_all": {"type": "boolean"},
        },
    },
    "read_file": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
    },
}
CODE = (
    "def handler(event, context):\n"
    '    """Route one request; a missing key is a 400, not a crash."""\n'
    '    body = json.loads(event.get("body") or "{}")\n'
    '    if "user" not in body:\n'
    '        return {"status": 400, "error": "user is required"}\n'
    '    for item in body.get("items", []):\n'
    '        total += item["price"] * item.get("qty", 1)\n'
    '    return {"status": 200, "total": round(total, 2)}\n'
)
PROSE = (
    "The handler crashes when the request has no body, because json.loads receives None. "
    "I will read the module first, then replace the parsing block so an empty body becomes "
    "an empty object and a missing user is reported as a 400 with a clear message. "
)
TURNS = 500


def make_turn(index: int) -> str:
    edit = {
        "name": "edit_file",
        "arguments": {
            "path": f"src/service/handler_{index}.py",
            "old_string": CODE,
            "new_string": CODE.replace("400", "422") + f"# revision {index}\n",
            "replace_all": "false",
        },
    }
    read = {"name": "read_file", "arguments": {"path": f"tests/test_{index}.py", "offset": "1"}}
    calls = "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in (read, edit))
    return f"{PROSE * 3}\n{calls}"


def token_chunks(text: str, rng: random.Random) -> list[str]:
    chunks, i = [], 0
    while i < len(text):
        size = rng.randint(4, 16)
        chunks.append(text[i : i + size])
        i += size
    return chunks


def block_chunks(text: str, size: int = 4096) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def toolbelt_parse(turns: list[list[str]]) -> int:
    family = text_call_family("hermes")
    found = 0
    for chunks in turns:
        parser = TextCallParser(family, SCHEMAS)
        for chunk in chunks:
            parser.feed(chunk)
        parser.finish()
        found += len(parser.calls)
    return found


_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


def reparse_and_diff(turns: list[list[str]]) -> int:
    found = 0
    for chunks in turns:
        text, emitted = "", 0
        for chunk in chunks:
            text += chunk
            matches = _CALL.findall(text)
            for body in matches[emitted:]:
                json.loads(body)
            emitted = len(matches)
        found += emitted
    return found


def batch_floor(turns: list[str]) -> int:
    return sum(1 for text in turns for body in _CALL.findall(text) if json.loads(body))


def main(rounds: int = 11) -> None:
    texts = [make_turn(i) for i in range(TURNS)]
    size = sum(len(t.encode()) for t in texts)
    rng = random.Random(14)
    tokens = [token_chunks(t, rng) for t in texts]
    blocks = [block_chunks(t) for t in texts]
    expected = 2 * TURNS
    assert toolbelt_parse(tokens) == toolbelt_parse(blocks) == expected
    assert reparse_and_diff(tokens) == batch_floor(texts) == expected
    cases = [
        Case("toolbelt, 4–16 char chunks", lambda: toolbelt_parse(tokens)),
        Case("toolbelt, 4 KiB chunks", lambda: toolbelt_parse(blocks)),
        Case(
            "re-parse and diff (vLLM strategy), 4–16 char chunks", lambda: reparse_and_diff(tokens)
        ),
        Case("re-parse and diff, 4 KiB chunks", lambda: reparse_and_diff(blocks)),
        Case("batch floor: regex + json.loads per whole turn", lambda: batch_floor(texts)),
    ]
    interleave(cases, rounds)
    floor = cases[-1].median
    rows = [
        [
            case.name,
            fmt_time(case.median),
            f"{size / case.median / 1e6:.1f} MB/s",
            f"×{case.median / floor:.2f}",
        ]
        for case in cases
    ]
    chunk_count = sum(len(c) for c in tokens)
    body = (
        "Command: `.venv/bin/python bench/run.py textcalls`\n\n"
        f"{TURNS} Hermes-style turns, {size / 1e6:.2f} MB, {chunk_count} token-sized chunks; "
        f"each turn parsed by a fresh parser; median of {rounds} interleaved rounds; ×N = time "
        "relative to the batch floor. Goal: ≥ 50 MB/s for the streaming parser.\n\n"
        + table(rows, ["case", "median (whole corpus)", "throughput", "vs batch floor"])
    )
    print(body)
    write_section("textcalls", body)


if __name__ == "__main__":
    main()
