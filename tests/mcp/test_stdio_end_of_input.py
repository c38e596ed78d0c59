"""`toolbelt mcp` on stdio answers every request it received before its input ended, from pipes
and from regular files (`toolbelt mcp < requests.jsonl > replies.jsonl`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.support.toolbelt_cli import TOOLBELT

SERVER = [*TOOLBELT, "mcp"]


def initialize(request_id: int = 1, capabilities: dict[str, Any] | None = None) -> str:
    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities or {},
        "clientInfo": {"name": "printf", "version": "1"},
    }
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}
    )


def call(request_id: int, name: str, arguments: dict[str, Any]) -> str:
    params = {"name": name, "arguments": arguments}
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    )


LIST = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})


def replies(output: bytes) -> dict[Any, dict[str, Any]]:
    """The responses by id (notifications, which have none, left out)."""
    messages = [json.loads(line) for line in output.decode().splitlines()]
    return {m["id"]: m for m in messages if "id" in m}


def serve(root: Path, lines: list[str], *args: str) -> dict[Any, dict[str, Any]]:
    """Pipe ``lines`` to the server, close its stdin, return what it printed before exiting."""
    done = subprocess.run(
        [*SERVER, "--root", str(root), *args],
        input="".join(line + "\n" for line in lines).encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    return replies(done.stdout)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    return tmp_path


def test_init_list_call_then_end_of_input_gets_three_replies(workspace: Path) -> None:
    got = serve(workspace, [initialize(), LIST, call(3, "read_file", {"path": "notes.txt"})])
    assert sorted(got) == [1, 2, 3]
    assert got[1]["result"]["serverInfo"]["name"] == "toolbelt"
    assert "read_file" in {tool["name"] for tool in got[2]["result"]["tools"]}
    assert got[3]["result"]["content"] == [{"type": "text", "text": "1\talpha\n2\tbeta"}]


def test_a_command_received_before_end_of_input_runs_and_is_answered(workspace: Path) -> None:
    command = {"command": "echo made > made.txt && echo done"}
    got = serve(workspace, [initialize(), call(2, "bash", command)], "--mode", "bypass")
    assert got[2]["result"]["content"] == [{"type": "text", "text": "done"}]
    assert (workspace / "made.txt").read_text() == "made\n"


def test_requests_from_a_file_and_replies_to_a_file(workspace: Path) -> None:
    requests = workspace / "requests.jsonl"
    requests.write_text(
        "\n".join([initialize(), LIST, call(3, "read_file", {"path": "notes.txt"})]) + "\n"
    )
    replies_file = workspace / "replies.jsonl"
    with requests.open("rb") as stdin, replies_file.open("wb") as stdout:
        done = subprocess.run(
            [*SERVER, "--root", str(workspace)],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    assert (done.returncode, done.stderr) == (0, b"")
    got = replies(replies_file.read_bytes())
    assert sorted(got) == [1, 2, 3]
    assert got[3]["result"]["structuredContent"]["text"] == "1\talpha\n2\tbeta"


def test_a_file_in_and_a_pipe_out_and_the_reverse(workspace: Path) -> None:
    requests = workspace / "requests.jsonl"
    requests.write_text(initialize() + "\n" + call(2, "think", {"thought": "x"}) + "\n")
    with requests.open("rb") as stdin:
        piped = subprocess.run(
            [*SERVER, "--root", str(workspace)], stdin=stdin, capture_output=True, timeout=60
        )
    assert sorted(replies(piped.stdout)) == [1, 2]
    out = workspace / "out.jsonl"
    with out.open("wb") as stdout:
        subprocess.run(
            [*SERVER, "--root", str(workspace)],
            input=requests.read_bytes(),
            stdout=stdout,
            timeout=60,
            check=True,
        )
    assert sorted(replies(out.read_bytes())) == [1, 2]


def test_empty_input_from_dev_null_exits_cleanly(workspace: Path) -> None:
    done = subprocess.run(
        [*SERVER, "--root", str(workspace)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_a_permission_question_after_end_of_input_is_refused_not_awaited(
    workspace: Path,
) -> None:
    # the client could answer elicitation, but its input has ended: nobody can answer now
    write = call(2, "write_file", {"path": "new.txt", "content": "x\n"})
    got = serve(workspace, [initialize(capabilities={"elicitation": {}}), write])
    assert got[2]["result"]["isError"] is True
    assert got[2]["result"]["content"][0]["text"] == (
        "The user did not answer; the call was not run."
    )
    assert not (workspace / "new.txt").exists()
