"""Model clients: the offline doubles (``ScriptedModel``, ``RuleModel``: no network, no API key)
and the real ones, each on its provider's official SDK, an optional extra (``OpenAIModel``:
``pip install 'hookline[openai]'``, ``AnthropicModel``: ``pip install 'hookline[anthropic]'``).
``model_from_spec`` turns a ``--model`` value into one; ``ScriptServer`` answers as those APIs
would, from a ``Script``, offline; docs/models.md says how to write your own. Each name is
imported when first used, so a provider's SDK loads only for the client that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hookline._support.exports import Exports

if TYPE_CHECKING:  # the table below, for type checkers (a test keeps the two equal)
    from hookline.models._anthropic import AnthropicModel as AnthropicModel
    from hookline.models._choice import model_from_spec as model_from_spec
    from hookline.models._fallback import FallbackModel as FallbackModel
    from hookline.models._openai import OpenAIModel as OpenAIModel
    from hookline.models._rule_model import RuleModel as RuleModel
    from hookline.models._scripted import Script as Script
    from hookline.models._scripted import ScriptedModel as ScriptedModel
    from hookline.models._serve import ScriptServer as ScriptServer

#: The public names, by where each is defined (``__all__`` is made from it).
_EXPORTS: Final = Exports.of(
    __name__,
    {
        "hookline.models._anthropic": ("AnthropicModel",),
        "hookline.models._choice": ("model_from_spec",),
        "hookline.models._fallback": ("FallbackModel",),
        "hookline.models._openai": ("OpenAIModel",),
        "hookline.models._rule_model": ("RuleModel",),
        "hookline.models._scripted": ("Script", "ScriptedModel"),
        "hookline.models._serve": ("ScriptServer",),
    },
)

__all__ = _EXPORTS.names
__getattr__ = _EXPORTS.get
__dir__ = _EXPORTS.dir
