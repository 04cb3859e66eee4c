"""What the bench scripts share: the checkout's ``src`` on ``sys.path``, a scratch folder,
the p90 they all report, and the ``--quick`` / ``--json`` command line."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    import hookline  # noqa: F401
except ModuleNotFoundError:  # not installed: use the checkout's src/
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

#: Project dirs and transcripts go to memory (tmpfs) when the machine has it: on this VM's disk
#: the one file a run creates took anywhere from 0.04 to 1.4 ms, which measures the disk, not
#: the harness.
SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def p90(values: list[float]) -> float:
    """The inclusive upper decile (the one value itself when there is only one)."""
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if values[1:] else values[0]


def main(doc: str, run_all: Callable[[bool], dict[str, Any]], table: Callable[[Any], str]) -> None:
    """Parse ``--quick`` and ``--json``, run, and print the results as a table or as JSON."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--quick", action="store_true", help="few repetitions: a smoke check")
    args = parser.parse_args()
    results = run_all(args.quick)
    print(json.dumps(results, indent=2) if args.json else table(results))
