"""Hooks: specs, the registry, runners and the engine."""
