"""Tool search over 500 MCP tools (20 fake servers, ``tests/toolsearch/fake_catalog.py``).

- Search latency: ``ToolIndex.search`` per kind of query (exact full name, short name, words,
  a longer sentence, ``server`` filter), median per search; beside it a linear regex scan over
  every name and description (the shape of Anthropic's regex tool-search variant), the floor a
  search without an index pays, measured in the same rounds. Goal ≤ 5 ms per search.
- Index build: a whole rebuild over 500 tools (what a changed tool list costs).
- A whole ``tool_search`` call through the runtime's executor (validation, events, the answer
  with five schemas rendered), and ``offered_tools`` (what the loop asks once per request).
- Tokens per request, with and without deferral, estimated as each provider format's JSON size
  over 4 bytes per token (no tokenizer is involved; real counts differ by format and model).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.toolsearch.fake_catalog import fake_tools, searchable_toolset

from harness import Case, fmt_time, interleave, table, write_section
from toolbelt.config.settings import Settings
from toolbelt.core.executor import ToolCall
from toolbelt.providers.formats import tool_definitions
from toolbelt.runtime import Runtime
from toolbelt.toolsearch import ToolIndex, ToolSearchState, offered_tools

QUERIES = {
    "exact full name": ["mcp__github__create_issue", "mcp__zendesk__list_views"],
    "short name": ["list_issues", "get_secret"],
    "two words": ["slack message", "refund payment"],
    "sentence": ["find the open incidents assigned to me this week", "add a comment to a page"],
    "words + server filter": ["comment", "secret"],
}
PER_SAMPLE = 50


def _regex_scan(tools: tuple[object, ...], query: str) -> list[object]:
    pattern = re.compile("|".join(re.escape(w) for w in query.split()), re.IGNORECASE)
    texts = [(t, f"{t.name} {t.description}") for t in tools]  # type: ignore[attr-defined]
    return [t for t, text in texts if pattern.search(text)][:5]


def search_latency(rounds: int = 31) -> list[tuple[str, Case, Case]]:
    tools = fake_tools()
    index = ToolIndex(tools)
    rows = []
    for kind, queries in QUERIES.items():
        server = "confluence" if "server" in kind else None

        def ours(queries: list[str] = queries, server: str | None = server) -> None:
            for _ in range(PER_SAMPLE // len(queries)):
                for query in queries:
                    index.search(query, server=server)

        def scan(queries: list[str] = queries) -> None:
            for _ in range(PER_SAMPLE // len(queries)):
                for query in queries:
                    _regex_scan(tools, query)

        cases = (Case(f"index: {kind}", ours), Case(f"regex scan: {kind}", scan))
        interleave(cases, rounds)
        for case in cases:
            case.samples = [s / PER_SAMPLE for s in case.samples]
        rows.append((kind, cases[0], cases[1]))
    return rows


def build_time(rounds: int = 15) -> Case:
    tools = fake_tools()
    case = Case("index build, 500 tools", lambda: ToolIndex(tools))
    interleave([case], rounds)
    return case


def executor_call(rounds: int = 31) -> Case:
    loop = asyncio.new_event_loop()
    runtime = Runtime(tempfile.mkdtemp(), toolset=searchable_toolset(), settings=Settings())
    loop.run_until_complete(runtime.__aenter__())
    call = ToolCall("b", "tool_search", '{"query": "create issue", "limit": 5}')
    case = Case(
        "tool_search through the executor (5 schemas)",
        lambda: loop.run_until_complete(runtime.run_one(call)),
    )
    interleave([case], rounds)
    loop.run_until_complete(runtime.aclose())
    loop.close()
    return case


def per_turn(rounds: int = 31) -> Case:
    toolset = searchable_toolset()
    state = ToolSearchState()
    state.load(["mcp__github__get_issue", "mcp__jira__create_issue", "mcp__slack__list_channels"])
    case = Case(
        "offered_tools per request (517 tools, 3 loaded)",
        lambda: offered_tools(toolset.tools(), state),
    )
    interleave([case], rounds)
    return case


def tokens() -> list[list[str]]:
    toolset = searchable_toolset()
    everything = [t for t in toolset.tools() if t.name != "tool_search"]
    state = ToolSearchState()
    deferred = offered_tools(toolset.tools(), state)
    state.load(t.name for t in everything if t.name.startswith("mcp__github__"))
    loaded = offered_tools(toolset.tools(), state)[: len(deferred) + 5]
    rows = []
    for provider in ("anthropic", "openai", "openai-responses", "gemini"):
        sizes = [
            _tokens(tool_definitions(tools, provider)) for tools in (everything, deferred, loaded)
        ]  # type: ignore[arg-type]
        rows.append(
            [
                provider,
                f"{sizes[0]:,}",
                f"{sizes[1]:,}",
                f"{sizes[2]:,}",
                f"{1 - sizes[1] / sizes[0]:.1%}",
            ]
        )
    return rows


def _tokens(definitions: object) -> int:
    return -(-len(json.dumps(definitions, separators=(",", ":")).encode()) // 4)


def main() -> None:
    latency = search_latency()
    build = build_time()
    call = executor_call()
    turn = per_turn()
    rows = [
        [
            kind,
            fmt_time(ours.median),
            fmt_time(ours.percentile(0.9)),
            fmt_time(scan.median),
            f"×{ours.median / scan.median:.2f}",
        ]
        for kind, ours, scan in latency
    ]
    everything = [sample for _, ours, _ in latency for sample in ours.samples]
    overall = sorted(everything)[len(everything) // 2]
    body = "\n\n".join(
        [
            "Command: `.venv/bin/python bench/run.py toolsearch`",
            "### search latency over 500 tools (goal ≤ 5 ms per search)\n\n"
            f"median of {len(latency[0][1].samples)} interleaved rounds of {PER_SAMPLE} searches; "
            "×N = index time / regex-scan time in the same rounds.\n\n"
            + table(rows, ["query", "index median", "index p90", "regex scan median", "ratio"])
            + f"\n\n**All kinds together: median {fmt_time(overall)} per search.**",
            "### index build and a whole call\n\n"
            + table(
                [
                    [build.name, fmt_time(build.median), fmt_time(build.percentile(0.9))],
                    [call.name, fmt_time(call.median), fmt_time(call.percentile(0.9))],
                    [turn.name, fmt_time(turn.median), fmt_time(turn.percentile(0.9))],
                ],
                ["case", "median", "p90"],
            ),
            "### tokens of the tool definitions per request\n\n"
            "Estimated as the JSON size of each provider's `tools` over 4 bytes per token. "
            "Without deferral: the 17 built-ins and 500 MCP tools; with deferral: the built-ins "
            "and `tool_search`; then 5 tools loaded by a search.\n\n"
            + table(
                tokens(),
                ["format", "without deferral", "with deferral", "+5 loaded", "saved per request"],
            ),
        ]
    )
    print(body)
    write_section("toolsearch", body)


if __name__ == "__main__":
    main()
