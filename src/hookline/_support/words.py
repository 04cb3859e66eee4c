"""Sets of words written as one string, as a shell would read them: ``words("-a --all -l")``."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """The words of ``text`` (split on whitespace), as a set."""
    return frozenset(text.split())
