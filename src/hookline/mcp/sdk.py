"""Moved to ``hookline.mcp.mcp_client``: this name warns, for one release."""

from hookline._support.moved import moved

moved(__name__, "hookline.mcp.mcp_client")

from hookline.mcp.mcp_client import *  # noqa: E402, F403  (for readers and type checkers)
