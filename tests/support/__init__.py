"""Test helpers shared across test packages (the loopback fake model provider)."""
