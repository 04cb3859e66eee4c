"""One fuzzing pass: claims asked, claimed lines run in jails side by side, runs judged.

``check(lines, base=..., want=...)`` asks the permission layer about each line (in the
workspace of the jail that will run it), runs the claimed ones, ``want`` at most, in ``workers()``
jails at once, batch by batch, and judges each run. The ``Report`` counts what was generated,
claimed and checked, and holds every disagreement, each split into what a listed finding
(``known.FINDINGS``) explains and what nothing explains.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bashfuzz.jail import Jail, Run, jails, workers
from bashfuzz.judge import Claim, Disagreement, claim_of, disagreements
from bashfuzz.known import explained

#: Lines one jail runs per bubblewrap start.
BATCH = 200


@dataclass
class Report:
    lines: int = 0
    read_only: int = 0
    accept_edits: int = 0
    checked: int = 0
    timed_out: int = 0
    seconds: float = 0.0
    #: Disagreements some part of which no listed finding explains.
    new: list[Disagreement] = field(default_factory=list)
    #: Disagreements the listed findings explain, by finding.
    known: dict[str, list[Disagreement]] = field(default_factory=dict)

    def add(self, found: Disagreement) -> None:
        unexplained, by = explained(found)
        if unexplained:
            self.new.append(Disagreement(found.line, found.claim, unexplained))
        for name in by:
            self.known.setdefault(name, []).append(found)


def check(
    lines: Iterable[str],
    *,
    base: Path,
    want: int | None = None,
    progress: Callable[[Report], None] | None = None,
) -> Report:
    """Claim, run and judge ``lines`` until ``want`` claimed lines are checked (or all are)."""
    started = time.perf_counter()
    report = Report()
    pool = jails(base, workers())
    pending: list[tuple[str, Claim]] = []
    with ThreadPoolExecutor(len(pool)) as executor:
        for line in lines:
            report.lines += 1
            jail = pool[len(pending) // BATCH % len(pool)]
            claim = claim_of(line, workspace=jail.workspace, home=jail.home)
            if claim is None:
                continue
            report.read_only += claim.kind == "read-only"
            report.accept_edits += claim.kind == "acceptEdits"
            pending.append((line, claim))
            if want is not None and report.checked + len(pending) >= want:
                break
            if len(pending) == BATCH * len(pool):
                _run_all(executor, pool, pending, report)
                pending = []
                if progress:
                    progress(report)
        if pending:
            _run_all(executor, pool, pending, report)
    report.seconds = time.perf_counter() - started
    return report


def _run_all(executor: ThreadPoolExecutor, pool: list[Jail],
             pending: list[tuple[str, Claim]], report: Report) -> None:  # fmt: skip
    """Each jail's share of ``pending`` (it was claimed in that jail's workspace), at once."""
    shares = [pending[n * BATCH : (n + 1) * BATCH] for n in range(len(pool))]
    futures = [executor.submit(jail.run, [line for line, _ in share])
               for jail, share in zip(pool, shares, strict=True) if share]  # fmt: skip
    for jail, share, future in zip(pool, shares, futures, strict=False):
        runs: list[Run] = future.result()
        for (_, claim), run in zip(share, runs, strict=True):
            report.checked += 1
            report.timed_out += run.timed_out
            if found := disagreements(claim, run, jail):
                report.add(found)
