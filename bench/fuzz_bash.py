"""The differential fuzzer at scale: 20,000 generated Bash lines judged against Bash itself.

```
python bench/fuzz_bash.py                    # 20,000 lines, fresh ones each run
python bench/fuzz_bash.py --lines 2000       # fewer
python bench/fuzz_bash.py --derandomize      # the same lines every run
python bench/fuzz_bash.py --json             # the figures and findings as JSON
```

Lines come from the fuzzer's grammar (tests/bashfuzz/lines.py); each line the permission
layer auto-allows (read-only in default mode, or a provable edit in acceptEdits) runs under
strace in a bubblewrap jail, and what Bash started and changed is judged against the claim
(tests/bashfuzz/judge.py). It prints how many lines were generated, claimed and checked, the
time taken, and every disagreement: those a listed finding explains (tests/bashfuzz/known.py)
counted per finding with an example, and each one nothing explains in full. Needs bubblewrap
and strace.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import benchkit  # noqa: F401  # beside this script; puts ../src on sys.path when needed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bashfuzz.check import Report, check
from bashfuzz.jail import missing
from bashfuzz.judge import Disagreement
from bashfuzz.lines import generate

#: Lines hypothesis draws per round (fresh lines come in rounds; repeats are dropped).
ROUND = 2_000


def lines(total: int, *, derandomize: bool) -> Iterator[str]:
    """``total`` distinct lines at most, round by round (a derandomized run stops after one
    round's worth of distinct lines: every round would draw the same)."""
    seen: set[str] = set()
    rounds = 0
    while len(seen) < total and rounds < (1 if derandomize else 4 * total // ROUND + 4):
        rounds += 1
        for line in generate(min(ROUND, total) if not derandomize else total,
                             derandomize=derandomize):  # fmt: skip
            if line not in seen and len(seen) < total:
                seen.add(line)
                yield line


def shown(report: Report) -> str:
    out = [
        f"lines generated: {report.lines}",
        f"claimed read-only: {report.read_only}; acceptEdits-safe: {report.accept_edits}",
        f"checked against Bash: {report.checked} (timed out: {report.timed_out})",
        f"time: {report.seconds:.0f} s ({report.seconds / max(report.checked, 1) * 1000:.0f} ms "
        "a checked line)",
        f"disagreements a listed finding explains: {sum(len(v) for v in report.known.values())}",
    ]
    for name, found in sorted(report.known.items()):
        out.append(f"  {name}: {len(found)}, e.g. {found[0].line!r}")
    out.append(f"disagreements nothing explains: {len(report.new)}")
    out += [str(found) for found in report.new]
    return "\n".join(out)


def listed(found: list[Disagreement]) -> list[dict[str, object]]:
    return [{"line": f.line, "claim": f.claim, "seen": list(f.seen)} for f in found]


def as_json(report: Report) -> str:
    return json.dumps({"lines": report.lines, "read_only": report.read_only,
                       "accept_edits": report.accept_edits, "checked": report.checked,
                       "timed_out": report.timed_out, "seconds": round(report.seconds, 1),
                       "known": {k: listed(v) for k, v in report.known.items()},
                       "new": listed(report.new)}, indent=2)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000, help="lines to generate")
    parser.add_argument("--derandomize", action="store_true", help="the same lines every run")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if hint := missing():
        sys.exit(f"bench/fuzz_bash.py needs bubblewrap and strace (fix: {hint})")
    base = Path(tempfile.mkdtemp(prefix="fuzz-bash-"))
    try:
        report = check(lines(args.lines, derandomize=args.derandomize), base=base,
                       progress=None if args.json else _progress)  # fmt: skip
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(as_json(report) if args.json else shown(report))


def _progress(report: Report) -> None:
    print(f"... {report.lines} lines, {report.checked} checked, {len(report.new)} unexplained",
          file=sys.stderr, flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
