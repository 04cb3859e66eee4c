"""Moved to ``hookline.settings_layers``: this name warns, for one release."""

from hookline._support.moved import moved

moved(__name__, "hookline.settings_layers")

from hookline.settings_layers import *  # noqa: E402, F403  (for readers and type checkers)
