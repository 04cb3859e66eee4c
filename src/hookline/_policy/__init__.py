"""The active policy as a fact: what decides, in words and as one digest.

inventory  one row per registered hook, as people read it (``hookline hooks`` and the policy)
view       the policy as loaded (hooks, permission mode and rules, the tiers) as JSON-ready data
digest     sha256 over every input that decides: settings layers, hooks files, hook code, and
           the policy as loaded; the same for ``hookline policy``, a served record, a run
words      the policy in words, for a person (or an agent asking why it was refused)
"""
