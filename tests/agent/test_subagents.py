"""Subagents through the ``task`` tool: they run at once, keep to their profile, cannot start
subagents, ask the person under their own name, and end with their parent."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.agent.scripts import call, open_runtime, reply
from tests.agent.test_cancel import TAG, sleeps_running, until_sleeping
from toolbelt.agent import Agent, AgentFinished
from toolbelt.agent.conversation import Conversation
from toolbelt.agent.profiles import BUILTIN_PROFILES, load_profiles
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.agent.subagents import enable_subagents
from toolbelt.core.content import TextBlock
from toolbelt.core.errors import UsageError
from toolbelt.core.events import CallState
from toolbelt.core.permission import Answer, Approval
from toolbelt.providers.model import (
    AssistantMessage,
    ModelRequest,
    ToolResultsMessage,
    UserMessage,
)
from toolbelt.testing import ScriptedRequester

pytestmark = pytest.mark.anyio
PROFILES = {p.name: p for p in BUILTIN_PROFILES}


def _first_prompt(request: ModelRequest) -> str:
    first = request.messages[0]
    assert isinstance(first, UserMessage)
    return "".join(b.text for b in first.content if isinstance(b, TextBlock))


def _is_subagent(request: ModelRequest) -> bool:
    return "# Your role" in request.system


def brain(
    parent: list[AssistantMessage], child: dict[str, list[AssistantMessage]]
) -> ScriptedModel:
    """One model for parent and subagents: each subagent, told apart by its prompt, plays its
    own script; the parent plays ``parent``. Order between subagents does not matter."""

    def answer(request: ModelRequest) -> AssistantMessage:
        if _is_subagent(request):
            return child[_first_prompt(request)].pop(0)
        return parent.pop(0)

    return ScriptedModel([answer] * 40)


async def test_two_task_calls_in_one_turn_run_at_the_same_time(tmp_path: Path) -> None:
    model = brain(
        [
            reply(
                "",
                call("t1", "task", description="first", prompt="nap A"),
                call("t2", "task", description="second", prompt="nap B"),
            ),
            reply("Both napped."),
        ],
        {
            f"nap {x}": [reply("", call(f"s{x}", "bash", command="sleep 1")), reply(f"{x} done")]
            for x in "AB"
        },
    )
    async with open_runtime(tmp_path, mode="bypass") as runtime:
        agent = Agent(model, runtime)
        enable_subagents(agent, PROFILES)
        result = await agent.run("nap twice")
    assert result.text == "Both napped."
    answers = result.messages[2]
    assert isinstance(answers, ToolResultsMessage)
    first, second = answers.results
    assert (first.text, second.text) == ("A done", "B done")
    assert first.duration >= 1 and second.duration >= 1
    overlap = min(first.ended_at, second.ended_at) - max(first.started_at, second.started_at)
    assert overlap > 0.5  # run one after the other, they could not overlap at all


async def test_an_explore_subagent_cannot_write_and_no_subagent_can_start_one(
    tmp_path: Path,
) -> None:
    model = brain(
        [
            reply("", call("t1", "task", description="look", prompt="try", agent="explore")),
            reply("Nothing changed."),
        ],
        {
            "try": [
                reply(
                    "",
                    call("w", "write_file", path="made.txt", content="x"),
                    call("b", "bash", command="touch made.txt"),
                    call("n", "task", description="nested", prompt="deeper"),
                ),
                reply("I could not write."),
            ]
        },
    )
    async with open_runtime(tmp_path, mode="bypass") as runtime:
        agent = Agent(model, runtime)
        enable_subagents(agent, PROFILES)
        result = await agent.run("explore")
    assert not (tmp_path / "made.txt").exists()
    sub_requests = [r for r in model.requests if _is_subagent(r)]
    offered = {t.name for t in sub_requests[0].tools}
    assert {"read_file", "grep", "bash"} <= offered
    assert not offered & {"write_file", "edit_file", "task"}
    answers = sub_requests[1].messages[-1]
    assert isinstance(answers, ToolResultsMessage)
    write, bash, nested = answers.results
    assert write.error_kind == nested.error_kind == "unknown_tool"
    assert bash.error_kind == "permission_denied" and "Plan mode is on" in bash.text
    assert result.text == "Nothing changed."


async def test_a_subagents_prompt_carries_its_name(tmp_path: Path) -> None:
    model = brain(
        [reply("", call("t1", "task", description="make", prompt="make it")), reply("Made.")],
        {
            "make it": [
                reply("", call("b", "bash", command="touch made.txt && rm -f made.txt")),
                reply("ok"),
            ]
        },
    )
    requester = ScriptedRequester(Answer(Approval.DENY, "not now"))
    async with open_runtime(tmp_path, requester=requester) as runtime:
        agent = Agent(model, runtime)
        enable_subagents(agent, PROFILES)
        await agent.run("make")
    [(request, _)] = requester.asked
    assert (request.agent, request.tool) == ("general", "bash")


async def test_cancelling_the_parent_ends_the_subagents_sleep(tmp_path: Path) -> None:
    model = brain(
        [reply("", call("t1", "task", description="sleep", prompt="sleep long"))],
        {"sleep long": [reply("", call("s", "bash", command=f"sleep 100{TAG}"))]},
    )
    async with open_runtime(tmp_path, mode="bypass") as runtime:
        agent = Agent(model, runtime)
        enable_subagents(agent, PROFILES)
        async with anyio.create_task_group() as group:

            async def cancel_once_sleeping() -> None:
                await until_sleeping()
                agent.cancel()

            group.start_soon(cancel_once_sleeping)
            result = await agent.run("go")
        assert sleeps_running() == []
    assert result.stop == "cancelled"
    answers = result.messages[-1]
    assert isinstance(answers, ToolResultsMessage)
    assert answers.results[0].state is CallState.ABORTED


async def test_subagent_tokens_add_up_to_the_sessions(tmp_path: Path) -> None:
    model = brain(
        [reply("", call("t1", "task", description="x", prompt="count")), reply("done")],
        {"count": [reply("counted")]},
    )
    async with open_runtime(tmp_path) as runtime:
        agent = Agent(model, runtime)
        enable_subagents(agent, PROFILES)
        conversation = Conversation(agent)
        async for event in conversation.stream("go"):
            if isinstance(event, AgentFinished):
                assert len(event.result.turns) == 2
    assert len(conversation.turns) == 3  # two of the parent's, one of the subagent's
    assert conversation.usage.input_tokens == 300


def test_profiles_from_claude_agents_follow_workspace_trust(tmp_path: Path) -> None:
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews changes.\ntools: Read, Grep\n"
        "model: anthropic:claude-opus-4-5\npermissionMode: plan\n---\nYou review code.\n"
    )
    assert "reviewer" not in load_profiles(tmp_path, trusted=False)
    reviewer = load_profiles(tmp_path, trusted=True)["reviewer"]
    assert (reviewer.tools, reviewer.model, reviewer.mode, reviewer.system) == (
        ("Read", "Grep"),
        "anthropic:claude-opus-4-5",
        "plan",
        "You review code.",
    )
    (agents / "bad.md").write_text("---\nname: bad\n---\nno description\n")
    with pytest.raises(UsageError, match=r"bad.md needs a description \(when to use it\)"):
        load_profiles(tmp_path, trusted=True)


async def test_a_profile_without_tools_answers_with_the_conversations_context(
    tmp_path: Path,
) -> None:
    expert = tmp_path / "home" / ".config" / "toolbelt" / "agents"
    expert.mkdir(parents=True)
    (expert / "expert.md").write_text(
        "---\nname: expert\ndescription: A second opinion.\ntools: none\n---\nJudge.\n"
    )
    profiles = load_profiles(tmp_path, trusted=False, home=tmp_path / "home")
    model = brain(
        [
            reply("", call("t1", "task", description="ask", prompt="Is it sound?", agent="expert")),
            reply("The expert agrees."),
        ],
        {"We chose sqlite.": [reply("Sound.")]},
    )
    async with open_runtime(tmp_path) as runtime:
        agent = Agent(model, runtime)
        enable_subagents(agent, profiles)
        result = await agent.run("We chose sqlite.")
    consulted = next(r for r in model.requests if _is_subagent(r))
    assert consulted.tools == ()
    [asked] = consulted.messages  # the conversation so far, the question joined to it
    assert isinstance(asked, UserMessage)
    assert [b.text for b in asked.content if isinstance(b, TextBlock)] == [
        "We chose sqlite.",
        "Is it sound?",
    ]
    assert result.text == "The expert agrees."
