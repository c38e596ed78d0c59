"""What a tool's calls do to the world, declared as one value: the four MCP behaviour hints.

MCP's tool annotations (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
``openWorldHint``) travel together: a tool declares them once (``hints = ToolHints.READ_ONLY``)
rather than as four flags, most of them set to their default, and this module is the one place
that turns them into MCP's annotations and back — for the tools toolbelt serves and for the
tools another server lists. The executor reads ``readonly`` to decide what may run in parallel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, overload

__all__ = ["HintFlag", "McpAnnotations", "ToolHints"]


class McpAnnotations(Protocol):
    """The hints of an MCP ``ToolAnnotations`` as another server sends them (each may be absent)."""

    @property
    def read_only_hint(self) -> bool | None: ...
    @property
    def destructive_hint(self) -> bool | None: ...
    @property
    def idempotent_hint(self) -> bool | None: ...
    @property
    def open_world_hint(self) -> bool | None: ...


@dataclass(frozen=True, slots=True)
class ToolHints:
    """How a tool's calls behave; the defaults are the cautious answers."""

    readonly: bool = False
    """May run concurrently with other read-only calls; when unsure, leave it False."""
    destructive: bool = True
    """May destroy or overwrite data (MCP ``destructiveHint``); ignored for read-only tools."""
    idempotent: bool = False
    """Calling twice with the same arguments has no further effect (MCP ``idempotentHint``)."""
    open_world: bool = False
    """Reaches outside the workspace, e.g. the network (MCP ``openWorldHint``)."""

    READ_ONLY: ClassVar[ToolHints]
    """Reads and changes nothing, so a second call changes nothing either: a lookup."""

    @classmethod
    def from_mcp(cls, annotations: McpAnnotations) -> ToolHints:
        """The hints another MCP server declared; an absent hint reads as MCP's default."""
        return cls(
            readonly=bool(annotations.read_only_hint),
            destructive=annotations.destructive_hint is not False,
            idempotent=bool(annotations.idempotent_hint),
            open_world=annotations.open_world_hint is not False,
        )

    def mcp_annotations(self) -> dict[str, Any]:
        """The hints as MCP ``ToolAnnotations`` fields (``destructiveHint`` only when writing)."""
        return {
            "readOnlyHint": self.readonly,
            "destructiveHint": (not self.readonly) and self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


ToolHints.READ_ONLY = ToolHints(readonly=True, destructive=False, idempotent=True)


class _Hinted(Protocol):
    hints: ToolHints


class HintFlag:
    """One of a tool's ``hints`` as an attribute of the tool: ``tool.readonly`` is
    ``tool.hints.readonly``. A subclass may still set the attribute itself (``readonly =
    True``); ``Tool.__init_subclass__`` folds that into its ``hints``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, tool: None, owner: type | None = None) -> HintFlag: ...
    @overload
    def __get__(self, tool: _Hinted, owner: type | None = None) -> bool: ...
    def __get__(self, tool: _Hinted | None, owner: type | None = None) -> HintFlag | bool:
        return self if tool is None else bool(getattr(tool.hints, self._name))
