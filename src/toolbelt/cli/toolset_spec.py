"""``--toolset MODULE:ATTR``: serve or call a toolset of the user's own instead of the built-ins.

``ATTR`` names a ``Toolset`` or a function that returns one (called once per session, so each
MCP HTTP session gets its own, opened when the session starts and closed when it ends). A
``Toolset`` object is shared by every session: it is opened when the first one starts and
closed when the last one ends (``core.shared_toolset``).

``MODULE`` is imported from the installed modules only: the current directory is never put on
``sys.path``. It is usually an untrusted repository, and with it on the path its ``openai.py``,
``concurrent.py`` or ``difflib.py`` would replace the modules toolbelt imports later — run as
the user, outside any sandbox, even for ``toolbelt:build_toolset``. A toolset in a file of its
own is named by path instead, ``./my_tools.py:toolset``: that one file is loaded under a
private module name, so it shadows nothing, and its own imports resolve to installed modules
only (a toolset spread over several modules is installed, ``pip install -e .``, and named as
``MODULE:ATTR``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from toolbelt.core.errors import UsageError
from toolbelt.core.registry import Toolset
from toolbelt.core.shared_toolset import SharedToolset

__all__ = ["ToolsetFactory", "load_toolset_factory"]

ToolsetFactory = Callable[[], Toolset]


def load_toolset_factory(spec: str) -> ToolsetFactory:
    """The factory ``spec`` (``MODULE:ATTR`` or ``FILE.py:ATTR``) names; ``UsageError``
    saying what is wrong."""
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise UsageError(
            f"--toolset wants MODULE:ATTR or FILE.py:ATTR (for example mypkg.tools:toolset or "
            f"./my_tools.py:toolset), not {spec!r}."
        )
    module = _load_file(module_name) if _names_a_file(module_name) else _import(module_name)
    value = getattr(module, attr, None)
    if value is None:
        raise UsageError(f"--toolset: module {module_name!r} has no attribute {attr!r}.")
    if isinstance(value, Toolset):
        return SharedToolset(value).lease  # one object for every session: opened once
    if not callable(value):
        raise UsageError(f"--toolset: {spec} is neither a Toolset nor a function returning one.")
    factory: Callable[[], object] = value

    def make() -> Toolset:
        made = factory()
        if not isinstance(made, Toolset):
            raise UsageError(f"--toolset: {spec}() returned {type(made).__name__}, not a Toolset.")
        return made

    return make


_FILE_MODULE = "toolbelt_toolset_file"
"""The private name a toolset file is loaded under: never the name of a module it could shadow."""


def _names_a_file(module_name: str) -> bool:
    return module_name.endswith(".py") or "/" in module_name


def _import(module_name: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        if Path(module_name.replace(".", "/") + ".py").is_file():
            raise UsageError(
                f"--toolset: {module_name!r} is not an installed module, and toolbelt never "
                f"imports from the current directory (its files could shadow installed "
                f"modules); name the file instead: --toolset ./{module_name.replace('.', '/')}"
                ".py:ATTR."
            ) from exc
        raise UsageError(f"--toolset: cannot import {module_name!r} ({exc}).") from exc


def _load_file(name: str) -> ModuleType:
    """The file ``name`` loaded alone as ``toolbelt_toolset_file`` (its directory is not put on
    the path)."""
    path = Path(name).expanduser().resolve()
    if not path.is_file() or path.suffix != ".py":
        raise UsageError(f"--toolset: {name!r} is not a Python file; name an existing .py file.")
    spec = importlib.util.spec_from_file_location(_FILE_MODULE, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"--toolset: cannot load {name!r} as a Python module.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[_FILE_MODULE] = module  # dataclasses and pydantic look their module up
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:
        del sys.modules[_FILE_MODULE]
        raise UsageError(f"--toolset: cannot load {name!r} ({exc}).") from exc
    except BaseException:
        del sys.modules[_FILE_MODULE]
        raise
    return module
