"""Startup as users meet it: ``import hookline``, a script's first import, ``hookline --version``.

Run ``python bench/bench_startup.py`` (``--quick`` for a smoke check, ``--json`` for JSON).
Every sample is a fresh process: wall time from spawn to exit, and the process's own peak
memory (``ru_maxrss`` from ``os.wait4``), both taken by a small spawner process (see
``SPAWNER``). The cases run in rounds, one sample each, their order rotating by one place each
round so that the load of a shared machine falls on all of them alike; the table gives the
median and the p90.

``HOOKLINE_SRC=DIR`` measures the hookline in ``DIR`` (another checkout's ``src``) instead of
this one, so two versions compare in one sitting (``git archive HEAD src | tar -x -C /tmp/old``).

Bytecode is cached as it is for an installed package, but in a private folder
(``PYTHONPYCACHEPREFIX``): the warm-up rounds fill it, and the checkout is not written to.
The method and the figures are in bench/README.md ("Speed as users run it").
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

import benchkit  # beside this script; puts ../src on sys.path when needed
import hookline
from benchkit import p90

#: The console script beside this interpreter, as ``pip install`` writes it; else its body.
_SCRIPT = Path(sys.executable).with_name("hookline")
_CLI = (
    [str(_SCRIPT)]
    if _SCRIPT.is_file()
    else [sys.executable, "-c", "import sys; from hookline._cli.main import main; sys.exit(main())"]
)

#: name -> (argv, target in ms or None). The first case is the floor the others stand on.
CASES: dict[str, tuple[list[str], float | None]] = {
    "python -c pass": ([sys.executable, "-c", "pass"], None),
    "import hookline": ([sys.executable, "-c", "import hookline"], 100.0),
    "from hookline import Agent, Decision, tool": (
        [sys.executable, "-c", "from hookline import Agent, Decision, tool"],
        None,
    ),
    "import hookline._cli.main": ([sys.executable, "-c", "import hookline._cli.main"], None),
    "hookline --version": ([*_CLI, "--version"], 150.0),
    "hookline --help": ([*_CLI, "--help"], None),
}


def child_env(cache: str) -> dict[str, str]:
    """The environment of every sample: bytecode cached in ``cache``, hookline importable
    (from ``HOOKLINE_SRC`` when set)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    src = os.environ.get("HOOKLINE_SRC") or str(Path(hookline.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return env


#: A small process that spawns each sample and waits for it. Linux carries a process's peak
#: memory across ``exec`` from the process it was spawned by, so spawning from this script
#: (which has imported hookline) would give every sample this script's peak; this spawner's
#: peak (a bare ``python -S``, about 9 MiB) is below any sample's.
SPAWNER = r"""
import os, sys, time
null = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
for line in sys.stdin:
    argv = line.rstrip("\n").split("\0")
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=null)
    _, status, usage = os.wait4(pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    cpu = (usage.ru_utime + usage.ru_stime) * 1000
    print(elapsed, cpu, usage.ru_maxrss, os.waitstatus_to_exitcode(status), flush=True)
"""


class Sample(NamedTuple):
    """One process: ms from spawn to exit, CPU ms it used (user and system), peak MiB."""

    ms: float
    cpu_ms: float
    peak_mib: float


class Spawner:
    """The spawner process: ``sample(argv)`` runs one process and measures it."""

    def __init__(self, env: dict[str, str]) -> None:
        argv = [sys.executable, "-S", "-c", SPAWNER]
        pipe = subprocess.PIPE
        self.proc = subprocess.Popen(argv, env=env, stdin=pipe, stdout=pipe, text=True)

    def sample(self, argv: list[str]) -> Sample:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write("\0".join(argv) + "\n")
        self.proc.stdin.flush()
        elapsed, cpu, peak_kib, code = self.proc.stdout.readline().split()
        if code != "0":  # its stderr went to ours
            raise SystemExit(f"{' '.join(argv)} exited {code}")
        return Sample(float(elapsed), float(cpu), int(peak_kib) / 1024)

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


def run_all(quick: bool) -> dict[str, Any]:
    warmup, rounds = (2, 5) if quick else (3, 31)
    names = list(CASES)
    times: dict[str, list[float]] = {name: [] for name in names}
    rss: dict[str, list[float]] = {name: [] for name in names}
    cache = tempfile.mkdtemp(prefix="hookline-pyc-")
    spawner = Spawner(child_env(cache))
    try:
        for index in range(warmup + rounds):
            shift = index % len(names)
            for name in names[shift:] + names[:shift]:
                sample = spawner.sample(CASES[name][0])
                if index >= warmup:
                    times[name].append(sample.ms)
                    rss[name].append(sample.peak_mib)
    finally:
        spawner.close()
        shutil.rmtree(cache, ignore_errors=True)
    return {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "rounds": rounds,
        "cases": [
            {
                "case": name,
                "median_ms": statistics.median(times[name]),
                "p90_ms": p90(times[name]),
                "peak_mib": statistics.median(rss[name]),
                "target_ms": CASES[name][1],
            }
            for name in names
        ],
    }


def table(results: dict[str, Any]) -> str:
    floor = results["cases"][0]["median_ms"]
    lines = [
        f"{results['cpus']} CPUs, Python {results['python']}, {results['rounds']} rounds",
        f"{'case':<44}{'median ms':>10}{'p90 ms':>9}{'x floor':>9}{'peak MiB':>10}  target",
    ]
    for row in results["cases"]:
        target = row["target_ms"]
        verdict = "" if target is None else f"<= {target:.0f} ms "
        if target is not None:
            verdict += "PASS" if row["median_ms"] <= target else "MISS"
        lines.append(
            f"{row['case']:<44}{row['median_ms']:>10.1f}{row['p90_ms']:>9.1f}"
            f"{row['median_ms'] / floor:>9.2f}{row['peak_mib']:>10.1f}  {verdict}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    benchkit.main(__doc__ or "", run_all, table)
