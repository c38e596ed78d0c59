"""Command hooks with Claude Code's protocol: JSON on stdin, a verdict in the exit code.

The hook command runs through ``/bin/sh -c`` in its own session, with the call as JSON on
stdin (``session_id``, ``cwd``, ``permission_mode``, ``hook_event_name``, ``tool_name``,
``tool_input``, ``tool_use_id``, and ``tool_response`` after the call). Exit 0 means no
objection, and its stdout may carry JSON (``hookSpecificOutput.permissionDecision`` allow |
ask | deny, ``permissionDecisionReason``, ``updatedInput``, ``additionalContext``; or
``decision: "block"`` with ``reason``). Exit 2 blocks, with stderr as the reason for the
model. Any other exit is reported but does not block. A hook that fails to run or times out
yields "ask" — never an approval — and a timed-out hook is killed with its whole group.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from toolbelt.shell.environment import command_environment

__all__ = ["HookOutcome", "run_command_hook"]

MAX_OUTPUT = 64 * 1024


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """What a hook said, parsed."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    decision: str | None = None
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    additional_context: str = ""
    error: str = ""


async def run_command_hook(
    command: str,
    payload: dict[str, Any],
    *,
    timeout: float,  # noqa: ASYNC109 - the hook's own deadline, enforced with a kill
    cwd: Path,
) -> HookOutcome:
    """Run one hook command and interpret its answer."""
    try:
        process = await anyio.open_process(
            ["/bin/sh", "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=command_environment(),
            start_new_session=True,
        )
    except OSError as exc:
        return HookOutcome(None, "", "", decision="ask", error=f"the hook could not start: {exc}")
    out, err = bytearray(), bytearray()
    timed_out = False
    try:
        with anyio.move_on_after(timeout) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(_collect, process.stdout, out)
                group.start_soon(_collect, process.stderr, err)
                assert process.stdin is not None
                with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await process.stdin.send(json.dumps(payload).encode())
                    await process.stdin.aclose()
            await process.wait()
        timed_out = scope.cancelled_caught
    finally:
        if process.returncode is None:
            with anyio.CancelScope(shield=True):
                await _kill_group(process.pid)
                await process.wait()
        await process.aclose()
    stdout, stderr = out.decode(errors="replace"), err.decode(errors="replace")
    if timed_out:
        return HookOutcome(
            None,
            stdout,
            stderr,
            timed_out=True,
            decision="ask",
            error=f"the hook timed out after {timeout:g} s",
        )
    return _interpret(process.returncode, stdout, stderr)


async def _collect(stream: Any, into: bytearray) -> None:
    if stream is None:
        return
    async for chunk in stream:
        into.extend(chunk[: max(0, MAX_OUTPUT - len(into))])


async def _kill_group(pid: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)
        await anyio.sleep(0.05)


def _interpret(code: int | None, stdout: str, stderr: str) -> HookOutcome:
    if code == 2:
        reason = stderr.strip() or "A hook blocked this call."
        return HookOutcome(code, stdout, stderr, decision="deny", reason=reason)
    if code != 0:
        return HookOutcome(
            code, stdout, stderr, error=f"the hook exited with {code}: {stderr.strip()}"
        )
    data: dict[str, Any] = {}
    if stdout.strip().startswith("{"):
        try:
            parsed = json.loads(stdout)
            data = parsed if isinstance(parsed, dict) else {}
        except json.JSONDecodeError:
            return HookOutcome(
                code, stdout, stderr, decision="ask", error="the hook printed invalid JSON"
            )
    specific = data.get("hookSpecificOutput") or {}
    raw = specific.get("permissionDecision") or data.get("decision")
    decision = {"block": "deny", "approve": "allow"}.get(str(raw), raw)
    if decision not in ("allow", "ask", "deny", None):
        decision = "ask"
    reason = specific.get("permissionDecisionReason") or data.get("reason") or ""
    updated = specific.get("updatedInput")
    context = specific.get("additionalContext") or ""
    return HookOutcome(
        code,
        stdout,
        stderr,
        decision=decision,
        reason=str(reason),
        updated_input=updated if isinstance(updated, dict) else None,
        additional_context=str(context),
    )
