"""The Claude Agent SDK's programming surface on hookline: a program written for
``claude_agent_sdk`` runs here when only its imports change (``claude_agent_sdk`` becomes
``hookline``). Its types and messages live in ``hookline.sdk.types``, its errors in
``hookline.sdk.errors``; nothing is imported here, so ``import hookline`` stays cheap.
"""
