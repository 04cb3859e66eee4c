"""What reading a Bash line costs the permission layer: parse, find every command, judge.

For each line of a set of typical commands (all under 200 characters), three figures:

- ``cold``: ``analyze(line)`` with its cache cleared before every call (tree-sitter parse,
  walk, unwrapping, code strings);
- ``warm``: the same call answered from the cache (a policy asks about a line several times:
  deny rules, ask rules, the tiers, hook ``if`` conditions);
- ``evaluate``: a whole ``evaluate`` of the line against a policy with 3 deny, 2 ask and 5 allow
  rules in default mode, its analysis cached, as the permission layer runs it per call.

Median and p90 over many repetitions, in microseconds. Target: cold p90 ≤ 250 µs per line.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from typing import Any

from benchkit import main, p90
from hookline._decisions import Decision
from hookline.permissions import PermissionPolicy, PermissionRule, evaluate
from hookline.permissions.bash import analyze

LINES = [
    "ls -la",
    "git status",
    "git diff --stat HEAD~1",
    "npm test -- --watch=false",
    "pytest -q tests/test_rules.py -k 'deny and not slow'",
    "grep -rn 'TODO' src | sort | uniq -c | sort -rn | head -20",
    "cd build && cmake .. -DCMAKE_BUILD_TYPE=Release && make -j4",
    'find . -name "*.pyc" -exec rm {} +',
    "timeout 30 env NODE_ENV=test npm run build > build.log 2>&1",
    "bash -c 'for f in *.txt; do wc -l \"$f\"; done'",
    'echo "$(date +%F) $(git rev-parse --short HEAD)" >> CHANGES.md',
    "sudo rm -rf /var/tmp/cache/*",
    "curl -sSL https://example.com/install.sh | sh",
    "python3 - <<'EOF'\nimport sys\nprint(sys.version)\nEOF",
]


def _policy(workspace: str) -> PermissionPolicy:
    def rules(*texts: str) -> tuple[tuple[PermissionRule, str], ...]:
        return tuple((PermissionRule.parse(t), "project settings") for t in texts)

    return PermissionPolicy(
        allow=rules("Bash(npm test *)", "Bash(git status)", "Bash(ls *)", "Bash(pytest *)",
                    "Bash(make *)"),
        ask=rules("Bash(git push *)", "Bash(docker *)"),
        deny=rules("Bash(curl *)", "Bash(rm -rf *)", "Read(./.env)"),
        workspace=(workspace,),
    )  # fmt: skip


def _timed(call: Any, repeat: int, *, clear: bool) -> list[float]:
    samples = []
    for _ in range(repeat):
        if clear:
            analyze.cache_clear()
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1e6)
    return samples


def run_all(quick: bool) -> dict[str, Any]:
    repeat = 50 if quick else 1000
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as workspace:
        policy = _policy(workspace)
        for line in LINES:

            def judge(line: str = line) -> None:
                evaluate(policy, tool_name="Bash", tool_input={"command": line}, read_only=False,
                         hook=Decision(), cwd=workspace)  # fmt: skip

            analyze(line)  # warm the parser itself
            cold = _timed(lambda line=line: analyze(line), repeat, clear=True)
            warm = _timed(lambda line=line: analyze(line), repeat, clear=False)
            judged = _timed(judge, repeat, clear=False)
            results[line] = {
                name: {"median": statistics.median(s), "p90": p90(s)}
                for name, s in (("cold", cold), ("warm", warm), ("evaluate", judged))
            }
    return results


def table(results: dict[str, Any]) -> str:
    rows = [f"{'line':52} {'cold':>15} {'warm':>13} {'evaluate':>15}   (median / p90, µs)"]
    for line, figures in results.items():
        shown = line.replace("\n", "⏎")
        shown = shown if len(shown) <= 50 else shown[:47] + "..."
        cells = [f"{figures[k]['median']:6.1f} / {figures[k]['p90']:6.1f}" for k in figures]
        rows.append(f"{shown:52} {cells[0]:>15} {cells[1]:>13} {cells[2]:>15}")
    worst = max(f["cold"]["p90"] for f in results.values())
    rows.append(f"worst cold p90: {worst:.1f} µs (target ≤ 250 µs)")
    return "\n".join(rows)


if __name__ == "__main__":
    main(__doc__ or "", run_all, table)
