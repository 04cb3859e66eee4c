"""Each test is ``unit`` or ``e2e``, by one rule that is checked while the tests run.

A test is ``e2e`` when its file is in ``E2E``: some test there starts a process (a command hook,
a Bash call, the hookline command line, bwrap, a model or MCP server) or listens on a socket (a
real HTTP server on 127.0.0.1). Every other test is ``unit``, and a unit test does neither: an
audit hook (``sys.addaudithook``) watches each unit test from its fixtures' setup to their
teardown, and one that starts a process or binds a socket fails, naming what it started and
this list. So a new test file is ``unit`` until it needs to be listed, and cannot be wrongly so.

``pytest -m unit`` runs the unit tests, ``pytest -m e2e`` the others (pytest's markers; both
are registered in pyproject.toml, where ``--strict-markers`` refuses any other).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any, Final

import pytest

#: The files whose tests start processes or listen on sockets.
#: One a line, sorted: listing a new file is a one-line change.
E2E: Final = frozenset(
    {
        "test_agent_hooks.py",
        "test_agent_lazy.py",
        "test_agents_apart.py",
        "test_approval_wire.py",
        "test_approvals.py",
        "test_approvals_trust.py",
        "test_approve_screen.py",
        "test_async_hooks.py",
        "test_at_most_once.py",
        "test_audit.py",
        "test_audit_cli.py",
        "test_audit_key_sandbox.py",
        "test_bash_attacks_e2e.py",
        "test_bash_fuzz.py",
        "test_bash_git.py",
        "test_bash_heredocs.py",
        "test_bash_subset.py",
        "test_bench_compare.py",
        "test_break_glass.py",
        "test_builtin_bash.py",
        "test_builtin_search.py",
        "test_cc_fidelity.py",
        "test_claude_p.py",
        "test_claude_p_flags.py",
        "test_cli.py",
        "test_cli_lazy.py",
        "test_cli_output.py",
        "test_cli_prompt.py",
        "test_command_hook_exits.py",
        "test_codex_cli.py",
        "test_command_hooks.py",
        "test_compaction.py",
        "test_conformance.py",
        "test_crash_campaign.py",
        "test_crash_checks.py",
        "test_credentials_env.py",
        "test_dangerous_e2e.py",
        "test_defer_deadline_e2e.py",
        "test_demo_orders.py",
        "test_doctor.py",
        "test_doctor_hosts.py",
        "test_edit_then_rewrite.py",
        "test_event_facts.py",
        "test_example_approver.py",
        "test_example_coding_guard.py",
        "test_fail_closed.py",
        "test_first_hour_cli.py",
        "test_full_disk.py",
        "test_gemini_cli.py",
        "test_git_e2e.py",
        "test_gittree.py",
        "test_hook_answers.py",
        "test_hook_output_visible.py",
        "test_hooks_cli.py",
        "test_hostile_output.py",
        "test_http_hooks.py",
        "test_inbox.py",
        "test_inbox_browser.py",
        "test_inbox_calls.py",
        "test_inbox_live.py",
        "test_install_claude_code.py",
        "test_install_codex.py",
        "test_install_managed.py",
        "test_install_cursor.py",
        "test_install_gemini.py",
        "test_interrupted_runs.py",
        "test_kinds.py",
        "test_lifecycle_attacks.py",
        "test_limits.py",
        "test_mcp.py",
        "test_model_server.py",
        "test_models_anthropic.py",
        "test_models_cli.py",
        "test_models_docs.py",
        "test_models_openai.py",
        "test_output_words.py",
        "test_outsider_attacks.py",
        "test_permissions_outcomes.py",
        "test_permit.py",
        "test_private.py",
        "test_private_reads_e2e.py",
        "test_process.py",
        "test_programs_attacks_e2e.py",
        "test_project_dir.py",
        "test_prompt_hooks.py",
        "test_protected_attacks_e2e.py",
        "test_public_api.py",
        "test_python_handlers.py",
        "test_reactions.py",
        "test_read_guard_attacks.py",
        "test_reader_gone.py",
        "test_readme.py",
        "test_redact_corpus.py",
        "test_resume.py",
        "test_resume_rejudge.py",
        "test_resume_trust.py",
        "test_runners.py",
        "test_sandbox.py",
        "test_sandbox_auto_allow.py",
        "test_sandbox_escapes.py",
        "test_sandbox_protected.py",
        "test_sdk_attacks.py",
        "test_sdk_client.py",
        "test_sdk_contract.py",
        "test_sdk_e2e.py",
        "test_sdk_e2e_hooks.py",
        "test_sdk_e2e_permissions.py",
        "test_sdk_examples.py",
        "test_sdk_sessions.py",
        "test_sdk_types.py",
        "test_replay.py",
        "test_replay_hosts.py",
        "test_inbox_notify.py",
        "test_serve.py",
        "test_serve_asks.py",
        "test_serve_asks_steps.py",
        "test_serve_notify.py",
        "test_serve_grants.py",
        "test_serve_asks_browser.py",
        "test_serve_asks_permission.py",
        "test_serve_asks_claude_code.py",
        "test_timeline.py",
        "test_serve_codex.py",
        "test_serve_cursor.py",
        "test_serve_gemini.py",
        "test_serve_gate.py",
        "test_serve_projects.py",
        "test_serve_tls.py",
        "test_serve_tokens.py",
        "test_serve_traces_e2e.py",
        "test_serve_itself.py",
        "test_serve_reload_e2e.py",
        "test_serve_workers.py",
        "test_serve_workspace.py",
        "test_session_allow.py",
        "test_session_allow_attacks.py",
        "test_session_events.py",
        "test_sessions_cli.py",
        "test_telemetry_e2e.py",
        "test_sessions_ids.py",
        "test_settings.py",
        "test_settings_confined.py",
        "test_settings_strict.py",
        "test_settings_typos.py",
        "test_storage.py",
        "test_subagents.py",
        "test_threads.py",
        "test_transcript.py",
        "test_trust.py",
        "test_typed_options.py",
        "test_visibility.py",
    }
)

#: The audit events that make a test e2e, and what each means.
STARTS: Final = {
    "subprocess.Popen": "started a process",
    "os.posix_spawn": "started a process",
    "os.spawn": "started a process",
    "os.exec": "replaced its process",
    "os.system": "started a shell",
    "os.fork": "forked",
    "os.forkpty": "forked",
    "socket.bind": "bound a socket",
}


class _Watch:
    """What the running unit test started, when one is running (audit hooks cannot be removed,
    so the hook stays and this says whether to listen)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.watching = False
        self.seen: list[str] = []

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event in STARTS and self.watching:
            with self.lock:
                self.seen.append(f"{STARTS[event]} ({event}: {_brief(args)})")

    def start(self, *, watching: bool) -> None:
        with self.lock:
            self.watching, self.seen = watching, []


_WATCH = _Watch()
sys.addaudithook(_WATCH)  # once: this module is imported once per process


def _brief(args: tuple[Any, ...]) -> str:
    """The part of an event's arguments that says what was started."""
    shown = args[1] if len(args) > 1 else args
    text = repr(shown)
    return text if len(text) <= 200 else text[:200] + "..."


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by these marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker("e2e" if item.path.name in E2E else "unit")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[Any]:
    _WATCH.start(watching=item.get_closest_marker("unit") is not None)
    try:
        return (yield)
    finally:
        _WATCH.start(watching=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    report: pytest.TestReport = yield
    if call.when == "teardown" and _WATCH.seen and report.passed:
        with _WATCH.lock:
            seen = sorted(set(_WATCH.seen))
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} is a unit test, but it {seen[0]}"
            + (f" and {len(seen) - 1} more" if len(seen) > 1 else "")
            + f". A test that starts a process or listens on a socket is e2e: add "
            f"{item.path.name!r} to E2E in tests/kinds.py."
        )
    return report
