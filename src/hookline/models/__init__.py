"""Model clients: the offline doubles (``ScriptedModel``, ``RuleModel``: no network, no API key)
and the real ones, each on its provider's official SDK, an optional extra
(``hookline.models.openai.OpenAIModel``, ``hookline.models.anthropic.AnthropicModel``).
``hookline.models.choice`` turns a ``--model`` value into one; docs/models.md says how to write
your own.
"""
