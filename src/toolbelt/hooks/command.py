"""Command hooks with Claude Code's protocol: JSON on stdin, a verdict in the exit code.

The hook runs as ``/bin/sh -c COMMAND``, a process tree started by the session's hook runner
(``runners.runner``): inside the sandbox's workspace profile — the network off and the user's
secrets hidden unless the user's settings say otherwise (``sandbox.hooks``) — with the
environment commands get (credentials removed), so a formatter hook that runs a program a
command planted (``npx prettier`` finding ``node_modules/.bin/prettier``, ``uv run ruff`` its
``.venv/bin/ruff``, ``pytest`` a ``conftest.py``) runs it with no more rights than the command
that planted it had. It starts in ``cwd``, with ``TOOLBELT_PROJECT_DIR`` and, for pasted
Claude scripts, ``CLAUDE_PROJECT_DIR``, and ``PYTHONSAFEPATH=1`` unless the environment sets
it: the classic formatter hook ``python3 -m black`` would otherwise import a ``black.py`` the
workspace holds (Python puts the cwd first on ``sys.path`` for ``-m`` and ``-c``; set
``PYTHONSAFEPATH=`` empty to have that back). Its ``PATH`` keeps only the absolute entries
outside the workspace roots, as a user's stdio MCP server's does: a relative or empty one
(``node_modules/.bin``, ``::``) or an activated virtualenv's ``/abs/ws/.venv/bin`` would find
the hook's ``python3`` in the workspace (``core.programs``). Settings merge the user's and the
workspace's hooks, so a workspace hook names a program of the workspace by its path
(``.venv/bin/ruff``).
Its stdin is the payload as JSON; the executor builds it with ``session_id``, ``cwd``,
``permission_mode``, ``hook_event_name`` (``PreToolUse`` / ``PostToolUse`` /
``PostToolUseFailure``), ``tool_name``, ``tool_input``, ``tool_use_id`` and,
after the call, ``tool_response``.

The answer:

- exit 0: no objection; stdout may hold JSON: ``hookSpecificOutput.permissionDecision``
  (``allow`` | ``ask`` | ``deny``; ``defer`` means none), ``permissionDecisionReason``,
  ``updatedInput``, ``additionalContext``; or the older top-level ``decision`` (``block`` →
  deny, ``approve`` → allow) with ``reason``; ``continue: false`` (+ ``stopReason``) denies and
  asks the caller to stop; ``systemMessage`` is for the user. Plain text means nothing.
- exit 2: blocks; stderr is the reason the model reads.
- any other exit: a non-blocking error, reported in ``error`` (Claude Code's rule: "exit 1
  does not block").

Failing safe: a hook that cannot start, times out, or prints broken JSON (it meant to say
something) yields "ask", never an approval. The hook runs under an anchor that ends what the
hook left when it exits. On timeout or cancellation the tree is ended: its process group, what
left the group (``setsid``, a double fork: still the anchor's descendant) and what carries the
hook's ``TOOLBELT_RUN_ID`` marker get SIGTERM, then SIGKILL after a short grace.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

from toolbelt.core.programs import outside_path
from toolbelt.core.strict_json import StrictJsonError, strict_loads
from toolbelt.runners.runner import Runner

__all__ = ["MAX_OUTPUT", "HookOutcome", "interpret_hook_output", "run_command_hook"]

MAX_OUTPUT = 64 * 1024
"""Bytes kept of stdout and of stderr; the rest is read and dropped so the hook never stalls."""
KILL_GRACE = 0.5
"""Seconds between SIGTERM and SIGKILL for a hook that is being stopped."""
DRAIN_GRACE = 0.5
"""Seconds to wait, after the hook exits, for a background child of it to release the pipes."""

_STREAM_GONE = (anyio.BrokenResourceError, anyio.ClosedResourceError, BrokenPipeError)
_DECISIONS: dict[object, Literal["allow", "ask", "deny"] | None] = {
    "allow": "allow",
    "approve": "allow",
    "ask": "ask",
    "deny": "deny",
    "block": "deny",
    "defer": None,
    None: None,
}


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """What a hook did and said, parsed."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    decision: Literal["allow", "ask", "deny"] | None = None
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    additional_context: str = ""
    error: str = ""
    """Why the hook failed without blocking (empty when it ran cleanly)."""
    system_message: str = ""
    stop_reason: str | None = None
    """Set when the hook answered ``continue: false``: the caller should end the turn."""


async def run_command_hook(
    command: str,
    payload: Mapping[str, object],
    *,
    timeout: float,  # noqa: ASYNC109 - the hook's own deadline, enforced by killing its group
    cwd: Path,
    env: Mapping[str, str] | None = None,
    runner: Runner | None = None,
) -> HookOutcome:
    """Run one hook command with ``payload`` on stdin and interpret its answer; ``runner``
    starts it (None: unconfined, as a library's hooks without a session run)."""
    data = json.dumps(payload, ensure_ascii=False, default=str).encode()
    runner = runner if runner is not None else Runner("hook")
    tree = runner.tree(
        ["/bin/sh", "-c", command],
        cwd=cwd,
        env=_environment(runner.environment(env), cwd),
        grace=KILL_GRACE,
    )
    try:
        process = await tree.start()
    except OSError as exc:
        return HookOutcome(None, "", "", decision="ask", error=f"the hook could not start: {exc}")
    out, err = _Capture(), _Capture()
    exited = False
    try:
        with anyio.move_on_after(timeout) as deadline:
            async with anyio.create_task_group() as group:
                group.start_soon(out.drain, process.stdout)
                group.start_soon(err.drain, process.stderr)
                group.start_soon(_feed, process.stdin, data)
                await process.wait()
                exited = True  # a deadline reached while draining is no timeout
                with anyio.move_on_after(DRAIN_GRACE):
                    await out.finished.wait()
                    await err.finished.wait()
                group.cancel_scope.cancel()
    finally:
        await tree.aclose()  # timed out or cancelled: the whole tree ends first
    if deadline.cancelled_caught and not exited:
        outcome = HookOutcome(
            None,
            out.text(),
            err.text(),
            timed_out=True,
            decision="ask",
            error=f"the hook did not finish within {timeout:g} s and was killed",
        )
    else:
        outcome = interpret_hook_output(process.returncode, out.text(), err.text())
    return _with_notes(outcome, tree.notes)


def _with_notes(outcome: HookOutcome, notes: list[str]) -> HookOutcome:
    """``outcome`` with what the sandbox undid after the hook (protected names it created)
    added to its context for the model and its message for the user."""
    if not notes:
        return outcome
    said = " ".join(notes)
    context = f"{outcome.additional_context}\n{said}".strip()
    message = f"{outcome.system_message}\n{said}".strip()
    return replace(outcome, additional_context=context, system_message=message)


def interpret_hook_output(exit_code: int | None, stdout: str, stderr: str) -> HookOutcome:
    """Turn a finished hook's exit code and output into an outcome (pure; see the module doc)."""
    if exit_code == 2:
        reason = stderr.strip() or "A hook blocked this call (exit 2) without giving a reason."
        return HookOutcome(exit_code, stdout, stderr, decision="deny", reason=reason)
    if exit_code != 0:
        detail = f": {stderr.strip()}" if stderr.strip() else ""
        error = f"the hook exited with status {exit_code}{detail}"
        return HookOutcome(exit_code, stdout, stderr, error=error)
    if not stdout.lstrip().startswith("{"):
        return HookOutcome(exit_code, stdout, stderr)
    try:
        data = strict_loads(stdout)  # a second "permissionDecision" must not pass unseen
    except json.JSONDecodeError as exc:
        error = f"the hook printed invalid JSON ({exc.msg}, line {exc.lineno})"
        return HookOutcome(exit_code, stdout, stderr, decision="ask", error=error)
    except StrictJsonError as exc:
        error = f"the hook printed ambiguous JSON ({exc})"
        return HookOutcome(exit_code, stdout, stderr, decision="ask", error=error)
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    raw = specific.get("permissionDecision", data.get("decision"))
    key = raw if isinstance(raw, str | None) else repr(raw)
    decision = _DECISIONS.get(key, "ask")
    error = "" if key in _DECISIONS else f"the hook gave an unknown decision {raw!r}"
    reason = specific.get("permissionDecisionReason") or data.get("reason") or ""
    stop_reason = None
    if data.get("continue") is False:
        stop_reason = str(data.get("stopReason") or "A hook stopped the turn.")
        decision, reason = "deny", reason or stop_reason
    updated = specific.get("updatedInput")
    return HookOutcome(
        exit_code,
        stdout,
        stderr,
        decision=decision,
        reason=str(reason),
        updated_input=updated if isinstance(updated, dict) else None,
        additional_context=str(specific.get("additionalContext") or ""),
        error=error,
        system_message=str(data.get("systemMessage") or ""),
        stop_reason=stop_reason,
    )


class _Capture:
    """Reads a pipe to the end, keeping the first ``MAX_OUTPUT`` bytes."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.dropped = 0
        self.finished = anyio.Event()

    async def drain(self, stream: ByteReceiveStream | None) -> None:
        try:
            if stream is not None:
                with contextlib.suppress(*_STREAM_GONE):
                    async for chunk in stream:
                        room = max(0, MAX_OUTPUT - len(self.data))
                        self.data += chunk[:room]
                        self.dropped += len(chunk) - min(room, len(chunk))
        finally:
            self.finished.set()

    def text(self) -> str:
        text = self.data.decode(errors="replace")
        return f"{text}\n[{self.dropped} more bytes not kept]" if self.dropped else text


async def _feed(stream: ByteSendStream | None, data: bytes) -> None:
    """Write the payload and close stdin; a hook that never reads it is not an error."""
    if stream is None:
        return
    with contextlib.suppress(*_STREAM_GONE):
        await stream.send(data)
    with contextlib.suppress(*_STREAM_GONE):
        await stream.aclose()


def _environment(env: Mapping[str, str] | None, cwd: Path) -> dict[str, str]:
    merged = dict(os.environ if env is None else env)
    merged.setdefault("TOOLBELT_PROJECT_DIR", str(cwd))
    merged.setdefault("CLAUDE_PROJECT_DIR", str(cwd))
    merged.setdefault("PYTHONSAFEPATH", "1")
    merged["PATH"] = outside_path(merged.get("PATH", os.defpath))  # see the module's docstring
    return merged
