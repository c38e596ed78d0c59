"""``toolbelt.testing``: the fakes a user tests their own tools and prompts with."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from toolbelt import (
    Access,
    AccessKind,
    Answer,
    Approval,
    CommandAccess,
    Question,
    Runtime,
    Session,
    Tool,
    ToolCall,
    ToolContext,
    ToolInput,
    ToolOutput,
    ToolRegistry,
)
from toolbelt.testing import (
    EventLog,
    NeverAnswers,
    NeverReplies,
    ScriptedRequester,
    run_call,
    tool_context,
)

pytestmark = pytest.mark.anyio


class DeployInput(ToolInput):
    env: str


class DeployTool(Tool[DeployInput]):
    """A user's tool that needs permission (it runs something)."""

    name = "deploy"
    title = "Deploy"
    description = "Deploy the app."
    input_model = DeployInput
    example = {"env": "staging"}

    async def access(self, args: DeployInput, ctx: ToolContext) -> Access:
        return Access(AccessKind.EXECUTE, command=f"deploy {args.env}", summary="deploy")

    async def run(self, args: DeployInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text(f"deployed to {args.env}")


async def test_run_call_goes_through_the_policy_and_the_scripted_answers(tmp_path: Path) -> None:
    requester = ScriptedRequester(Answer(Approval.DENY, "not today"), Answer(Approval.ONCE))
    denied = await run_call(DeployTool(), {"env": "prod"}, root=tmp_path, requester=requester)
    allowed = await run_call(DeployTool(), '{"env": "prod"}', root=tmp_path, requester=requester)
    assert (denied.error_kind, denied.text) == ("permission_denied", "not today")
    assert (allowed.is_error, allowed.text) == (False, "deployed to prod")
    assert [(request.tool, ask.reason) for request, ask in requester.asked] == [
        ("deploy", "deploy runs a command."),
        ("deploy", "deploy runs a command."),
    ]
    assert requester.prompts == [
        ("deploy", "deploy runs a command."),
        ("deploy", "deploy runs a command."),
    ]


async def test_a_requester_whose_script_ran_out_denies_and_says_why(tmp_path: Path) -> None:
    result = await run_call(
        DeployTool(), {"env": "x"}, root=tmp_path, requester=ScriptedRequester()
    )
    assert result.text == "The test's script of answers ran out."


async def test_never_answers_ends_at_the_permission_timeout(tmp_path: Path) -> None:
    requester = NeverAnswers()
    result = await run_call(
        DeployTool(), {"env": "x"}, root=tmp_path, requester=requester, permission_timeout=0.01
    )
    assert result.error_kind == "permission_denied"
    assert requester.asking.is_set()
    assert requester.prompts == [("deploy", "deploy runs a command.")]


class AskTool(Tool[DeployInput]):
    """A user's tool that asks the person which environment to deploy to."""

    name = "ask_env"
    title = "Ask"
    description = "Ask where to deploy."
    input_model = DeployInput
    example = {"env": "staging"}
    readonly = True

    async def run(self, args: DeployInput, ctx: ToolContext) -> ToolOutput:
        with anyio.move_on_after(ctx.answer_timeout):
            answer = await ctx.user.ask(Question(f"Deploy to {args.env}?"))
            return ToolOutput.text(f"{answer.action}: {answer.text}")
        return ToolOutput.text("No answer; staying on staging.")


async def test_never_replies_leaves_the_tool_to_its_answer_timeout(tmp_path: Path) -> None:
    user = NeverReplies()
    result = await run_call(
        AskTool(), {"env": "prod"}, root=tmp_path, user=user, permission_timeout=0.01
    )
    assert result.text == "No answer; staying on staging."
    assert [question.prompt for question in user.questions] == ["Deploy to prod?"]
    assert user.asking.is_set()


async def test_event_log_tells_a_calls_story(tmp_path: Path) -> None:
    requester = NeverAnswers()
    # the user's own tool asks whatever the sandbox allows (a sandboxed `make` would not ask)
    toolset = ToolRegistry([DeployTool()])
    async with Runtime(tmp_path, toolset=toolset, requester=requester) as runtime:
        log = EventLog(runtime.events)

        async def run() -> None:
            await runtime.run([ToolCall("c", "deploy", {"env": "prod"})])
            requester.asking.set()  # a call that never asks fails below instead of hanging

        async with anyio.create_task_group() as group:
            group.start_soon(run)
            await requester.asking.wait()
            runtime.cancel()
    assert log.states("c") == ["pending", "permission_required", "aborted"]


async def test_tool_context_calls_access_directly(tmp_path: Path) -> None:
    async with Session(tmp_path) as session:
        access = await DeployTool().access(DeployInput(env="qa"), tool_context(session, "deploy"))
    assert access.command == CommandAccess("deploy qa")  # the text alone, taken as a command
