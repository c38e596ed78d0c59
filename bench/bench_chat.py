"""Chat benchmarks: how soon the answer starts showing, what the chat adds per turn, and how
fast a long conversation comes back.

- First character: ``toolbelt chat`` in a pseudo-terminal (pexpect) against the loopback fake
  provider, through the OpenAI SDK: time from Enter to the first character of the streamed
  reply on the screen, over several prompts of one session. The floor, measured in the same
  rounds: the same SDK client in this process, from sending the request to its first text
  delta.
- Overhead per turn: ``Conversation`` (saving every change to its JSONL file) with the chat's
  screen rendering every event to an in-memory terminal, against ``Agent.stream`` alone, on
  the same scripted turns (a reply with one read_file call, then a text answer). Goal: ≤ 5 ms
  per turn.
- Resume: reading a saved 1,000-turn conversation (each turn a prompt, a call, its 2 KB
  result and an answer) and restoring it into a conversation. Goal: ≤ 300 ms.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import Case, fmt_time, interleave, table, write_section

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rich.console import Console  # noqa: E402
from tests.support.fake_provider import FakeProvider  # noqa: E402

from toolbelt.agent import Agent  # noqa: E402
from toolbelt.agent.conversation import Conversation  # noqa: E402
from toolbelt.agent.scripted import ScriptedModel  # noqa: E402
from toolbelt.agent.sessions import SessionLog, load_session  # noqa: E402
from toolbelt.cli.chat_screen import ChatScreen  # noqa: E402
from toolbelt.cli.terminal_owner import TerminalOwner  # noqa: E402
from toolbelt.config.settings import Settings  # noqa: E402
from toolbelt.core.content import TextBlock, ToolOutput  # noqa: E402
from toolbelt.core.events import CallState  # noqa: E402
from toolbelt.core.executor import ToolCallResult  # noqa: E402
from toolbelt.providers.model import (  # noqa: E402
    AssistantMessage,
    ModelRequest,
    ModelToolCall,
    ToolResultsMessage,
    UserMessage,
)
from toolbelt.runtime import Runtime  # noqa: E402
from toolbelt.tools import builtin_toolset  # noqa: E402

PROMPTS = 15
TURNS = 10
RESUME_TURNS = 1_000


def first_character() -> tuple[Case, Case]:
    import pexpect

    answer = "Streaming answer number "
    replies = [{"text": f"{answer}{i}."} for i in range(PROMPTS + 2)]
    floor_replies = [{"text": f"{answer}{i}."} for i in range(PROMPTS + 2)]
    home = Path(tempfile.mkdtemp())
    root = home / "ws"
    root.mkdir()
    with FakeProvider(replies) as fake, FakeProvider(floor_replies) as floor_fake:
        env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
        env |= {"PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm-256color"}
        child = pexpect.spawn(
            sys.executable,
            ["-m", "toolbelt.cli.main", "chat", "--model", "openai:gpt-test", "--base-url",
             fake.openai_url, "--root", str(root)],
            env=env, encoding="utf-8", timeout=30, dimensions=(40, 120),
        )  # fmt: skip
        child.delaybeforesend = None  # pexpect sleeps 50 ms before each send otherwise
        child.expect_exact("›")
        count = {"n": 0}

        from toolbelt.providers.open import open_model

        client = open_model("openai:gpt-test", base_url=floor_fake.openai_url)
        loop = asyncio.new_event_loop()
        request = ModelRequest("Be brief.", (UserMessage((TextBlock("hi"),)),))

        async def first_delta() -> None:
            events = client.stream(request)
            async for _ in events:
                break
            await events.aclose()  # type: ignore[attr-defined]

        samples: list[float] = []  # Enter → first character, timed inside the turn

        def timed_turn() -> None:
            number = count["n"]
            count["n"] += 1
            child.send(f"prompt {number}")
            child.expect_exact(f"prompt {number}")
            started = time.perf_counter()
            child.send("\r")
            child.expect_exact("Streaming")
            samples.append(time.perf_counter() - started)
            child.expect_exact("›")

        chat = Case("toolbelt chat: Enter → first character on screen", timed_turn)
        sdk = Case(
            "floor: the SDK alone, request → first text delta",
            lambda: loop.run_until_complete(first_delta()),
        )
        interleave([chat, sdk], PROMPTS, warmup=1)
        chat.samples = samples[1:]
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        loop.run_until_complete(client.aclose())
        loop.close()
    return chat, sdk


def _reply_script() -> list[Any]:
    def answer(request: ModelRequest) -> AssistantMessage:
        if isinstance(request.messages[-1], ToolResultsMessage):
            return AssistantMessage("The file holds **200 lines**; line 7 is `line 7`.")
        return AssistantMessage(
            "Reading it.",
            (ModelToolCall(f"c{len(request.messages)}", "read_file", {"path": "f.py"}),),
        )

    return [answer] * (4 * TURNS + 8)


def overhead() -> tuple[Case, Case]:
    root = Path(tempfile.mkdtemp())
    (root / "f.py").write_text("".join(f"line {n}\n" for n in range(200)))
    loop = asyncio.new_event_loop()
    runtime = Runtime(root, settings=Settings(), toolset=builtin_toolset())  # no MCP servers
    loop.run_until_complete(runtime.__aenter__())
    state = Path(tempfile.mkdtemp())

    async def agent_only() -> None:
        agent = Agent(ScriptedModel(_reply_script()), runtime)
        for _ in range(TURNS):
            async for _event in agent.stream("read f.py"):
                pass

    async def with_chat() -> None:
        agent = Agent(ScriptedModel(_reply_script()), runtime)
        log = SessionLog(state / f"{time.perf_counter_ns()}.jsonl")
        conversation = Conversation(agent, log=log)
        console = Console(file=io.StringIO(), force_terminal=True, width=120, highlight=False)
        screen = ChatScreen(console, TerminalOwner())
        for _ in range(TURNS):
            screen.begin_turn()
            async for event in conversation.stream("read f.py"):
                screen.handle(event)
            screen.end_turn()
        log.close()

    bare = Case("Agent.stream alone", lambda: loop.run_until_complete(agent_only()))
    chat = Case(
        "Conversation + saved session + chat screen",
        lambda: loop.run_until_complete(with_chat()),
    )
    interleave([bare, chat], 15, warmup=2)
    loop.run_until_complete(runtime.aclose())
    loop.close()
    return bare, chat


def resume() -> Case:
    directory = Path(tempfile.mkdtemp())
    path = directory / "0123456789abcdef.jsonl"
    log = SessionLog(path)
    log.write({"type": "session", "id": "0123456789abcdef", "model": "m", "mode": "default"})
    result_text = "".join(f"{n:4d}  some line of code here, about forty chars\n" for n in range(40))
    for turn in range(RESUME_TURNS):
        call = ModelToolCall(f"c{turn}", "read_file", {"path": f"src/m{turn}.py"})
        messages = [
            UserMessage((TextBlock(f"Please look at module {turn} and tell me what it does."),)),
            AssistantMessage("Reading it.", (call,)),
            ToolResultsMessage(
                (
                    ToolCallResult(
                        call.id,
                        "read_file",
                        CallState.SUCCESS,
                        ToolOutput((TextBlock(result_text),)),
                        None,
                        1.0,
                        1.1,
                        {"path": f"src/m{turn}.py"},
                    ),
                )
            ),
            AssistantMessage(f"Module {turn} parses the settings and returns a mapping."),
        ]
        for message in messages:
            log.transcript_changed("append", (message,))
    log.close()
    size = path.stat().st_size

    def restore() -> None:
        saved = load_session(path)
        from toolbelt.agent.transcript import Transcript

        Transcript(saved.messages)

    case = Case(f"read and restore {RESUME_TURNS:,} turns ({size / 1e6:.1f} MB)", restore)
    interleave([case], 11, warmup=1)
    return case


def main() -> None:
    chat, sdk = first_character()
    bare, with_chat = overhead()
    restored = resume()
    per_turn = (with_chat.median - bare.median) / TURNS

    def row(case: Case, ratio: str, name: str | None = None) -> list[str]:
        spread = fmt_time(case.percentile(0.9)) if case.samples else ""
        return [name or case.name, fmt_time(case.median), spread, ratio]

    rows = [
        row(chat, f"×{chat.median / sdk.median:.2f}"),
        row(sdk, "×1"),
        row(bare, "×1", f"{bare.name}, {TURNS} turns"),
        row(
            with_chat, f"×{with_chat.median / bare.median:.2f}", f"{with_chat.name}, {TURNS} turns"
        ),
        ["chat overhead per turn (difference / turns)", fmt_time(per_turn), "", "goal ≤ 5 ms"],
        row(restored, "goal ≤ 300 ms"),
    ]
    body = (
        "Command: `.venv/bin/python bench/run.py chat`\n\n"
        f"First character: {PROMPTS} prompts in one `toolbelt chat` on a pseudo-terminal, the "
        "fake provider on 127.0.0.1 through the OpenAI SDK; the floor is the same SDK in-process "
        "on the same fake, in the same rounds. Overhead: the same scripted turns (one read_file "
        "call, then a Markdown answer) through `Agent.stream` and through the chat's "
        "conversation, session file and screen (an in-memory 120-column terminal). Resume: "
        "`load_session` and a `Transcript` built from it.\n\n"
        + table(rows, ["case", "median", "p90", "ratio / goal"])
    )
    print(body)
    write_section("chat", body)


if __name__ == "__main__":
    main()
