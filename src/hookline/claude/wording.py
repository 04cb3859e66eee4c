"""Moved to ``hookline.wording``, the vocabulary layer: this name warns, for one release."""

from hookline._support.moved import moved

moved(__name__, "hookline.wording")

from hookline.wording import *  # noqa: E402, F403  (for readers and type checkers)
