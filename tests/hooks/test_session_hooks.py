"""The session's hook events, each with a real command hook (a Python script reading Claude
Code's JSON payload on stdin, recording it, and answering as a user's hook would)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.agent.scripts import call, open_runtime, reply

from toolbelt.agent import Agent, AgentFinished
from toolbelt.agent.conversation import MAX_STOP_CONTINUATIONS, Conversation, PromptBlocked
from toolbelt.agent.profiles import BUILTIN_PROFILES
from toolbelt.agent.scripted import ScriptedModel
from toolbelt.agent.subagents import enable_subagents
from toolbelt.config.settings import Settings
from toolbelt.core.access import Access, AccessKind
from toolbelt.core.content import TextBlock
from toolbelt.core.executor import ToolCall
from toolbelt.core.permission import Answer, Approval, Ask, PermissionRequest
from toolbelt.hooks.permission_hooks import HookedRequester
from toolbelt.hooks.session_hooks import SessionHooks
from toolbelt.providers.model import ModelRequest, ToolResultsMessage, UserMessage
from toolbelt.runtime import Runtime
from toolbelt.testing import ScriptedRequester
from toolbelt.tools import builtin_toolset

pytestmark = pytest.mark.anyio

HOOK = """\
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(payload) + "\\n")
answer = sys.argv[2] if len(sys.argv) > 2 else ""
if answer == "block-once" and not payload.get("stop_hook_active"):
    print(json.dumps({"decision": "block", "reason": "run the tests first"}))
elif answer == "always-block":
    print(json.dumps({"decision": "block", "reason": "not yet"}))
elif answer == "exit2":
    print("no passwords in prompts", file=sys.stderr)
    sys.exit(2)
elif answer.startswith("print:"):
    print(answer[6:])
elif answer.startswith("json:"):
    print(answer[5:])
"""


class Hooks:
    """A settings ``hooks`` section whose every hook is the script above, and its log."""

    def __init__(self, tmp_path: Path) -> None:
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.script = tmp_path / "hook.py"
        self.script.write_text(HOOK)
        self.log = tmp_path / "hooks.log"
        self.config: dict[str, list[dict[str, Any]]] = {}

    def on(self, event: str, answer: str = "", matcher: str = "") -> Hooks:
        command = f"{sys.executable} {self.script} {self.log} '{answer}'"
        group = {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}
        self.config.setdefault(event, []).append(group)
        return self

    def payloads(self, event: str | None = None) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        found = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [p for p in found if event is None or p["hook_event_name"] == event]

    def session(self, root: Path, mode: str = "default") -> SessionHooks:
        return SessionHooks(
            self.config, root, session_id="s1", transcript_path=root / "t.jsonl", mode=lambda: mode
        )


def _texts(message: object) -> list[str]:
    assert isinstance(message, UserMessage)
    return [b.text for b in message.content if isinstance(b, TextBlock)]


async def _run(conversation: Conversation, prompt: str) -> list[object]:
    return [event async for event in conversation.stream(prompt)]


async def test_session_start_context_goes_to_the_model(tmp_path: Path) -> None:
    hooks = Hooks(tmp_path).on("SessionStart", "print:This project indents with tabs.", "startup")
    model = ScriptedModel([reply("ok")])
    async with open_runtime(tmp_path) as runtime:
        conversation = Conversation(Agent(model, runtime), hooks=hooks.session(tmp_path))
        await conversation.start("startup")
        await _run(conversation, "hello")
        await conversation.start("resume")  # the matcher selects startup only
    assert _texts(model.requests[0].messages[0]) == [
        "hello",
        "SessionStart hook context:\nThis project indents with tabs.",
    ]
    [payload] = hooks.payloads()
    assert payload == {
        "session_id": "s1",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "SessionStart",
        "source": "startup",
    }


async def test_user_prompt_submit_blocks_or_adds_context(tmp_path: Path) -> None:
    blocking = Hooks(tmp_path).on("UserPromptSubmit", "exit2")
    model = ScriptedModel([reply("ok")])
    async with open_runtime(tmp_path) as runtime:
        conversation = Conversation(Agent(model, runtime), hooks=blocking.session(tmp_path))
        events = await _run(conversation, "my password is hunter2")
    assert events == [PromptBlocked("no passwords in prompts")]
    assert model.requests == []
    assert blocking.payloads()[0]["prompt"] == "my password is hunter2"
    adding = Hooks(tmp_path / "second").on(
        "UserPromptSubmit",
        "json:"
        + json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit",
                    "additionalContext": "Today is Friday.",
                }
            }
        ),
    )
    async with open_runtime(tmp_path) as runtime:
        conversation = Conversation(Agent(model, runtime), hooks=adding.session(tmp_path))
        await _run(conversation, "what day is it?")
    assert _texts(model.requests[0].messages[-1]) == [
        "what day is it?",
        "UserPromptSubmit hook context:\nToday is Friday.",
    ]


async def test_a_stop_hook_sends_the_model_back_once(tmp_path: Path) -> None:
    hooks = Hooks(tmp_path).on("Stop", "block-once")
    model = ScriptedModel([reply("Done."), reply("Tests pass. Done.")])
    async with open_runtime(tmp_path) as runtime:
        conversation = Conversation(Agent(model, runtime), hooks=hooks.session(tmp_path))
        events = await _run(conversation, "fix it")
    finished = events[-1]
    assert isinstance(finished, AgentFinished)
    assert finished.result.text == "Tests pass. Done." and len(finished.result.turns) == 2
    assert _texts(model.requests[1].messages[-1]) == ["Stop hook feedback:\nrun the tests first"]
    assert [p["stop_hook_active"] for p in hooks.payloads("Stop")] == [False, True]


async def test_a_stop_hook_that_never_lets_go_is_bounded(tmp_path: Path) -> None:
    hooks = Hooks(tmp_path).on("Stop", "always-block")
    model = ScriptedModel([reply("again")] * (MAX_STOP_CONTINUATIONS + 1))
    async with open_runtime(tmp_path) as runtime:
        conversation = Conversation(Agent(model, runtime), hooks=hooks.session(tmp_path))
        await _run(conversation, "go")
    assert len(model.requests) == MAX_STOP_CONTINUATIONS + 1


async def test_a_subagent_stop_hook_sends_the_subagent_back(tmp_path: Path) -> None:
    hooks = Hooks(tmp_path).on("SubagentStop", "block-once", "explore")

    def answer(request: ModelRequest) -> Any:
        last = request.messages[-1]
        if "# Your role" not in request.system:
            if isinstance(last, ToolResultsMessage):
                return reply(f"parent got: {last.results[0].text}")
            return reply("", call("t", "task", description="d", prompt="look", agent="explore"))
        if isinstance(last, UserMessage) and "SubagentStop hook feedback" in _texts(last)[0]:
            return reply("looked twice")
        return reply("looked once")

    model = ScriptedModel([answer] * 6)
    async with open_runtime(tmp_path) as runtime:
        agent = Agent(model, runtime)
        enable_subagents(
            agent, {p.name: p for p in BUILTIN_PROFILES}, hooks=hooks.session(tmp_path)
        )
        result = await agent.run("explore")
    assert result.text == "parent got: looked twice"
    first, second = hooks.payloads("SubagentStop")
    assert (first["agent_type"], first["stop_hook_active"]) == ("explore", False)
    assert second["stop_hook_active"] is True


async def test_pre_compact_and_session_end_are_told(tmp_path: Path) -> None:
    hooks = Hooks(tmp_path).on("PreCompact", "", "manual").on("SessionEnd")
    model = ScriptedModel([reply("Hi."), reply("The user greeted.")])
    async with open_runtime(tmp_path) as runtime:
        conversation = Conversation(Agent(model, runtime), hooks=hooks.session(tmp_path))
        await _run(conversation, "hello")
        assert await conversation.compact("greetings") is not None
        await conversation.close("prompt_input_exit")
    compact, end = hooks.payloads()
    assert (compact["hook_event_name"], compact["trigger"]) == ("PreCompact", "manual")
    assert compact["custom_instructions"] == "greetings"
    assert (end["hook_event_name"], end["reason"]) == ("SessionEnd", "prompt_input_exit")


def _request(tool: str = "bash", command: str = "make build") -> PermissionRequest:
    access = Access(AccessKind.EXECUTE, command=command, summary=command)
    identity = builtin_toolset().get(tool).rule_identity()  # type: ignore[union-attr]
    return PermissionRequest(
        "c1", tool, {"command": command}, access, readonly=False, identity=identity
    )


async def test_a_permission_request_hook_answers_and_notification_is_told(tmp_path: Path) -> None:
    deny = 'json:{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no builds on Friday"}}}'  # noqa: E501
    allow = deny.replace('"deny", "message": "no builds on Friday"', '"allow"')
    person = ScriptedRequester(Answer(Approval.ONCE))
    denied = await HookedRequester(
        person, Hooks(tmp_path / "a").on("PermissionRequest", deny, "bash").session(tmp_path)
    ).ask(_request(), Ask("commands ask"))
    assert denied == Answer(
        Approval.DENY, "A PermissionRequest hook denied this call: no builds on Friday"
    )
    allowing = Hooks(tmp_path).on("PermissionRequest", allow, "Bash").on("Notification")
    requester = HookedRequester(person, allowing.session(tmp_path))
    assert await requester.ask(_request(), Ask("commands ask")) == Answer(Approval.ONCE)
    assert person.asked == []  # the person was never asked
    forced = Ask("dangerous", forced=True)
    assert await requester.ask(_request(command="rm -rf build"), forced) == Answer(Approval.ONCE)
    assert [r.access.command.text for r, _ in person.asked if r.access.command] == ["rm -rf build"]
    asked = allowing.payloads("PermissionRequest")[0]
    assert (asked["tool_name"], asked["tool_input"]) == ("bash", {"command": "make build"})
    [told] = allowing.payloads("Notification")
    assert told["notification_type"] == "permission_prompt"
    assert told["message"] == "toolbelt needs your permission to use bash"


async def test_post_tool_use_failure_gets_the_error(tmp_path: Path) -> None:
    hooks = Hooks(tmp_path).on("PostToolUseFailure", "", "read_file")
    settings = Settings(hooks=hooks.config)
    async with Runtime(tmp_path, settings=settings) as runtime:
        [result] = await runtime.run([ToolCall("c1", "read_file", {"path": "missing.txt"})])
    assert result.is_error
    [payload] = hooks.payloads()
    assert (payload["hook_event_name"], payload["tool_name"]) == ("PostToolUseFailure", "read_file")
    assert payload["tool_input"]["path"] == "missing.txt"
    assert "missing.txt" in payload["error"]
