"""The command line: thin over the public API."""
