"""Tools: definitions, the built-in tools, and the tool pipeline."""
