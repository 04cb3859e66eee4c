"""The agent: loop, session, transcript, messages and options."""
