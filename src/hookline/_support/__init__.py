"""Plumbing below the vocabulary: subprocesses, HTTP bodies, private files, JSON, safe text.

Internal to hookline; nothing here is public API."""
