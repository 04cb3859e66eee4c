"""Moved to ``hookline.hooks.sdk_matchers``: this name warns, for one release."""

from hookline._support.moved import moved

moved(__name__, "hookline.hooks.sdk_matchers")

from hookline.hooks.sdk_matchers import *  # noqa: E402, F403  (for readers and type checkers)
