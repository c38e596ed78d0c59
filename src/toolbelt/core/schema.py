"""A tool's input schema in its neutral form: self-contained, without titles, objects closed
where they list their keys and open where they are maps.

Every provider format starts from it, and a tool defined by a JSON Schema alone is validated
against it, so what the model is told is exactly what the validator enforces. The neutral
form:

- inlines ``$ref``s (several providers reject ``$defs``); a reference back into itself (a tree
  of nodes) is cut at its second occurrence and becomes a schema that accepts any value, with a
  description naming the shape, and a reference the schema does not define likewise;
- drops titles (they repeat the property names and cost tokens);
- closes every object that lists its ``properties`` and says nothing of other keys
  (``additionalProperties: false``; a ``required`` key it does not list is listed, with any
  value, so the tool stays callable), keeps an explicit ``additionalProperties`` (``true`` or a
  schema) or ``patternProperties`` as written, and leaves an object without ``properties``
  open: it is a map (``metadata``, ``headers``, pydantic's ``dict[str, Any]``), and closing it
  would tell the model it must be empty;
- gives every array an ``items`` (``{}`` when it had none: the same meaning, and OpenAI rejects
  the whole request for an array schema without one);
- at the top level, is an object with ``properties``: a top level that declares none (MCP's
  "any object") keeps its extra keys with an explicit ``additionalProperties: true``; and has
  no ``anyOf``/``oneOf``/``allOf``/``not``/``if`` (``lifted``), which providers reject there.

Only schema positions are rewritten: a ``default``, ``const``, ``enum`` or ``examples`` value
is data and is kept as it is, even when it holds a key named ``title`` or ``type``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from toolbelt.core.schema_visit import LIST, MAP, OMIT, Position, map_subschemas

if TYPE_CHECKING:  # a model is handed in: this module need not load pydantic itself
    from pydantic import BaseModel

__all__ = [
    "MAX_NODES",
    "JsonSchema",
    "SchemaTooLarge",
    "forms",
    "json_type",
    "lifted",
    "model_schema",
    "neutral_form",
    "validation_form",
]

JsonSchema = dict[str, Any]


def json_type(value: Any) -> str:
    """The JSON Schema ``type`` of a JSON value (an ``enum``'s, a ``const``'s): ``integer``
    for a whole number, ``number`` for a float, ``boolean`` before either (a bool is an int)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


MAX_NODES = 20_000
"""Schema nodes the neutral form may hold once its references are inlined: a schema whose
``$defs`` refer to each other twice per level would otherwise grow exponentially."""

_METADATA = {"title", "$schema", "$id", "$defs", "definitions", "$comment"}
"""Dropped: titles repeat the property names, references are inlined."""
_BOOLEAN_ALLOWED = {"additionalProperties", "unevaluatedProperties"}
_TOP_RULES = {"anyOf", "oneOf", "allOf", "not", "if", "then", "else"}
_PARTS = {"if", "then", "else", "not", "dependentSchemas", "allOf"}


class SchemaTooLarge(ValueError):
    """The schema's references expand past ``MAX_NODES``."""


def model_schema(model: type[BaseModel]) -> JsonSchema:
    """The neutral schema of a pydantic input model."""
    return neutral_form(model.model_json_schema())


def neutral_form(schema: JsonSchema) -> JsonSchema:
    """``schema`` (an object schema, possibly with ``$defs`` and ``$ref``s) in the neutral form.

    Raises ``SchemaTooLarge`` when inlining its references would pass ``MAX_NODES``."""
    return lifted(validation_form(schema))


def validation_form(schema: JsonSchema) -> JsonSchema:
    """The neutral form before ``lifted``: what a ``SchemaTool`` validates against, so a rule
    written with ``anyOf``/``oneOf``/``not``/``if`` at the top is still enforced."""
    root = dict(schema)
    walker = _Walker(root)
    body = {k: v for k, v in root.items() if k not in ("$defs", "definitions", "$schema")}
    neutral = walker.schema(body, "")
    if not isinstance(neutral, dict):
        neutral = {}
    neutral["type"] = "object"
    if "properties" not in neutral:
        neutral["properties"] = {}
        neutral.setdefault("additionalProperties", True)
    return neutral


def lifted(schema: JsonSchema, *, subject: str = "The arguments") -> JsonSchema:
    """``schema`` without ``anyOf``/``oneOf``/``allOf``/``not``/``if`` at its top level.

    Anthropic rejects the request for a tool whose input schema has ``oneOf``, ``anyOf`` or
    ``allOf`` at the top, OpenAI too. The alternatives' properties are listed together, the keys
    every alternative requires are required, and the rule itself is told in the description;
    the validator still enforces it (``validation_form``). ``subject`` names what the rule is
    about in the description (Gemini lifts nested objects too: "The fields")."""
    if not _TOP_RULES & set(schema):
        return schema
    out = {k: v for k, v in schema.items() if k not in _TOP_RULES}
    properties: dict[str, Any] = dict(out.get("properties", {}))
    required: list[str] = list(out.get("required", []))
    # open when the top lists keys and leaves others open, or an alternative does
    open_keys = bool(properties) and out.get("additionalProperties") is not False
    notes = []
    for key in ("allOf", "anyOf", "oneOf"):
        options = [o for o in schema.get(key, ()) if isinstance(o, dict)]
        for option in options:
            for name, sub in option.get("properties", {}).items():
                if properties.get(name) in (None, {}):
                    properties[name] = sub
            listed = bool(option.get("properties"))
            open_keys = open_keys or (listed and option.get("additionalProperties") is not False)
        wanted = [set(o.get("required", ())) for o in options]
        common = set.union(*wanted) if key == "allOf" and wanted else set()
        common = set.intersection(*wanted) if key != "allOf" and wanted else common
        required += sorted(common - set(required))
        if key != "allOf" and options:
            which = "exactly one" if key == "oneOf" else "at least one"
            notes.append(f"{subject} take {which} of these forms: {forms(options)}")
    if "if" in schema:
        rule = f"If {subject.lower()} match {json.dumps(schema['if'])}"
        rule += f", they must match {json.dumps(schema.get('then', {}))}"
        notes.append(rule + (f", else {json.dumps(schema['else'])}" if "else" in schema else ""))
    if "not" in schema:
        notes.append(f"{subject} must not match {json.dumps(schema['not'])}")
    out["properties"] = properties
    if required:
        out["required"] = required
    out["additionalProperties"] = bool(open_keys)
    if notes:
        told = ". ".join(notes) + "."
        out["description"] = f"{out['description']} {told}" if out.get("description") else told
    return out


def forms(options: list[Any]) -> str:
    """Alternatives (``anyOf``/``oneOf``) in words: each named by the keys it requires, else
    those it lists, else written out."""
    return "; ".join(_form(o) if isinstance(o, dict) else json.dumps(o) for o in options)


def _form(option: JsonSchema) -> str:
    keys = option.get("required") or list(option.get("properties", {}))
    if not keys:
        return json.dumps(option)
    return ("with " if option.get("required") else "any of ") + ", ".join(f"`{k}`" for k in keys)


class _Walker:
    """One pass over a schema: references inlined, titles dropped, objects and arrays made
    explicit. ``expanding`` holds the references being inlined, to cut cycles."""

    def __init__(self, root: JsonSchema) -> None:
        self.root = root
        self.expanding: list[str] = []
        self.nodes = 0

    def schema(self, node: Any, keyword: str, *, closable: bool = True) -> Any:
        """``node`` in a schema position (the value of ``keyword``). ``closable``: the node is
        a whole shape; a part combined with its siblings (an ``allOf`` member, an ``if``, an
        alternative beside the parent's own properties) is never closed, or the keys of the
        other parts would be refused."""
        if node is True and keyword not in _BOOLEAN_ALLOWED:
            return {}
        if not isinstance(node, dict):
            return node
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise SchemaTooLarge(
                f"its input schema expands to more than {MAX_NODES:,} nodes once its `$ref`s "
                "are inlined"
            )
        ref = node.get("$ref")
        if isinstance(ref, str):
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            target = self._referenced(ref, closable=closable)
            return self._merge(target, self._keywords(siblings), closable=closable)
        return self._shaped(self._keywords(node), closable=closable)

    def _keywords(self, node: JsonSchema) -> JsonSchema:
        whole_alternatives = not node.get("properties")

        def visit(sub: Any, at: Position) -> Any:
            keyword = at.keyword
            if keyword in MAP:
                # a property schema `false` forbids the key: leaving it out says the same
                return (
                    OMIT
                    if sub is False
                    else self.schema(sub, keyword, closable=keyword not in _PARTS)
                )
            if keyword in LIST:
                closable = keyword == "prefixItems" or (keyword != "allOf" and whole_alternatives)
                return self.schema(sub, keyword, closable=closable)
            if at.key is not None:  # draft 4's tuple `items`: each a whole shape
                return self.schema(sub, keyword)
            return self.schema(sub, keyword, closable=keyword not in _PARTS)

        return map_subschemas({k: v for k, v in node.items() if k not in _METADATA}, visit)

    def _shaped(self, out: JsonSchema, *, closable: bool) -> JsonSchema:
        all_of = out.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            rest = {k: v for k, v in out.items() if k != "allOf"}
            out = {**all_of[0], **rest}
        kinds = out.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        properties = out.get("properties")
        if (
            closable
            and isinstance(properties, dict)
            and "additionalProperties" not in out
            and "patternProperties" not in out
        ):
            # a key the object requires but does not list, or that its parts name, was an
            # allowed extra key: closing must not make the tool uncallable, so it is listed
            # here with any value (the part still checks it)
            for name in _named_keys(out):
                if name not in properties:
                    out["properties"] = properties = {**properties, name: {}}
            out["additionalProperties"] = False
        if "array" in kinds and "items" not in out and "prefixItems" not in out:
            out["items"] = {}
        return out

    def _merge(self, target: Any, siblings: JsonSchema, *, closable: bool) -> Any:
        """A referenced schema with the keywords written beside the ``$ref`` (they win)."""
        if not isinstance(target, dict):
            return siblings or target
        return self._shaped({**target, **siblings}, closable=closable) if siblings else target

    def _referenced(self, ref: str, *, closable: bool) -> Any:
        name = ref.rstrip("/").rpartition("/")[2] or "the whole input"
        if ref in self.expanding:
            return {"description": f"Same shape as `{name}` (nested)."}
        target = _resolve(self.root, ref)
        if target is None:
            return {"description": f"Its schema `{ref}` is not available."}
        self.expanding.append(ref)
        try:
            if ref in ("#", ""):
                target = {k: v for k, v in target.items() if k not in ("$defs", "definitions")}
            return self.schema(target, "", closable=closable)
        finally:
            self.expanding.pop()


def _named_keys(node: JsonSchema) -> list[str]:
    """The keys ``node`` requires and those its ``anyOf``/``oneOf``/``allOf`` name."""
    names = [n for n in node.get("required", ()) if isinstance(n, str)]
    for key in ("anyOf", "oneOf", "allOf"):
        for option in node.get(key, ()) if isinstance(node.get(key), list) else ():
            if isinstance(option, dict):
                names += [n for n in option.get("required", ()) if isinstance(n, str)]
                names += list(option.get("properties", {}) or {})
    return list(dict.fromkeys(names))


def _resolve(root: JsonSchema, ref: str) -> Any:
    """The node a local JSON pointer (``#/$defs/Node``, ``#``) names, or None."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    for part in unquote(ref[1:]).split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node if isinstance(node, (dict, bool)) else None
