"""A differential fuzzer for the Bash analyser: generated lines, judged against Bash itself.

``lines`` generates Bash lines from the grammar's node types (hypothesis strategies); ``judge``
asks the permission layer what it claims of each (read-only, or acceptEdits-safe) and checks
the claim against what real Bash did, run in a bubblewrap jail under strace (``jail``,
``driver``, ``trace``). ``known`` lists what is excused: incidental writes, and the analyser's
findings not fixed yet.
"""
