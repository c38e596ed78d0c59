"""The MCP client: other MCP servers' tools, served under toolbelt's policy.

``config`` reads the servers' configuration (JSON only, nothing else imported); ``toolset``
turns it into tools, importing the MCP SDK — so a workspace without servers never loads it.
It is a package of its own, beside ``toolbelt.mcp`` (the server side), for that reason.
"""
