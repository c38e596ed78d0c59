"""The search index over a generated catalog of 500 MCP tools on 20 servers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.toolsearch.fake_catalog import FakeServerTool, fake_tools
from toolbelt.toolsearch import ToolIndex
from toolbelt.toolsearch.terms import server_of, short_name, words

TOOLS = fake_tools()
INDEX = ToolIndex(TOOLS)


def names(query: str, **options: object) -> list[str]:
    return [match.tool.name for match in INDEX.search(query, **options)]  # type: ignore[arg-type]


def tool(name: str, description: str, **properties: str) -> FakeServerTool:
    schema = {
        "type": "object",
        "properties": {
            key: {"type": "string", "description": text} for key, text in properties.items()
        },
    }
    return FakeServerTool(name, description=description, input_schema=schema)


def test_the_catalog_is_500_distinct_tools_on_20_servers() -> None:
    assert len({t.name for t in TOOLS}) == 500
    assert len(INDEX.servers()) == 20
    assert INDEX.servers()[:3] == ("github", "gitlab", "jira")


@pytest.mark.parametrize("target", TOOLS, ids=lambda t: t.name)
def test_every_full_name_is_found_first(target: FakeServerTool) -> None:
    first = INDEX.search(target.name)[0]
    assert (first.tool, first.exact) == (target, True)


def test_every_short_name_is_found_first_on_its_server_and_first_among_servers() -> None:
    for target in TOOLS:
        short, server = short_name(target.name), server_of(target.name)
        assert names(short, server=server)[0] == target.name
        # unfiltered, every server's tool of that name comes before any other tool
        found = INDEX.search(short, limit=20)
        sharing = [t.name for t in TOOLS if short_name(t.name) == short]
        assert len(found) == len(sharing)  # a name as the query: its tools, nothing else
        assert {m.tool.name for m in found[: len(sharing)]} == set(sharing)
        assert all(m.exact for m in found[: len(sharing)])


@given(st.sampled_from(TOOLS), st.randoms(use_true_random=False))
def test_exact_names_ignore_case_and_win_inside_a_longer_query(
    target: FakeServerTool, rng: object
) -> None:
    mixed = "".join(c.upper() if rng.random() < 0.5 else c for c in target.name)  # type: ignore[attr-defined]
    assert names(mixed)[0] == target.name
    assert names(f"please run {mixed} on the staging data")[0] == target.name


def test_an_exact_name_beats_descriptions_that_repeat_the_query() -> None:
    noisy = tool(
        "mcp__docs__search_everything",
        "Search search search: deploy deploy deploy the deploy of every deploy.",
        deploy="What to deploy.",
    )
    exact = tool("mcp__ops__deploy", "Roll out a build.")
    index = ToolIndex([noisy, exact])
    assert [m.tool.name for m in index.search("deploy")] == ["mcp__ops__deploy"]
    assert [m.tool.name for m in index.search("deploy it")] == [
        "mcp__ops__deploy",
        "mcp__docs__search_everything",
    ]


def test_words_rank_by_bm25_over_name_parameters_and_description() -> None:
    assert set(names("send a slack message")) == {
        f"mcp__slack__{verb}_message" for verb in ("create", "get", "update", "delete")
    } | {"mcp__slack__list_messages"}
    assert names("list escalation policies", limit=1) == [
        "mcp__pagerduty__list_escalation_policies"
    ]
    assert names("createMergeRequest", limit=1) == ["mcp__gitlab__create_merge_request"]
    # "paging" is only in list tools' descriptions, "per_page" only in their parameters
    assert all(n.split("__")[2].startswith("list_") for n in names("paging", limit=20))
    assert all(n.split("__")[2].startswith("list_") for n in names("per page", limit=20))
    # a parameter's name counts more than a description's word
    by_parameter = tool("mcp__a__one", "Does a thing.", invoice_id="The id.")
    by_description = tool("mcp__a__two", "Does a thing with an invoice.", other="Other.")
    assert [m.tool.name for m in ToolIndex([by_description, by_parameter]).search("invoice")] == [
        "mcp__a__one",
        "mcp__a__two",
    ]


def test_a_word_no_tool_has_reads_as_a_prefix() -> None:
    assert names("kuber deploy", limit=1)[0].startswith("mcp__kubernetes__")
    assert names("zzzz") == []


def test_server_filter_and_limit() -> None:
    found = names("comment", server="Linear", limit=20)
    assert found and all(n.startswith("mcp__linear__") for n in found)
    assert len(names("comment", limit=20)) == 20
    assert len(names("comment")) == 5
    assert names("list_issues", server="jira") == ["mcp__jira__list_issues"]
    found = names("list_issues please", server="jira")
    assert found[0] == "mcp__jira__list_issues"
    assert set(found[1:]) == {
        f"mcp__jira__{v}_issue" for v in ("get", "create", "update", "delete")
    }


def test_resolve_finds_full_and_short_names() -> None:
    assert [t.name for t in INDEX.resolve("MCP__GITHUB__CREATE_ISSUE")] == [
        "mcp__github__create_issue"
    ]
    assert [t.name for t in INDEX.resolve("create_issue")] == [
        "mcp__github__create_issue",
        "mcp__gitlab__create_issue",
        "mcp__jira__create_issue",
        "mcp__linear__create_issue",
        "mcp__sentry__create_issue",
    ]
    assert [t.name for t in INDEX.resolve("create_issue", server="jira")] == [
        "mcp__jira__create_issue"
    ]
    assert INDEX.resolve("no_such_tool") == []


def test_words_split_identifiers_and_drop_plurals_and_stop_words() -> None:
    assert words("getFileContents") == ["get", "file", "content"]
    assert words("list-pull-requests_v2") == ["list", "pull", "request", "v", "2"]
    assert words("Delete the repositories of a user") == ["delete", "repository", "user"]
    assert words("HTTPServer status") == ["http", "server", "status"]
    assert (server_of("mcp__my_server__do_it"), short_name("mcp__my_server__do_it")) == (
        "my_server",
        "do_it",
    )
    assert (server_of("read_file"), short_name("read_file")) == (None, "read_file")
