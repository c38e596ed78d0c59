"""Ask the person at the terminal whether a call may run.

Shows the tool, the reason, and what the call touches — the command, the path, the diff, or
for a call that has none of these (another MCP server's tool) its arguments —
every control character escaped visibly (``permissions.display``), the real command always
and the model's description only beside it —
then offers: yes once, yes for this session, always (saved as a rule; not offered, with the
reason, where it could not be kept), or no with an optional reason that goes back to the
model. The prompt is the terminal's only interaction while it waits (``terminal_owner``: one
at a time, typed-ahead input discarded, the reader stopped when the permission timeout or a
cancellation ends the wait), says which subagent asks, and the line the answer is typed on
restates what a "yes" approves — the whole command, never a harmless-looking start of it —
with the keys that answer; the choices and why one is missing are on the line above it.
"""

from __future__ import annotations

import sys
import textwrap

from toolbelt.cli.terminal_owner import ReadLine, terminal_owner
from toolbelt.core.display import shown_arguments
from toolbelt.core.permission import (
    Answer,
    Approval,
    Ask,
    PermissionRequest,
    PermissionRequester,
)
from toolbelt.core.terminal_text import escape_for_terminal

__all__ = ["TerminalRequester"]

_RESTATED = 200
"""Characters of a command or URL restated on the answer line; a longer one is named."""
_CHOICES = {
    "y": Approval.ONCE,
    "yes": Approval.ONCE,
    "s": Approval.SESSION,
    "a": Approval.ALWAYS,
    "n": Approval.DENY,
    "no": Approval.DENY,
}


class TerminalRequester(PermissionRequester):
    """Prompts on standard error and reads the answer from standard input."""

    async def ask(self, request: PermissionRequest, decision: Ask) -> Answer:
        return await terminal_owner().interact(
            lambda read_line: self._ask_blocking(request, decision, read_line)
        )

    def _ask_blocking(
        self, request: PermissionRequest, decision: Ask, read_line: ReadLine
    ) -> Answer:
        out = sys.stderr
        access = request.access
        reason = escape_for_terminal(decision.reason)
        who = ""
        if request.agent:
            who = f"subagent \x1b[1;36m{escape_for_terminal(request.agent)}\x1b[0m: "
        tool = escape_for_terminal(request.tool)
        out.write(f"\n{who}\x1b[1;33m{tool}\x1b[0m wants permission: {reason}\n")
        if access.command and access.command.text:
            out.write(f"  command: {escape_for_terminal(access.command.text)}\n")
            description = request.arguments.get("description")
            if isinstance(description, str) and description:
                out.write(f"  (the model describes it as: {escape_for_terminal(description)})\n")
        if access.url:
            out.write(f"  url: {escape_for_terminal(access.url)}\n")
        for path in access.paths:
            out.write(f"  path: {escape_for_terminal(str(path))}\n")
        if access.preview:
            out.write(_coloured_diff(escape_for_terminal(access.preview, newlines=True)))
        arguments = shown_arguments(access, request.arguments)
        if arguments is not None:
            out.write("  arguments:\n" + textwrap.indent(arguments, "    ") + "\n")
        choices, keys = "[y] yes  [s] yes for this session  [a] always  [n] no", "y/s/a/n"
        if decision.no_always:
            why = f"(no always: {decision.no_always})"
            choices, keys = f"[y] yes  [s] yes for this session  [n] no   {why}", "y/s/n"
        if not decision.remember:
            choices = "[y] yes  [n] no   (this kind of call is never remembered)"
            keys = "y/n"
        restated = f"Allow {_approves(request)}"
        if request.agent:
            restated += f" for subagent {escape_for_terminal(request.agent)}"
        out.write(f"  {choices}\n")
        while True:  # the line the answer is typed on says what a yes approves, and only that
            out.write(f"{restated}? [{keys}] > ")
            out.flush()
            line = read_line()
            if not line:
                return Answer(Approval.DENY, "No answer (end of input); the call was denied.")
            choice = _CHOICES.get(line.strip().lower())
            if choice is None:
                continue
            if not decision.remember and choice in (Approval.SESSION, Approval.ALWAYS):
                choice = Approval.ONCE
            if decision.no_always and choice is Approval.ALWAYS:
                continue  # not offered: ask again rather than keep it for less than promised
            if choice is Approval.DENY:
                out.write(f"Denied {tool}: reason for the model (optional) > ")
                out.flush()
                reason = read_line().strip()
                return Answer(
                    Approval.DENY, f"The user denied this call: {reason}" if reason else ""
                )
            return Answer(choice)


def _approves(request: PermissionRequest) -> str:
    """What a yes lets happen: the command, the URL, the path, or the tool. A command or URL
    is restated whole — a shortened one would show its harmless start and hide the rest — or,
    past ``_RESTATED`` characters, referred to as the one shown above, with its length."""
    access = request.access
    tool = escape_for_terminal(request.tool)
    if access.command and access.command.text:
        command = escape_for_terminal(access.command.text)
        if len(command) > _RESTATED:
            return f"{tool} to run the {len(command):,}-character command shown above"
        return f"{tool} to run `{command}`"
    if access.url:
        url = escape_for_terminal(access.url)
        if len(url) > _RESTATED:
            return f"{tool} to fetch the {len(url):,}-character URL shown above"
        return f"{tool} to fetch {url}"
    if access.paths:
        more = f" (+{len(access.paths) - 1} more)" if len(access.paths) > 1 else ""
        return f"{tool} on {escape_for_terminal(str(access.paths[0]))}{more}"
    return tool


def _coloured_diff(diff: str) -> str:
    lines = []
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            lines.append(f"\x1b[32m{line}\x1b[0m")
        elif line.startswith("-") and not line.startswith("---"):
            lines.append(f"\x1b[31m{line}\x1b[0m")
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"
