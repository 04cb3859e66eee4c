"""What the audit's redactor costs: per typical record, per large output, and on 1 MB
adversarial strings (each kind's worst case: it must stay linear).

Run ``python bench/bench_redact.py`` (``--quick`` for a smoke check, ``--json`` for JSON).
The method and the detector-library comparison are written down in bench/README.md.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from time import perf_counter
from typing import Any

import benchkit  # puts ../src on sys.path when needed
from hookline.audit._redact import Redactor

#: A tool-result record as the audit redacts it (short strings, some markers: -u, ://).
RECORD = {
    "user": None, "tenant": None, "status": "executed", "duration_ms": 1.234,
    "input": {"command": "git push -u origin feature && curl -s https://api.example.com/v1 | jq .",
              "description": "Push the branch and list the items"},
}  # fmt: skip
#: Every kind's marker, so every pattern runs on the adversarial text.
MARKERS = "private key sk- k_live_ AIza gh glpat- npm_ xox authorization bearer eyJ :// -u "
MARKERS += "mysql --pass KEY SECRET TOKEN PASS PWD CREDENTIAL _PAT"
ADVERSARIAL = ["a", "A_", " -u a", "://a:", "-----BEGIN ", "eyJa.", "Bearer a", "--pass ",
               "SECRET_", "KEY=", "passw", "'", "-p", "=", "token "]  # fmt: skip


def per_call(value: Any, calls: int, rounds: int) -> float:
    """The median over ``rounds`` of µs per ``Redactor.redact`` call (a fresh redactor each
    round, so the memo of short strings is warm only within a round, as in a session)."""
    times = []
    for _ in range(rounds):
        redactor = Redactor()
        start = perf_counter()
        for _ in range(calls):
            redactor.redact(value)
        times.append((perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def run_all(quick: bool) -> dict[str, Any]:
    source = Path(__file__).resolve().parent.parent / "src" / "hookline"
    code = "".join(p.read_text() for p in sorted(source.rglob("*.py")))[:200_000]
    size = 1 << (16 if quick else 20)
    worst = {}
    for unit in ADVERSARIAL:
        text = MARKERS + unit * (size // len(unit))
        start = perf_counter()
        Redactor().text(text)
        worst[unit] = (perf_counter() - start) * 1e3
    return {
        "record_us": per_call(RECORD, 200 if quick else 5000, 5 if quick else 21),
        "source_200kb_ms": per_call(code, 1, 3 if quick else 11) / 1e3,
        "adversarial_bytes": size,
        "adversarial_ms": worst,
    }


def table(results: dict[str, Any]) -> str:
    rows = [f"typical record            {results['record_us']:8.1f} µs",
            f"200 KB of Python source   {results['source_200kb_ms']:8.1f} ms"]  # fmt: skip
    size = results["adversarial_bytes"] >> 10
    for unit, ms in sorted(results["adversarial_ms"].items(), key=lambda kv: -kv[1]):
        rows.append(f"{size} KB of {unit!r:14} {ms:8.1f} ms")
    return "\n".join(rows)


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
