"""Conversations saved as they happen and resumed exactly, through the real OpenAI SDK
against the loopback fake provider; compaction of a task that would overflow the window."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.agent.scripts import open_runtime
from tests.support.fake_provider import FakeProvider
from toolbelt.agent import Agent, AgentFinished, Compacted
from toolbelt.agent.compaction import INSTRUCTION, REQUEST_MARK, SUMMARY_MARK
from toolbelt.agent.conversation import Conversation
from toolbelt.agent.sessions import (
    SessionLog,
    find_session,
    list_sessions,
    load_session,
    prune_sessions,
    workspace_dir,
)
from toolbelt.core.errors import UsageError

READ = {"text": "Reading.", "calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}


async def _talk(conversation: Conversation, prompt: str) -> str:
    text = ""
    async for event in conversation.stream(prompt):
        if isinstance(event, AgentFinished):
            text = event.result.text
    return text


async def _session(root: Path, url: str, session_id: str, prompt: str) -> str:
    async with open_runtime(root) as runtime:
        agent = Agent("openai:gpt-test", runtime, base_url=url)
        log = SessionLog.start(root, session_id, model="openai:gpt-test", mode="default")
        conversation = Conversation(agent, log=log)
        try:
            return await _talk(conversation, prompt)
        finally:
            await conversation.close()
            await agent.aclose()


def test_a_resumed_conversation_sends_what_the_first_would_have_sent(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    script: list[dict[str, Any]] = [READ, {"text": "It says alpha."}, {"text": "Yes, alpha."}]
    with FakeProvider(script) as fake:
        first = anyio.run(_session, tmp_path, fake.openai_url, "abcdef0123456789", "Read a.txt")
        path = find_session(tmp_path, None)
        saved = load_session(path)

        async def resumed() -> str:
            async with open_runtime(tmp_path) as runtime:
                agent = Agent("openai:gpt-test", runtime, base_url=fake.openai_url)
                conversation = Conversation(agent, log=SessionLog(path))
                conversation.restore(saved)
                try:
                    return await _talk(conversation, "Sure?")
                finally:
                    await conversation.close()
                    await agent.aclose()

        second = anyio.run(resumed)
    assert (first, second) == ("It says alpha.", "Yes, alpha.")
    earlier = fake.requests[1].body["messages"]
    later = fake.requests[2].body["messages"]
    assert later[: len(earlier)] == earlier  # byte for byte what the provider saw before
    assert later[len(earlier) :] == [
        {"role": "assistant", "content": "It says alpha."},
        {"role": "user", "content": "Sure?"},
    ]
    assert path.parent == workspace_dir(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again = load_session(path)
    assert len(again.messages) == 6 and len(again.turns) == 3
    assert [s.title for s in list_sessions(tmp_path)] == ["Read a.txt"]


def test_a_line_cut_by_a_crash_is_left_out_and_damage_elsewhere_is_named(tmp_path: Path) -> None:
    with FakeProvider([{"text": "Hello."}]) as fake:
        anyio.run(_session, tmp_path, fake.openai_url, "0123456789abcdef", "Hi")
    path = find_session(tmp_path, "0123")
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"type":"message","message":{"role":"us')
    assert len(load_session(path).messages) == 2
    lines = whole.split(b"\n")
    path.write_bytes(b"\n".join([lines[0], b"{not json", *lines[1:]]))
    with pytest.raises(UsageError, match="is damaged at line 2; start a new one"):
        load_session(path)
    with pytest.raises(UsageError, match="matches none of this workspace's conversations"):
        find_session(tmp_path, "ffff")


def test_old_and_oversized_sessions_are_pruned_oldest_first(tmp_path: Path) -> None:
    now = time.time()
    made = []
    for index, age_days in enumerate((40, 5, 3, 1)):
        log = SessionLog.start(tmp_path, f"{index:016x}", model="m", mode="default")
        log.write({"type": "pad", "data": "x" * 400_000})
        log.close()
        os.utime(log.path, (now - age_days * 86_400,) * 2)
        made.append(log.path)
    deleted = prune_sessions(max_age_days=30, max_total_mb=0.9, now=now)
    assert deleted == made[:2]  # 40 days old; then the oldest until 0.9 MB holds the rest
    assert [p.exists() for p in made] == [False, False, True, True]


def test_a_long_task_past_the_window_is_compacted_and_goes_on(tmp_path: Path) -> None:
    """Twelve reads of a 6 KB file would need ~20,000 tokens; the window is 6,000. Each time
    the transcript passes 80% of it, older turns are summarised, and the task finishes."""
    (tmp_path / "big.txt").write_text(("lorem ipsum dolor sit amet " * 8 + "\n") * 28)
    reads = [
        {"calls": [{"name": "read_file", "arguments": {"path": "big.txt"}, "id": f"r{i}"}]}
        for i in range(12)
    ]
    summary = {"text": "Read big.txt several times; it is lorem ipsum. Next: read it again."}
    script: list[dict[str, Any]] = []
    for step in reads:
        script.append(step)
    script.append({"text": "All twelve reads done."})

    def replies() -> list[dict[str, Any]]:
        return script

    with FakeProvider(replies()) as fake:

        def answer_summaries() -> None:  # a summary request gets a summary, in order
            original = fake.next_reply

            def next_reply(recorded: Any) -> Any:
                last = recorded.body["messages"][-1]
                if last["role"] == "user" and INSTRUCTION in str(last["content"]):
                    with fake._lock:
                        fake.requests.append(recorded)
                    from tests.support.fake_script import Reply

                    return Reply.from_dict(summary)
                return original(recorded)

            fake.next_reply = next_reply  # type: ignore[method-assign]

        answer_summaries()

        async def main() -> tuple[str, list[Compacted]]:
            async with open_runtime(tmp_path) as runtime:
                agent = Agent("openai:gpt-test", runtime, base_url=fake.openai_url, compact_at=0.8)
                agent.model.context_window = 6_000
                agent.max_tokens = 500
                compactions = []
                text = ""
                async for event in agent.stream("Read big.txt twelve times, please."):
                    if isinstance(event, Compacted):
                        compactions.append(event)
                    if isinstance(event, AgentFinished):
                        text = event.result.text
                        assert event.result.stop == "end_turn"
                await agent.aclose()
                return text, compactions

        text, compactions = anyio.run(main)
    assert text == "All twelve reads done."
    assert len(compactions) >= 2
    assert all(c.trigger == "auto" and c.tokens_after < c.tokens_before for c in compactions)
    asked = "Summarise the conversation so far"
    work = [r for r in fake.requests if asked not in json.dumps(r.body["messages"][-1])]
    assert len(work) == 13  # every scripted turn was asked for, none lost to the window
    for request in work:
        assert len(json.dumps(request.body["messages"])) / 4 < 6_000
    final = work[-1].body["messages"]
    first_user = final[1]
    assert first_user["role"] == "user"
    assert SUMMARY_MARK in json.dumps(first_user)
    assert f"{REQUEST_MARK}\\nRead big.txt twelve times, please." in json.dumps(first_user)
