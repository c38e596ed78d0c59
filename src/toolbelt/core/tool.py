"""The ``Tool`` base class: one input schema, one description, one permission hook, one ``run``.

A tool is defined by its input schema (``input_schema``) and the check of its arguments
(``validate``). Built-in tools declare both with a pydantic input model (``extra="forbid"``:
unknown fields are refused, so a model cannot smuggle in a ``cwd`` or a
``dangerouslyDisableSandbox``); a tool that arrives as a JSON Schema — from another MCP server,
say — is a ``SchemaTool`` and has no model at all. Beside that: the description the model
reads, whether it may run concurrently, what a call touches (``access``) and the work itself
(``run``). Schemas for every provider are derived from the same schema that validates the
arguments, so the two can never drift.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast, get_args, get_origin

from toolbelt.core.access import Access, AccessKind
from toolbelt.core.lazy_exports import lazy_exports
from toolbelt.core.rule_identity import FAMILY_SYNONYMS, FAMILY_TARGETS, RuleIdentity, RuleTarget
from toolbelt.core.schema import JsonSchema, model_schema
from toolbelt.core.tool_hints import HintFlag, ToolHints
from toolbelt.core.validation import validate_with_model

if TYPE_CHECKING:
    from pydantic import BaseModel

    from toolbelt.core.content import ToolOutput
    from toolbelt.core.context import ToolContext
    from toolbelt.core.tool_input import ToolInput

__all__ = ["HookSubject", "Tool", "ToolHints", "ToolInput"]


__getattr__ = lazy_exports(__name__, {"ToolInput": "toolbelt.core.tool_input"})
"""``ToolInput`` loads (and pydantic with it) when first asked for: a process that only
handles tools — an MCP server before ``initialize`` is answered — never needs it."""


InputT = TypeVar("InputT", bound="ToolInput")


@dataclass(frozen=True, slots=True)
class HookSubject:
    """The call hooks are told about: the tool's name, the names a matcher may also select it
    by, and its input."""

    name: str
    aliases: tuple[str, ...]
    arguments: dict[str, Any]


class Tool(ABC, Generic[InputT]):
    """A capability the model can call.

    Subclasses set the class attributes and implement ``run``; ``access`` defaults to "no
    effect" for read-only tools and must be overridden by any tool that touches files,
    commands or the network. The behaviour hints are one value (``hints =
    ToolHints.READ_ONLY``); a subclass may still set them one by one as class attributes
    (``readonly = True``), which ``__init_subclass__`` folds into ``hints``.
    """

    name: str
    """snake_case name the model calls (``read_file``)."""
    title: str
    """Short human title for UIs and MCP (``Read file``)."""
    description: str
    """What the model reads to decide when and how to call the tool."""
    input_model: ClassVar[type[ToolInput]]
    """Validates the arguments; the default ``input_schema`` and ``validate`` use it. Taken
    from the class's parameter (``Tool[ReadFileInput]``) when the class does not set it."""
    example: dict[str, Any]
    """A correct call, shown to the model when its arguments are invalid."""
    output_model: ClassVar[type[BaseModel] | None] = None
    """Schema of ``ToolOutput.structured`` when the tool has one (MCP ``outputSchema``)."""

    hints: ToolHints = ToolHints()
    """What its calls do: read-only, destructive, idempotent, open-world (see ``ToolHints``)."""
    # the four flags of ``hints``, read as attributes of the tool (``tool.readonly``)
    readonly = HintFlag()
    destructive = HintFlag()
    idempotent = HintFlag()
    open_world = HintFlag()

    programmatic: bool = True
    """Suitable when no person is at the keyboard (False for ask_user, git_commit, web_fetch)."""
    asks_user: bool = False
    """Its run may put a question to the person (ask_user, an MCP server's elicitation): such
    a call never runs beside another call, whose permission prompt could take the answer."""

    rule_family: str | None = None
    """Permission rule family (``Read``, ``Edit``, ``Bash``, ``WebFetch``); None: the name."""
    rule_target: RuleTarget = "none"
    """What rule specifiers match (``path``, ``command``, ``domain``, ``none``) for a tool
    that is its own family; a known family (``FAMILY_TARGETS``) decides it for its tools."""
    rule_aliases: tuple[str, ...] = ()
    """Other rule names for this tool alone, besides ``claude_name``."""
    claude_name: str | None = None
    """Claude Code's name for the same tool (``Write``, ``Glob``, ``BashOutput``), so settings
    pasted from Claude Code work: a hook matcher ``Write|Edit`` selects it, and a rule naming
    it (``Glob(src/**)``) speaks about it. None for a tool Claude Code does not have; an MCP
    tool's own name (``mcp__server__tool``) is already the one Claude uses."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "input_model" not in cls.__dict__:
            model = _input_parameter(cls)
            if model is not None:
                cls.input_model = model
        flags = {
            name: cls.__dict__[name]
            for name in _HINT_FLAGS
            if isinstance(cls.__dict__.get(name), bool)
        }
        if flags:
            cls.hints = replace(cls.hints, **flags)
            for name in flags:
                delattr(cls, name)  # read from ``hints`` from now on (``HintFlag``)

    def rule_identity(self) -> RuleIdentity:
        """How permission rules see this tool (see ``core.identity``); computed once."""
        cached: RuleIdentity | None = self.__dict__.get("_rule_identity")
        if cached is None or cached.tool != self.name:
            family = self.rule_family or self.name
            target = FAMILY_TARGETS.get(family, self.rule_target)
            aliases = self.rule_aliases
            claude = self.claude_name
            if claude is not None and FAMILY_SYNONYMS.get(claude, claude) != family:
                aliases = (*aliases, claude)  # a name for this tool alone, not its family
            cached = RuleIdentity(self.name, family, target, aliases)
            self.__dict__["_rule_identity"] = cached
        return cached

    async def hook_subject(self, args: InputT, dumped: dict[str, Any]) -> HookSubject:
        """What hooks see of this call; a proxy tool (``call_mcp_tool``) shows the call it
        makes, so a hook for that tool guards the proxied call too (as ``call_identity`` does
        for rules)."""
        return HookSubject(self.name, (self.claude_name,) if self.claude_name else (), dumped)

    def from_hook_input(self, dumped: dict[str, Any], updated: Mapping[str, Any]) -> dict[str, Any]:
        """This tool's arguments once a PreToolUse hook replaced the input it saw
        (``hook_subject``)."""
        return dict(updated)

    def call_identity(self, args: InputT) -> RuleIdentity:
        """How rules see this call; a proxy tool (``call_mcp_tool``) answers as the tool it
        calls, so a rule for that tool governs the proxied call too."""
        return self.rule_identity()

    def input_schema(self) -> JsonSchema:
        """The arguments' JSON Schema in neutral form (closed, inlined); providers use it."""
        return model_schema(self.input_model)

    def output_schema(self) -> JsonSchema | None:
        """The schema of ``ToolOutput.structured`` when the tool has one (MCP ``outputSchema``)."""
        return None if self.output_model is None else self.output_model.model_json_schema()

    def validate(self, arguments: Mapping[str, Any]) -> InputT:
        """The validated arguments; ``InvalidInputError`` naming each problem, with an example."""
        valid = validate_with_model(self.name, self.input_model, arguments, self.example)
        return cast(InputT, valid)

    def is_readonly(self, args: InputT) -> bool:
        """Whether this particular call may run concurrently; defaults to the class flag."""
        return self.readonly

    async def access(self, args: InputT, ctx: ToolContext) -> Access:
        """Declare what this call touches; may raise ``ToolError`` for arguments that cannot work.

        The executor calls it before asking the policy, so a call that would fail anyway
        (a path outside every root, a string that is not in the file) fails without
        bothering the user.
        """
        return Access.none() if self.readonly else Access(AccessKind.EXECUTE, summary=self.name)

    @abstractmethod
    async def run(self, args: InputT, ctx: ToolContext) -> ToolOutput:
        """Do the work; raise ``ToolError`` with an instructive message when it cannot be done."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


_HINT_FLAGS = ("readonly", "destructive", "idempotent", "open_world")


def _input_parameter(cls: type) -> type[ToolInput] | None:
    """The input model a class names as its parameter (``class X(Tool[XInput])``), if any."""
    for base in cls.__dict__.get("__orig_bases__", ()):
        origin, parameters = get_origin(base), get_args(base)
        if isinstance(origin, type) and issubclass(origin, Tool) and parameters:
            model = parameters[0]
            if isinstance(model, type) and issubclass(model, ToolInput):
                return model
    return None
