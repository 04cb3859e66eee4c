"""``hookline demo``: four scenarios, offline, in a throwaway workspace."""

from hookline._demo.scenarios import run_demo

__all__ = ["run_demo"]
