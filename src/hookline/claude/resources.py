"""Moved to ``hookline.hooks.resources``, where the engine that lends them is: this name warns,
for one release."""

from hookline._support.moved import moved

moved(__name__, "hookline.hooks.resources")

from hookline.hooks.resources import *  # noqa: E402, F403  (for readers and type checkers)
