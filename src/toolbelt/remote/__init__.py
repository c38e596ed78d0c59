"""A remote toolbelt server's tools as a local toolset (``RemoteToolset``).

A fleet runs one ``toolbelt mcp --http`` per task sandbox; the agent loop that drives the task
lives elsewhere and calls the sandbox's tools through ``RemoteToolset``, as if they were its
own: the same executor, events and provider formats. The remote server enforces its own
permission policy (its mode and rules); the connection is reused, calls carry an idempotency
key so a call whose connection broke is retried safely, and each call has a timeout.
"""

from __future__ import annotations

from toolbelt.remote.toolset import RemoteTool, RemoteToolset

__all__ = ["RemoteTool", "RemoteToolset"]
