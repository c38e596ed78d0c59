"""Built-in tools, one module each; ``builtin_toolset()`` lists them in a fixed order.

Tool modules import only pydantic and the core at import time; heavy libraries (tree-sitter,
charset-normalizer, pypdf, httpx) are imported inside the functions that need them, so listing
or validating tools stays cheap.
"""

from __future__ import annotations

from toolbelt.core.registry import ToolRegistry

__all__ = ["builtin_toolset"]


def builtin_toolset() -> ToolRegistry:
    """A fresh registry holding every built-in tool, in listing order."""
    from toolbelt.tools.bash import BashTool
    from toolbelt.tools.bash_output import BashOutputTool
    from toolbelt.tools.edit_file import EditFileTool
    from toolbelt.tools.glob import GlobTool
    from toolbelt.tools.grep import GrepTool
    from toolbelt.tools.kill_shell import KillShellTool
    from toolbelt.tools.ls import LsTool
    from toolbelt.tools.multi_edit import MultiEditTool
    from toolbelt.tools.notebook_edit import NotebookEditTool
    from toolbelt.tools.read_file import ReadFileTool
    from toolbelt.tools.think import ThinkTool
    from toolbelt.tools.todo import TodoReadTool, TodoWriteTool
    from toolbelt.tools.write_file import WriteFileTool

    return ToolRegistry(
        [
            ReadFileTool(),
            WriteFileTool(),
            EditFileTool(),
            MultiEditTool(),
            NotebookEditTool(),
            GlobTool(),
            GrepTool(),
            LsTool(),
            BashTool(),
            BashOutputTool(),
            KillShellTool(),
            ThinkTool(),
            TodoReadTool(),
            TodoWriteTool(),
        ]
    )
