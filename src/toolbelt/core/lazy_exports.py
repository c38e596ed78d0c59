"""Names a module exports but loads only when first asked for.

A package's public names may live in modules that are heavy to import (pydantic, the tool
search index, the providers' formats); ``toolbelt mcp`` answers ``initialize`` and ``toolbelt
call`` runs a tool without them. A module hands ``lazy_exports`` a table *name → defining
module* and binds the returned function as its module-level ``__getattr__`` (PEP 562): the
first access imports the defining module and caches the value in the module's globals, so
later accesses never come back here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(module_name: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A ``__getattr__`` for ``module_name`` that loads each name of ``exports`` from its
    defining module on first use and raises the usual ``AttributeError`` for any other."""

    def attribute(name: str) -> Any:
        defining = exports.get(name)
        if defining is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(import_module(defining), name)
        vars(sys.modules[module_name])[name] = value
        return value

    return attribute
