"""A session kept in a store: the store protocol, the paused state and its format, its
encryption and seal, who holds it, and pausing and claiming it back exactly once."""
