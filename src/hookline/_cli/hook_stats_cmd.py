"""``hookline hooks stats``: how each hook did, from the audit: runs, decisions, latency, failures.

    hookline hooks stats [--session ID] [--since 1d] [--until T] [--slow-ms 1000] [--json]
                         [--tenant T] [--agent A] [--user U] [--host H]

One line per hook (its name and event): how many times it ran, what it decided (each decision
counted; ``none`` for a run that decided nothing), its p50, p95 and slowest time in
milliseconds, and its failures by kind (``timeout``, ``exception``: it raised or crashed,
``invalid``: its output was not an answer, ``wrong_event``, ``cancelled``), slowest p95 first.
A hook whose p95 is over ``--slow-ms`` is marked ``slow``, and a last line names those: the
hooks that make people wait.

It reads what ``hookline audit`` reads (``--cwd``, ``--store``): with ``--tenant``, ``--agent``,
``--user`` or ``--host``, only those callers' records (``hookline.audit._callers``). It checks
the records first as ``hookline audit verify`` does: when a check fails, the numbers are still
printed, a line on stderr says the audit is not verified and why, ``--json`` says
``"verified": false`` with the problems, and the exit code is 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from hookline._cli.audit_rows import HOOK_CHARS
from hookline._cli.audit_source import (
    by_caller,
    narrowing,
    opened,
    said_unverified,
    session_named,
    unverified,
    where,
)
from hookline._cli.columns import print_aligned
from hookline._cli.render import echo, emit_json
from hookline._support.display import shown
from hookline.audit._health import HookHealth, health

if TYPE_CHECKING:
    from hookline.audit._callers import Callers

COLUMNS = ("HOOK", "EVENT", "RUNS", "DECISIONS", "P50 MS", "P95 MS", "MAX MS", "SLOW", "FAILURES")
#: The p95 over which a hook is called slow unless ``--slow-ms`` says otherwise.
SLOW_MS = 1000.0


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@where
@narrowing
@by_caller
@click.option(
    "--slow-ms",
    type=click.FloatRange(min=0),
    default=SLOW_MS,
    show_default=True,
    help="Mark a hook slow when its p95 is over this many milliseconds.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object: the hooks, and the check.")
def stats(
    cwd: str,
    store_url: str | None,
    session: str | None,
    since: float | None,
    until: float | None,
    callers: Callers,
    slow_ms: float,
    as_json: bool,
) -> None:
    """How each hook did, from the audit: runs, decisions, p50/p95/max latency and failures.

    Slowest first; a hook whose p95 is over --slow-ms is marked slow. Exit 1 when the audit
    does not verify (the numbers are printed all the same, and say so).
    """
    with opened(cwd, store_url) as store:
        session = session_named(store, session)
        rows = store.audit_rows(session_id=session, since=since, until=until, tenant=callers.tenant)
        problems = unverified(cwd, store_url, store)
    hooks = health(callers.rows(rows))
    if as_json:
        emit_json(_as_json(hooks, slow_ms, problems))
    elif hooks:
        print_aligned(COLUMNS, [_cells(hook, slow_ms) for hook in hooks])
        echo(_verdict(hooks, slow_ms))
    else:
        echo("no hook runs match", err=True)
    if problems:
        said_unverified("hookline hooks stats", problems)
        raise SystemExit(1)


def _as_json(hooks: list[HookHealth], slow_ms: float, problems: list[str]) -> dict[str, Any]:
    return {
        "verified": not problems,
        "problems": problems,
        "slow_ms": slow_ms,
        "hooks": [hook.to_dict(slow_ms=slow_ms) for hook in hooks],
    }


def _cells(hook: HookHealth, slow_ms: float) -> tuple[str, ...]:
    name = hook.hook if len(hook.hook) <= HOOK_CHARS else hook.hook[: HOOK_CHARS - 3] + "..."
    return (
        shown(name),
        shown(hook.event),
        str(hook.runs),
        _counts(hook.decisions),
        _ms(hook.percentile(50)),
        _ms(hook.percentile(95)),
        _ms(hook.slowest),
        "slow" if _slow(hook, slow_ms) else "-",
        _counts(hook.failures) or "-",
    )


def _verdict(hooks: list[HookHealth], slow_ms: float) -> str:
    """The last line: which hooks make people wait, by their p95."""
    slow = [hook for hook in hooks if _slow(hook, slow_ms)]
    if not slow:
        return f"no hook's p95 is over {slow_ms:g} ms"
    named = ", ".join(_named(hook) for hook in slow)
    return f"{len(slow)} hook{'s' if len(slow) > 1 else ''} with a p95 over {slow_ms:g} ms: {named}"


def _named(hook: HookHealth) -> str:
    return f"{shown(hook.hook)} ({shown(hook.event)}, p95 {_ms(hook.percentile(95))} ms)"


def _slow(hook: HookHealth, slow_ms: float) -> bool:
    p95 = hook.percentile(95)
    return p95 is not None and p95 > slow_ms


def _counts(counts: Any) -> str:
    return ", ".join(f"{shown(word)} {count}" for word, count in counts.most_common())


def _ms(value: float | None) -> str:
    """Milliseconds: two decimals under 10 ms (a Python hook's hundredths), one above."""
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"
