"""Model clients: the scripted model and the rule-based mock (no network, no API key)."""
