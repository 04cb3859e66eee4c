"""The crash campaign: hookline processes SIGKILLed at random moments, each kill followed by the
checks that the audit verifies, no side effect happened twice, no process of the run remains,
and the session can be resumed or is final (``tests/test_crash_campaign.py``).

``gate`` marks the moments a kill is aimed at (standard library only: victims, the command
hook and the Bash bodies run it); ``victim`` is the process that is killed (``hookline`` itself,
or a checkpointed library agent); ``story`` runs one session from its start through its kills
and resumes to its end; ``checks`` says what each kill left; ``campaign`` runs stories until
the kills are done and sums them up.
"""
