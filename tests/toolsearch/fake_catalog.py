"""A generated catalog of 500 MCP tools across 20 fake servers, deterministic, for tests and
``bench/run.py toolsearch``.

Each server has 25 tools named ``mcp__<server>__<verb>_<noun>`` with a description and
parameters in the style real servers use (GitHub, Jira, Slack, Postgres...). Many short names
repeat across servers (``list_issues`` on github, gitlab and jira), as in real catalogs, which
is what makes exact-name search worth testing.
"""

from __future__ import annotations

import functools

from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.registry import CombinedToolset, ToolRegistry
from toolbelt.core.schema_tool import SchemaArguments, SchemaTool
from toolbelt.tools import builtin_toolset
from toolbelt.toolsearch import ToolSearchToolset

SERVERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "github": ("GitHub repository", ("issue", "pull_request", "branch", "commit", "release")),
    "gitlab": ("GitLab project", ("issue", "merge_request", "pipeline", "branch", "tag")),
    "jira": ("Jira project", ("issue", "sprint", "board", "comment", "worklog")),
    "slack": ("Slack workspace", ("message", "channel", "user", "reaction", "file")),
    "linear": ("Linear team", ("issue", "project", "cycle", "label", "comment")),
    "notion": ("Notion workspace", ("page", "database", "block", "comment", "user")),
    "postgres": ("PostgreSQL database", ("table", "query", "index", "schema", "role")),
    "sentry": ("Sentry organization", ("issue", "event", "release", "alert", "project")),
    "stripe": ("Stripe account", ("customer", "invoice", "payment", "subscription", "refund")),
    "figma": ("Figma file", ("frame", "component", "comment", "style", "image")),
    "gdrive": ("Google Drive", ("file", "folder", "permission", "revision", "comment")),
    "calendar": ("Google Calendar", ("event", "calendar", "attendee", "reminder", "room")),
    "aws": ("AWS account", ("bucket", "instance", "lambda_function", "queue", "secret")),
    "kubernetes": ("Kubernetes cluster", ("pod", "deployment", "service", "namespace", "secret")),
    "docker": ("Docker host", ("container", "image", "volume", "network", "compose_stack")),
    "datadog": ("Datadog organization", ("monitor", "dashboard", "metric", "log", "incident")),
    "pagerduty": (
        "PagerDuty account",
        ("incident", "schedule", "service", "escalation_policy", "on_call"),
    ),
    "confluence": ("Confluence space", ("page", "space", "attachment", "comment", "label")),
    "salesforce": ("Salesforce org", ("account", "contact", "opportunity", "lead", "case")),
    "zendesk": ("Zendesk instance", ("ticket", "user", "organization", "macro", "view")),
}
VERBS: dict[str, str] = {
    "list": "List the {plural} in the {place}, newest first, with paging.",
    "get": "Get one {noun} of the {place} by its id, with all its fields.",
    "create": "Create a new {noun} in the {place}.",
    "update": "Update the fields of an existing {noun} in the {place}.",
    "delete": "Delete a {noun} from the {place}; this cannot be undone.",
}


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _schema(verb: str, noun: str, place: str) -> dict[str, object]:
    words = noun.replace("_", " ")
    id_field = {"type": "string", "description": f"The id of the {words}."}
    fields = {
        "title": {"type": "string", "description": f"Title or name of the {words}."},
        "body": {"type": "string", "description": f"Text content of the {words} (Markdown)."},
        "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels."},
    }
    if verb == "list":
        properties: dict[str, object] = {
            "query": {"type": "string", "description": f"Filter {_plural(words)} by text."},
            "page": {"type": "integer", "minimum": 1, "description": "Page number, from 1."},
            "per_page": {"type": "integer", "maximum": 100, "description": "Items per page."},
        }
        required: list[str] = []
    elif verb in ("get", "delete"):
        properties, required = {f"{noun}_id": id_field}, [f"{noun}_id"]
    elif verb == "create":
        properties, required = dict(fields), ["title"]
    else:
        properties, required = {f"{noun}_id": id_field, **fields}, [f"{noun}_id"]
    properties["scope"] = {"type": "string", "description": f"Which {place} to work in."}
    return {"type": "object", "properties": properties, "required": required}


class FakeServerTool(SchemaTool):
    """A server tool that answers with its own name and arguments (nothing to reach)."""

    async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text(f"{self.name} called with {sorted(args.values().items())}")


@functools.cache
def fake_tools() -> tuple[FakeServerTool, ...]:
    """The 500 tools, servers in ``SERVERS`` order, each server's tools verb by noun (made
    once: checking 500 schemas takes half a second)."""
    tools = []
    for server, (place, nouns) in SERVERS.items():
        for noun in nouns:
            for verb, text in VERBS.items():
                name = f"mcp__{server}__{verb}_{noun if verb != 'list' else _plural(noun)}"
                words = noun.replace("_", " ")
                description = text.format(noun=words, plural=_plural(words), place=place)
                tools.append(
                    FakeServerTool(
                        name,
                        description=description,
                        input_schema=_schema(verb, noun, place),
                        readonly=verb in ("list", "get"),
                    )
                )
    return tuple(tools)


def fake_catalog() -> ToolRegistry:
    """The 500 tools as a toolset."""
    return ToolRegistry(fake_tools())


def searchable_toolset() -> ToolSearchToolset:
    """The built-ins and the 500 tools behind tool search (``toolbelt mcp --toolset``)."""
    return ToolSearchToolset(CombinedToolset(builtin_toolset(), fake_catalog()))
