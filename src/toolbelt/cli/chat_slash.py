"""The chat's slash commands, ``@path`` mentions and skills, the same at a terminal and in a
pipe.

``/mode [MODE]``, ``/model [PROVIDER:MODEL]``, ``/tools``, ``/clear``, ``/compact [focus]``,
``/cost``, ``/undo``, ``/resume [ID]``, ``/help``, ``/exit``; ``/NAME ARGS`` runs the skill
NAME (its instructions, with the arguments, become the prompt, as Claude Code does); ``@path``
in a prompt attaches that file's text when reading it needs no permission (inside the
workspace, not a secret, not past a deny rule), up to ``MAX_MENTION`` bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolbelt.agent.conversation import Conversation
from toolbelt.agent.offer import turn_offer
from toolbelt.agent.sessions import SessionLog, find_session, list_sessions, load_session
from toolbelt.core.authorization import read_allowed
from toolbelt.core.errors import UsageError
from toolbelt.core.terminal_text import escape_for_terminal
from toolbelt.paths.small_read import read_head
from toolbelt.policy.modes import MODES
from toolbelt.providers.model import ProviderError
from toolbelt.skills import expand_skill, load_skills

__all__ = ["HELP", "MAX_MENTION", "SlashOutcome", "mentioned_files", "run_slash", "undo"]

MAX_MENTION = 256 * 1024
_MENTION = re.compile(r"(?<![\w@])@([\w./~+-][^\s]*)")

HELP = """\
/mode [MODE]        show or set the permission mode (default, accept_edits, plan, bypass, dont_ask)
/model [P:M]        show or switch the model (e.g. anthropic:claude-sonnet-4-5)
/tools              the tools the model is offered
/clear              start the conversation afresh
/compact [focus]    summarise the conversation to make room (optionally: what to keep)
/cost               tokens and money per turn and in total
/undo               undo the last change (needs checkpoints)
/resume [ID]        list saved conversations, or continue one
/help               this list
/exit               leave (or Ctrl-D)
/NAME [ARGS]        run the skill NAME
@path               attach a file of the workspace to the prompt
Esc or Ctrl-C cancels a running turn; Esc then Enter adds a new line."""


@dataclass(frozen=True, slots=True)
class SlashOutcome:
    """What a slash command leaves to do: leave, or send a prompt (a skill)."""

    leave: bool = False
    prompt: str | None = None


def undo(conversation: Conversation) -> str:
    """What ``/undo`` does; the one seam for checkpoints (``Runtime.checkpoints``)."""
    checkpoints = getattr(conversation.agent.runtime, "checkpoints", None)
    if checkpoints is None:
        return "Undo is not available yet: this build of toolbelt keeps no checkpoints."
    undone = checkpoints.undo()
    return f"Undone: {undone}"


async def run_slash(
    line: str, conversation: Conversation, say: Callable[[str], None], *, base_url: str | None
) -> SlashOutcome:
    """Run one ``/command``; what it has to say goes through ``say``."""
    name, _, rest = line[1:].partition(" ")
    rest = rest.strip()
    agent = conversation.agent
    runtime = agent.runtime
    if name in ("exit", "quit"):
        return SlashOutcome(leave=True)
    if name == "help":
        say(HELP)
    elif name == "mode":
        if not rest:
            say(f"The permission mode is {runtime.mode}.")
        elif rest not in MODES:
            say(f"Unknown mode {rest!r}; choose one of {', '.join(MODES)}.")
        elif rest == "bypass" and runtime.settings.bypass_disabled:
            say("bypass is turned off by `disableBypassPermissionsMode` in your settings.")
        else:
            conversation.set_mode(rest)
            say(f"The permission mode is now {rest}.")
    elif name == "model":
        if not rest:
            say(f"The model is {agent.model.model}.")
        else:
            try:
                await conversation.set_model(rest, base_url=base_url)
            except (ProviderError, UsageError) as exc:
                say(f"The model stays {agent.model.model}: {exc}")
            else:
                say(f"The model is now {rest}.")
    elif name == "tools":
        tools = turn_offer(runtime, agent.model).tools
        say(", ".join(tool.name for tool in tools))
    elif name == "clear":
        await conversation.clear()
        say("The conversation starts afresh.")
    elif name == "compact":
        await _compact(conversation, rest or None, say)
    elif name == "cost":
        say(cost_report(conversation))
    elif name == "undo":
        say(undo(conversation))
    elif name == "resume":
        _resume(conversation, rest, say)
    else:
        skills = load_skills(runtime.session.root, trusted=runtime.settings.trusted)
        skill = skills.skills.get(name)
        if skill is None:
            say(
                f"Unknown command /{escape_for_terminal(name)}; "
                "/help lists the commands and skills."
            )
        else:
            return SlashOutcome(prompt=expand_skill(skill.body, rest))
    return SlashOutcome()


async def _compact(
    conversation: Conversation, focus: str | None, say: Callable[[str], None]
) -> None:
    try:
        compacted = await conversation.compact(focus)
    except ProviderError as exc:
        say(f"Not compacted: {exc}")
        return
    if compacted is None:
        say("Nothing to compact yet.")
    else:
        say(
            f"Compacted: about {compacted.tokens_before:,} → {compacted.tokens_after:,} tokens "
            "(the summary replaces the earlier turns)."
        )


def _resume(conversation: Conversation, wanted: str, say: Callable[[str], None]) -> None:
    root = conversation.agent.runtime.session.root
    if not wanted:
        sessions = list_sessions(root)[:10]
        if not sessions:
            say("No saved conversation in this workspace.")
        for summary in sessions:
            say(f"{summary.id}  {escape_for_terminal(summary.title)}")
        return
    try:
        saved = load_session(find_session(root, wanted))
    except UsageError as exc:
        say(str(exc))
        return
    if conversation.log is not None:
        conversation.log.close()
    conversation.log = SessionLog(saved.path)
    conversation.restore(saved)
    say(f"Resumed {saved.id}: {len(saved.messages)} messages.")


def cost_report(conversation: Conversation) -> str:
    """Tokens and money per turn and in total (``/cost``)."""
    lines = []
    for number, (usage, cost) in enumerate(conversation.turns, 1):
        money = f"${cost:.4f}" if cost is not None else "price unknown"
        lines.append(
            f"turn {number}: {usage.input_tokens:,} in, {usage.output_tokens:,} out, "
            f"{usage.cache_read_tokens:,} cached — {money}"
        )
    total = conversation.usage
    cost = conversation.cost
    money = f"${cost:.4f}" if cost is not None else "price unknown for this model"
    lines.append(
        f"total: {total.input_tokens:,} in, {total.output_tokens:,} out, "
        f"{total.cache_read_tokens:,} cached — {money}"
    )
    return "\n".join(lines)


def mentioned_files(prompt: str, conversation: Conversation) -> tuple[list[str], list[str]]:
    """The texts to attach for the prompt's ``@path`` mentions, and notes on those left out."""
    runtime = conversation.agent.runtime
    attached, notes = [], []
    for match in _MENTION.finditer(prompt):
        name = match.group(1).rstrip(".,;:)")
        path = (runtime.session.root / Path(name).expanduser()).resolve()
        if not path.is_file():
            continue
        if not read_allowed(runtime.policy, path):
            notes.append(f"@{name} was not attached: reading it needs permission.")
            continue
        data = read_head(path, MAX_MENTION)  # never blocks on a FIFO swapped in
        if data is None:
            notes.append(f"@{name} was not attached: it is not a regular file.")
            continue
        text = data[:MAX_MENTION].decode("utf-8", errors="replace")
        cut = "\n[... cut at 256 KiB ...]" if len(data) > MAX_MENTION else ""
        attached.append(f"Contents of @{name}:\n```\n{text}{cut}\n```")
    return attached, notes
