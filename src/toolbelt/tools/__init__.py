"""Built-in tools, one module each; ``builtin_toolset()`` lists them in a fixed order.

Tool modules import only pydantic and the core at import time; heavy libraries (tree-sitter,
charset-normalizer, pypdf, httpx) are imported inside the functions that need them, so listing
or validating tools stays cheap. The toolset itself imports a tool's module only when that
tool is first looked up, so a process that makes one call (``toolbelt call think``) loads one
tool module, not fourteen. A module that fails to import (a broken install, a standard-library
module shadowed through PYTHONPATH) costs its tools only: they are left out of the listing, said
once on stderr, and a call of one is answered with the import error (``why_missing``).

``build_toolset`` composes with seed 004's three knobs, applied in this order: a base set
(explicit tools, or the ``programmatic`` preset that drops interactive and side-effecting
tools, or all built-ins), minus ``disabled`` names, plus ``extra`` tools.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType

from toolbelt.core.registry import AnyTool, CombinedToolset, ToolRegistry, Toolset

__all__ = ["BuiltinToolset", "build_toolset", "builtin_toolset"]

_BUILTINS: dict[str, tuple[str, str]] = {
    "read_file": ("read_file", "ReadFileTool"),
    "write_file": ("write_file", "WriteFileTool"),
    "edit_file": ("edit_file", "EditFileTool"),
    "multi_edit": ("multi_edit", "MultiEditTool"),
    "notebook_edit": ("notebook_edit", "NotebookEditTool"),
    "apply_patch": ("apply_patch", "ApplyPatchTool"),
    "lsp": ("lsp", "LspTool"),
    "symbol_edit": ("symbol_edit", "SymbolEditTool"),
    "glob": ("glob", "GlobTool"),
    "grep": ("grep", "GrepTool"),
    "ls": ("ls", "LsTool"),
    "bash": ("bash", "BashTool"),
    "bash_output": ("bash_output", "BashOutputTool"),
    "kill_shell": ("kill_shell", "KillShellTool"),
    "think": ("think", "ThinkTool"),
    "todo_read": ("todo", "TodoReadTool"),
    "todo_write": ("todo", "TodoWriteTool"),
    "ask_user": ("ask_user", "AskUserTool"),
    "web_fetch": ("web_fetch", "WebFetchTool"),
    "git_commit": ("git_commit", "GitCommitTool"),
    "skill": ("skill", "SkillTool"),
}
"""Tool name → (module in ``toolbelt.tools``, class), in listing order."""


class BuiltinToolset(Toolset):
    """Every built-in tool, in listing order, each created on first lookup.

    ``workspace`` and ``trusted`` tell the ``skill`` tool whose skills its description lists
    (default: the process's working directory and its stored trust), ``read_check`` which of
    the workspace's skill files it may show (the policy's read decision; default: the
    workspace's protected paths).
    """

    def __init__(
        self,
        *,
        workspace: Path | None = None,
        trusted: bool | None = None,
        read_check: Callable[[Path], bool] | None = None,
    ) -> None:
        self._loaded: dict[str, AnyTool] = {}
        self._lock = threading.Lock()
        self._skill_options = {"root": workspace, "trusted": trusted, "read_check": read_check}

    def get(self, name: str) -> AnyTool | None:
        where = _BUILTINS.get(name)
        if where is None:
            return None
        with self._lock:
            tool = self._loaded.get(name)
            if tool is None:
                module = _tool_module(where[0])
                if isinstance(module, str):
                    return None
                options = self._skill_options if name == "skill" else {}
                tool = self._loaded[name] = getattr(module, where[1])(**options)
        return tool

    def why_missing(self, name: str) -> str | None:
        where = _BUILTINS.get(name)
        failed = _FAILED_MODULES.get(where[0]) if where is not None else None
        if where is None or failed is None:
            return None
        return (
            f"The tool `{name}` is unavailable: its module toolbelt.tools.{where[0]} failed to "
            f"import ({failed}). Check the Python environment (a module named like a "
            "standard-library one on PYTHONPATH, a broken install) and restart toolbelt."
        )

    def tools(self) -> tuple[AnyTool, ...]:
        listed = (self._require(name) for name in _BUILTINS)
        return tuple(tool for tool in listed if tool is not None)

    def names(self) -> tuple[str, ...]:
        return tuple(_BUILTINS)

    def _require(self, name: str) -> AnyTool | None:
        """The tool, None when its module failed to import."""
        tool = self.get(name)
        if tool is None and self.why_missing(name) is not None:
            return None
        if tool is None or tool.name != name:
            raise RuntimeError(f"built-in tool {name!r} points at the wrong module or class")
        return tool


_FAILED_MODULES: dict[str, str] = {}
"""Tool module → its import error: said once per process, never tried again."""
_IMPORT_LOCK = threading.Lock()


def _tool_module(module: str) -> ModuleType | str:
    """``toolbelt.tools.<module>``, or its import error as one line (said once on stderr,
    naming the tools it leaves out)."""
    with _IMPORT_LOCK:
        failed = _FAILED_MODULES.get(module)
        if failed is not None:
            return failed
        try:
            return importlib.import_module(f"toolbelt.tools.{module}")
        except Exception as exc:  # whatever importing raised costs this module's tools only
            error = _FAILED_MODULES[module] = f"{type(exc).__name__}: {exc}"
        tools = ", ".join(name for name, (where, _) in _BUILTINS.items() if where == module)
        print(
            f"toolbelt: module toolbelt.tools.{module} failed to import ({error}); "
            f"left out: {tools}.",
            file=sys.stderr,
        )
        return error


def builtin_toolset(
    *,
    workspace: Path | None = None,
    trusted: bool | None = None,
    read_check: Callable[[Path], bool] | None = None,
) -> BuiltinToolset:
    """A fresh toolset holding every built-in tool, in listing order (see ``BuiltinToolset``)."""
    return BuiltinToolset(workspace=workspace, trusted=trusted, read_check=read_check)


def build_toolset(
    *,
    tools: Sequence[AnyTool] | Toolset | None = None,
    programmatic: bool = False,
    disabled: Iterable[str] = (),
    extra: Sequence[AnyTool] = (),
) -> Toolset:
    """Compose a toolset with seed 004's knobs: base set, minus ``disabled``, plus ``extra``.

    The base is ``tools`` when given, else every built-in tool; ``programmatic=True`` then
    drops tools that need a person or have outside side effects.
    """
    if tools is None:
        base: Toolset = builtin_toolset()
    elif isinstance(tools, Toolset):
        base = tools
    else:
        base = ToolRegistry(tools)
    if programmatic:
        base = base.programmatic()
    disabled_names = tuple(disabled)
    if disabled_names:
        base = base.without(*disabled_names)
    if extra:
        base = CombinedToolset(base, ToolRegistry(extra))
    return base
