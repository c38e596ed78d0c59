"""Other MCP servers' prompts, and ``@server:uri`` mentions of their resources, for a person.

A server's prompt is a message template the *person* picks (Claude Code offers them as
``/mcp__server__prompt`` slash commands); the model never calls one. So this module has no
tool: it lists the prompts (``server_prompts``), renders one with its arguments into the text
of the turn it starts (``render_prompt`` — the one function ``toolbelt run --prompt
server:name k=v`` and the chat's slash commands both use), and expands ``@server:uri``
mentions in a prompt into the resources they name (``expand_mentions``), each read through
the runtime as a ``read_mcp_resource`` call, so the server's rules apply as to the model.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

import mcp_types as types

from toolbelt.core.call_results import ToolCall, ToolCallResult
from toolbelt.core.errors import ToolError
from toolbelt.mcp_client.paging import listing_pages
from toolbelt.mcp_client.server import McpServerToolset
from toolbelt.mcp_client.toolset import McpToolset

RunOne = Callable[[ToolCall], Awaitable[ToolCallResult]]

__all__ = [
    "PromptInfo",
    "expand_mentions",
    "parse_prompt_arguments",
    "render_prompt",
    "server_prompts",
]


@dataclass(frozen=True, slots=True)
class PromptInfo:
    """One prompt a server offers: how the person calls it, and what it takes."""

    server: str
    name: str
    description: str
    arguments: tuple[tuple[str, bool], ...]
    """(argument name, required)."""

    @property
    def command(self) -> str:
        """The slash command that runs it: ``/mcp__server__prompt``."""
        return f"/mcp__{self.server}__{self.name}"


async def server_prompts(server: McpServerToolset) -> list[PromptInfo]:
    """The prompts ``server`` offers (none when it offers none)."""
    await server.start()
    if server.capabilities is not None and server.capabilities.prompts is None:
        return []
    found: list[PromptInfo] = []
    async for page in listing_pages(
        server, "prompts/list", lambda session, params: session.list_prompts(params=params)
    ):
        for prompt in page.prompts:
            arguments = tuple((a.name, bool(a.required)) for a in prompt.arguments or ())
            found.append(
                PromptInfo(server.config.name, prompt.name, prompt.description or "", arguments)
            )
    return found


def parse_prompt_arguments(words: list[str]) -> dict[str, str]:
    """``k=v`` words as arguments; ``ToolError`` for a word without ``=``."""
    arguments: dict[str, str] = {}
    for word in words:
        key, found, value = word.partition("=")
        if not found or not key:
            raise ToolError(f"{word!r} is not an argument; write each as name=value.")
        arguments[key] = value
    return arguments


async def render_prompt(
    servers: McpToolset | None, reference: str, arguments: Mapping[str, str]
) -> str:
    """The text of the prompt ``server:name`` (or ``mcp__server__name``, the slash command's
    spelling) with ``arguments``: each message's text in order, a resource it embeds as
    text. ``ToolError`` naming what is wrong (no such server or prompt, a missing argument)."""
    server_name, name = _split(reference)
    server = _server(servers, server_name)
    known = await server_prompts(server)
    found = next((prompt for prompt in known if prompt.name == name), None)
    if found is None:
        listed = ", ".join(f"`{prompt.name}`" for prompt in known) or "none"
        raise ToolError(
            f"The MCP server `{server_name}` has no prompt `{name}`; its prompts: {listed}."
        )
    missing = [arg for arg, required in found.arguments if required and arg not in arguments]
    if missing:
        wanted = " ".join(f"{arg}=…" for arg, _ in found.arguments)
        raise ToolError(
            f"The prompt `{server_name}:{name}` needs {', '.join(missing)}; give them as "
            f"name=value ({wanted})."
        )
    result = await server.request(
        f"prompt {name}", lambda session: session.get_prompt(name, dict(arguments))
    )
    parts: list[str] = []
    for message in result.messages:
        text = _text_of(message.content)
        if text:
            parts.append(text)
    return "\n\n".join(parts)


_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*://[^\s]+)")
"""``@server:scheme://rest``, as Claude Code writes a resource mention."""


async def expand_mentions(
    servers: McpToolset | None, run_one: RunOne, prompt: str
) -> tuple[str, list[str]]:
    """``prompt`` with the resources its ``@server:uri`` mentions name attached after it, and
    the problems met (a mention that could not be read stays as written and is named).
    ``run_one`` runs each read as a call (``Runtime.run_one``: the policy applies)."""
    # a sentence's closing punctuation is not part of the URI
    found = ((server, uri.rstrip(".,;:!?)]}'\"")) for server, uri in _MENTION.findall(prompt))
    mentions = list(dict.fromkeys(found))
    if not mentions or servers is None:
        return prompt, []
    attached: list[str] = []
    problems: list[str] = []
    for index, (server, uri) in enumerate(mentions):
        if servers.server(server) is None:
            continue  # not a server's name: an e-mail address, a handle
        arguments = {"server": server, "uri": uri}
        result = await run_one(ToolCall(f"mention-{index}", "read_mcp_resource", arguments))
        if result.is_error:
            problems.append(f"@{server}:{uri}: {result.text}")
            continue
        attached.append(f'<resource server="{server}" uri="{uri}">\n{result.text}\n</resource>')
    if not attached:
        return prompt, problems
    return prompt + "\n\n" + "\n\n".join(attached), problems


def _split(reference: str) -> tuple[str, str]:
    if reference.startswith("mcp__"):
        server, _, name = reference.removeprefix("mcp__").partition("__")
    else:
        server, _, name = reference.partition(":")
    if not server or not name:
        raise ToolError(
            f"{reference!r} names no prompt; write SERVER:PROMPT (or mcp__SERVER__PROMPT)."
        )
    return server, name


def _server(servers: McpToolset | None, name: str) -> McpServerToolset:
    found = servers.server(name) if servers is not None else None
    if found is None:
        known = ", ".join(f"`{s.config.name}`" for s in servers.servers) if servers else "none"
        raise ToolError(f"There is no MCP server `{name}`; the configured ones: {known}.")
    return found


def _text_of(content: types.ContentBlock) -> str:
    if isinstance(content, types.TextContent):
        return content.text
    if isinstance(content, types.EmbeddedResource):
        resource = content.resource
        if isinstance(resource, types.TextResourceContents):
            return f'<resource uri="{resource.uri}">\n{resource.text}\n</resource>'
        return f"[resource {resource.uri}: {resource.mime_type or 'binary'}, not shown]"
    if isinstance(content, types.ResourceLink):
        return f"[resource link {content.uri} ({content.name})]"
    return f"[{getattr(content, 'type', 'unknown')} content, not shown]"
