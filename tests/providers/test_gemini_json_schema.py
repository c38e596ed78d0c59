"""Gemini gets a map-carrying tool's schema as JSON Schema (``parametersJsonSchema``).

Gemini's OpenAPI subset has no way to say "an object with any keys": there a map is an
OBJECT without properties, which the model fills with nothing — ``call_mcp_tool`` could never
pass its ``arguments``. Such a tool is declared with its neutral JSON Schema instead; every
other tool keeps the subset's ``parameters``. Checked on the wire: the official SDK's request
body as the loopback fake received it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.support.conversation import one_turn, request, user
from tests.support.fake_provider import FakeProvider
from toolbelt.core.content import ToolOutput
from toolbelt.core.context import ToolContext
from toolbelt.core.schema_tool import SchemaArguments, SchemaTool
from toolbelt.tools import builtin_toolset

pytestmark = pytest.mark.anyio


class Tagger(SchemaTool):
    async def run(self, args: SchemaArguments, ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text("tagged")


TAGGER = Tagger(
    "mcp__crm__tag",
    description="Tag a record.",
    input_schema={
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "metadata": {"type": "object", "description": "Any key/value pairs."},
        },
        "required": ["id"],
    },
)


async def test_a_map_parameter_goes_as_json_schema_and_the_rest_as_the_subset() -> None:
    read_file = builtin_toolset().get("read_file")
    assert read_file is not None
    with FakeProvider([{"text": "ok"}]) as fake:
        turn = replace(request(user("tag it")), tools=(read_file, TAGGER))
        await one_turn(turn, "gemini:gemini-2.5-flash", base_url=fake.url, api_key="k")
    declarations = fake.requests[0].body["tools"][0]["functionDeclarations"]
    plain, tagger = declarations
    assert plain["name"] == "read_file"
    assert plain["parameters"]["type"] == "OBJECT" and len(plain) == 3
    # the SDK writes the field under its proto name, which the API's JSON parser accepts
    assert tagger == {
        "name": "mcp__crm__tag",
        "description": "Tag a record.",
        "parameters_json_schema": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "metadata": {"type": "object", "description": "Any key/value pairs."},
            },
            "required": ["id"],
            "additionalProperties": False,
        },
    }
    assert TAGGER.validate({"id": "7", "metadata": {"tier": "gold"}}).values() == {
        "id": "7",
        "metadata": {"tier": "gold"},
    }
