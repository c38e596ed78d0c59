"""toolbelt's tools inside other agent frameworks, in-process (no MCP hop).

Each integration is one module that imports its framework, so importing this package costs
nothing: ``toolbelt.integrations.pydantic_ai`` needs ``pydantic-ai``,
``toolbelt.integrations.openai_agents`` needs ``openai-agents``.
"""
