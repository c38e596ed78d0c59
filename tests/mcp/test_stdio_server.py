"""`toolbelt mcp` on stdio, driven by the official MCP SDK client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import stdio_client
from tests.support.processes import alive
from tests.support.toolbelt_cli import TOOLBELT_ARGS
from tests.support.waiting import wait_until_async

from mcp import ClientSession, StdioServerParameters

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def connect(root: Path, *args: str, elicitation: Any = None) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*TOOLBELT_ARGS, "mcp", "--root", str(root), *args],
        cwd=str(root),
    )
    async with stdio_client(params) as (read, write):
        kwargs = {"elicitation_callback": elicitation} if elicitation else {}
        async with ClientSession(read, write, **kwargs) as session:
            await session.initialize()
            yield session


async def test_tools_are_listed_with_schemas_and_annotations(tmp_path: Path) -> None:
    async with connect(tmp_path) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"read_file", "grep", "bash", "todo_write"} <= set(tools)
    read = tools["read_file"]
    assert read.input_schema["required"] == ["path"]
    assert read.annotations is not None
    assert (read.annotations.read_only_hint, read.title) == (True, "Read file")
    assert tools["bash"].annotations is not None
    assert tools["bash"].annotations.destructive_hint is True
    # every tool declares the shape of its structured result (the SDK validates it)
    assert all(tool.output_schema is not None for tool in tools.values())
    assert read.output_schema is not None
    assert read.output_schema["required"] == ["text", "path"]


async def test_calls_errors_and_session_state(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    async with connect(tmp_path) as client:
        read = await client.call_tool("read_file", {"path": "a.txt"})
        assert (read.is_error, read.content[0].text) == (False, "1\thello")
        assert read.structured_content is not None
        assert read.structured_content["total_lines"] == 1
        bad = await client.call_tool("read_file", {"pathh": "a.txt"})
        assert bad.is_error
        assert bad.content[0].text.startswith("Invalid arguments for `read_file`")
        todos = [{"id": "1", "content": "Ship it", "status": "in_progress"}]
        await client.call_tool("todo_write", {"todos": todos})
        listed = await client.call_tool("todo_read", {})
        assert listed.content[0].text == "[~] 1. Ship it"


async def test_permission_without_elicitation_is_denied_with_guidance(tmp_path: Path) -> None:
    async with connect(tmp_path) as client:
        result = await client.call_tool("write_file", {"path": "x.txt", "content": "x"})
    assert result.is_error
    assert "does not support elicitation" in result.content[0].text
    assert not (tmp_path / "x.txt").exists()


async def test_elicitation_accepted_and_declined(tmp_path: Path) -> None:
    answers = iter(
        [
            {"action": "accept", "content": {"decision": "allow_once"}},
            {"action": "decline"},
        ]
    )
    seen: list[str] = []

    async def elicit(context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        seen.append(params.message)
        return ElicitResult(**next(answers))

    async with connect(tmp_path, elicitation=elicit) as client:
        ok = await client.call_tool("write_file", {"path": "yes.txt", "content": "y\n"})
        no = await client.call_tool("write_file", {"path": "no.txt", "content": "n\n"})
    assert ok.is_error is False
    assert (tmp_path / "yes.txt").read_text() == "y\n"
    assert no.is_error
    assert not (tmp_path / "no.txt").exists()
    assert "Change:\n--- a/yes.txt" in seen[0]


async def test_progress_notifications_reach_the_client(tmp_path: Path) -> None:
    messages: list[str] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async with connect(tmp_path, "--mode", "bypass") as client:
        result = await client.call_tool(
            "bash", {"command": "echo one; sleep 0.3; echo two"}, progress_callback=progress
        )
    assert result.content[0].text == "one\ntwo"
    assert "".join(messages) == "one\ntwo\n"


async def test_cancellation_kills_the_command(tmp_path: Path) -> None:
    async with connect(tmp_path, "--mode", "bypass") as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "bash", {"command": f"sleep 4242{os.getpid()}"})
            await wait_until_async(
                lambda: alive(f"sleep 4242{os.getpid()}"), "the command to start"
            )
            group.cancel_scope.cancel()  # the SDK sends notifications/cancelled
        await wait_until_async(lambda: not alive(f"sleep 4242{os.getpid()}"), "the command to end")
        still = await client.call_tool("think", {"thought": "still serving"})
        assert still.is_error is False


async def test_disconnect_ends_background_jobs(tmp_path: Path) -> None:
    async with connect(tmp_path, "--mode", "bypass") as client:
        started = await client.call_tool(
            "bash", {"command": f"sleep 4343{os.getpid()}", "run_in_background": True}
        )
        assert started.is_error is False
        assert alive(f"sleep 4343{os.getpid()}")
    await wait_until_async(
        lambda: not alive(f"sleep 4343{os.getpid()}"), "the job to end with the server"
    )


async def test_every_tool_over_mcp(tmp_path: Path) -> None:
    import json as jsonlib

    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "id": "c1",
                "metadata": {},
                "execution_count": None,
                "source": "print(1)",
                "outputs": [],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "nb.ipynb").write_text(jsonlib.dumps(notebook))
    calls: list[tuple[str, dict[str, Any]]] = [
        ("write_file", {"path": "m.py", "content": "a = 1\nb = 2\n"}),
        ("read_file", {"path": "m.py"}),
        ("edit_file", {"path": "m.py", "old_string": "a = 1", "new_string": "a = 10"}),
        (
            "multi_edit",
            {"path": "m.py", "edits": [{"old_string": "b = 2", "new_string": "b = 20"}]},
        ),
        ("read_file", {"path": "nb.ipynb"}),
        ("notebook_edit", {"path": "nb.ipynb", "cell_id": "c1", "new_source": "print(2)"}),
        (
            "apply_patch",
            {"input": "*** Begin Patch\n*** Add File: notes.txt\n+patched\n*** End Patch\n"},
        ),
        ("glob", {"pattern": "*.py"}),
        ("grep", {"pattern": "b = 20", "output_mode": "content"}),
        ("ls", {"path": "."}),
        ("bash", {"command": "echo up; sleep 4747", "run_in_background": True}),
        ("think", {"thought": "checking"}),
        ("todo_write", {"todos": [{"id": "1", "content": "x", "status": "completed"}]}),
        ("todo_read", {}),
    ]
    async with connect(tmp_path, "--mode", "bypass") as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        results = {}
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert result.is_error is False, (name, result.content)
            results[name] = result
        job = results["bash"].structured_content["id"]
        with anyio.fail_after(30):  # a loaded machine may take a while to start the job
            polled = await client.call_tool("bash_output", {"id": job})
            while "up" not in polled.content[0].text:
                await anyio.sleep(0.05)
                polled = await client.call_tool("bash_output", {"id": job})
        stopped = await client.call_tool("kill_shell", {"id": job})
        metadata = await client.call_tool("web_fetch", {"url": "http://169.254.169.254/"})
        asked = await client.call_tool("ask_user", {"questions": [{"question": "Go on?"}]})
    assert metadata.is_error is True
    assert asked.is_error is True  # this client has no elicitation: nobody can be asked
    assert "cannot ask the user a question" in asked.content[0].text
    assert metadata.content[0].text.startswith("web_fetch does not reach 169.254.169.254")
    assert polled.content[0].text.startswith(f"[{job}: running]")
    assert stopped.content[0].text.startswith(f"Stopped {job}")
    assert stopped.structured_content["processes"] >= 1  # the job's process was ended
    assert {name for name, _ in calls} | {
        "bash_output",
        "kill_shell",
        "web_fetch",
        "git_commit",
        "skill",
        "ask_user",
        "lsp",
        "symbol_edit",
    } == listed
    assert (tmp_path / "m.py").read_text() == "a = 10\nb = 20\n"
    assert (tmp_path / "notes.txt").read_text() == "patched\n"
    assert results["grep"].content[0].text == "m.py:2:b = 20"
