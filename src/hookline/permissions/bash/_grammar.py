"""tree-sitter's Bash grammar: one parser per thread, and a time budget per line."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

#: Seconds tree-sitter may take over one line before it counts as unknowable.
PARSE_BUDGET = 0.25

_local = threading.local()


def parse(source: bytes) -> Node | None:
    """The syntax tree of ``source``; None when parsing takes longer than ``PARSE_BUDGET``
    (tree-sitter's error recovery can take seconds on crafted input)."""
    parser = _parser()
    deadline = time.perf_counter() + PARSE_BUDGET
    try:
        tree = parser.parse(
            lambda offset, _point: source[offset : offset + 65536],
            progress_callback=lambda *_: time.perf_counter() > deadline,
        )
    except ValueError:  # cancelled: the parser keeps its half-done state until reset
        parser.reset()
        return None
    return tree.root_node


def _parser() -> Parser:
    """This thread's parser (a tree-sitter parser is not safe to share between threads)."""
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = _new_parser()
    return parser


def _new_parser() -> Parser:
    try:
        import tree_sitter_bash
        from tree_sitter import Language, Parser
    except ImportError as exc:  # a broken install: every line is unknowable, and says why
        raise ImportError(
            f"the Bash parser is not installed ({exc}; fix: pip install tree-sitter-bash)"
        ) from exc
    return Parser(Language(tree_sitter_bash.language()))
