"""compare.py's output: the tables (with rich when it is installed, else plain text) and the
plot of cost per tool call against run length (with matplotlib, else a note saying so)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

Table = tuple[str, list[str], list[list[str]]]  # title, header, rows


def progress(what: str) -> None:
    print(f"... {what}", file=sys.stderr, flush=True)


def show(results: dict[str, Any]) -> None:
    tables = [per_call(results), hook_overhead(results), start_up(results), memory(results)]
    tables += [scale(results), dispatch(results.get("dispatch"))]
    tables += command_hooks(results.get("command_hooks"), results.get("claude_code"))
    tables.append(judged(results.get("targets")))
    m = results["machine"]
    print(f"{m['cpus']} CPUs, Python {m['python']}, {m['platform']}, load {m['load_average']}"
          f"{', quick' if results['quick'] else ''}")  # fmt: skip
    for table in tables:
        if table[2]:
            _print(table)
    for note in results["notes"]:
        print(f"note: {note}")


def _print(table: Table) -> None:
    title, header, rows = table
    if importlib.util.find_spec("rich") is not None:
        from rich.console import Console
        from rich.table import Table as RichTable

        shown = RichTable(title=title, title_justify="left")
        for i, column in enumerate(header):
            shown.add_column(column, justify="left" if i == 0 else "right", no_wrap=True)
        for row in rows:
            shown.add_row(*row)
        Console(width=None if sys.stdout.isatty() else 200).print(shown)
        return
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=True)]
    print(f"\n{title}")
    for row in [header, *rows]:
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        print("  ".join(cells))


def _label(results: dict[str, Any], name: str) -> str:
    return str(results["frameworks"].get(name, {}).get("label", name))


def _lengths(results: dict[str, Any]) -> list[int]:
    return sorted({r["calls"] for r in results["per_call"]})


def per_call(results: dict[str, Any]) -> Table:
    """µs per tool call (x hookline's) for each framework and hook count, by run length."""
    lengths = _lengths(results)
    if not lengths:
        return "", [], []
    cells = {(r["framework"], r["hooks"], r["calls"]): r for r in results["per_call"]}
    rows = []
    for fw in results["frameworks"]:
        for hooks in sorted({h for f, h, _ in cells if f == fw}):
            row = [f"{_label(results, fw)}, {hooks} hook{'s' * (hooks != 1)}"]
            for n in lengths:
                r = cells.get((fw, hooks, n))
                ratio = r and r["ratio_to_hookline"]
                row.append("-" if r is None else f"{r['median_us']:.0f}" +
                           (f" ({ratio:.1f}x)" if ratio and fw != "hookline" else ""))  # fmt: skip
            growth = [g for g in results["growth"] if (g["framework"], g["hooks"]) == (fw, hooks)]
            row.append(f"{growth[0]['ratio']:.2f}" if growth else "-")
            rows.append(row)
    header = ["µs per tool call (x hookline)", *(f"{n} calls" for n in lengths)]
    return "Cost per tool call, median", [*header, f"{lengths[-1]}/{lengths[0]}"], rows


def hook_overhead(results: dict[str, Any]) -> Table:
    lengths = _lengths(results)
    cells = {
        (a["framework"], a["hooks"], a["calls"]): a["added_us"] for a in results["hook_overhead"]
    }
    rows = [
        [f"{_label(results, fw)}, {hooks} hook{'s' * (hooks != 1)}",
         *(f"{cells[(fw, hooks, n)]:.0f}" if (fw, hooks, n) in cells else "-" for n in lengths)]
        for fw in results["frameworks"]
        for hooks in sorted({h for f, h, _ in cells if f == fw})
    ]  # fmt: skip
    header = ["µs per call, hooked - unhooked", *(f"{n} calls" for n in lengths)]
    return "What the hooks add per tool call", header, rows


def start_up(results: dict[str, Any]) -> Table:
    rows = [[s["what"], f"{s['median_ms']:.0f}", f"{s['cpu_ms']:.0f}", f"{s['peak_mib']:.1f}"]
            for s in results["startup"]]  # fmt: skip
    return "Start-up, a fresh process each", ["what", "ms", "CPU ms", "peak MiB"], rows


def memory(results: dict[str, Any]) -> Table:
    rows = [
        [_label(results, m["framework"]), f"{m['import_rss_mib']:.1f}", f"{m['peak_rss_mib']:.1f}"]
        for m in results["memory"]
    ]
    header = ["framework", "MiB after import", "peak MiB, 200 calls, 5 hooks"]
    return "Peak memory of one run, its own process", header, rows


def scale(results: dict[str, Any]) -> Table:
    rows = [
        [_label(results, s["framework"]), s["error"], "", ""] if "error" in s else
        [_label(results, s["framework"]), f"{s['sessions']} x {s['calls']}",
         f"{s['calls_per_s']:.0f}", f"{s['peak_rss_mib']:.0f}"]
        for s in results["scale"]
    ]  # fmt: skip
    header = ["framework", "sessions x calls", "tool calls/s", "peak MiB"]
    return "Sessions at once in one process, 5 hooks", header, rows


def dispatch(measured: dict[str, Any] | None) -> Table:
    """bench_dispatch.py's rows: one tool call's two hook dispatches, nothing else around."""
    if not measured or "rows" not in measured:
        return "", [], []
    rows = [[r["hooks"], f"{r['median_us']:.1f}", f"{r['added_us']:.1f}"] for r in measured["rows"]]
    header = ["hooks (bench_dispatch.py)", "µs per call", "added by the hooks"]
    return "Hook dispatch alone: both events of one call, fired", header, rows


def judged(measured: dict[str, Any] | None) -> Table:
    """targets.py's verdicts: as written, and scaled to how fast this machine ran."""
    if not measured or not measured["rows"]:
        return "", [], []
    verdict = {True: "yes", False: "NO", None: "-"}
    rows = [[r["target"], r["limit"], r["measured"], verdict[r["met"]], verdict[r["scaled"]]]
            for r in measured["rows"]]  # fmt: skip
    speed = measured["speed"]
    pace = f"{speed:.1f}x the reference loop's cost" if speed else "library loop not run"
    header = ["target", "limit", "measured", "met", f"scaled ({pace})"]
    return "Targets", header, rows


#: The command-hook rows, in order: hookline_commands.py's keys (claude_code.py's too).
COMMAND_ROWS = {
    "bare_true": "bare spawn: sh -c 'true 1'",
    "bare_true_pidfd": "bare spawn, exit read from a pidfd",
    "bare_true_x5": "bare spawns, 5 at once: sh -c 'true N'",
    "bare_python": "bare spawn: sh -c 'PYTHON hook.py 1'",
    "call_0": "tool call, no hooks",
    "call_true_1": "tool call, 1 hook: true",
    "call_true_5": "tool call, 5 hooks: true",
    "call_python_1": "tool call, 1 hook: PYTHON hook.py",
    "call_python_5": "tool call, 5 hooks: PYTHON hook.py",
    "sleep_pair": "tool call, 2 hooks that sleep 1 s",
}


def command_hooks(ours: dict[str, Any] | None, claude: dict[str, Any] | None) -> list[Table]:
    """hookline's command hooks beside the bare spawns, and Claude Code's when it ran."""
    if not ours:
        return []
    if "error" in ours:
        return [("Command hooks", ["error"], [[ours["error"]]])]
    theirs = claude if claude and "rows" in claude else None
    rows = []
    for key, what in COMMAND_ROWS.items():
        r, added = ours["rows"][key], ours["added_ms"].get(key.removeprefix("call_"))
        row = [what, f"{r['median_ms']:.2f}", f"{r['p90_ms']:.2f}", _ms(added)]
        if theirs:
            c = theirs["rows"].get(key)
            row += [
                _ms(c and c["median_ms"]),
                _ms(theirs["added_ms"].get(key.removeprefix("call_"))),
            ]
        rows.append(row)
    if theirs and (served := theirs["rows"].get("call_serve_1")):
        added = theirs["added_ms"].get("serve_1")
        rows.append(["tool call, 1 HTTP hook: hookline serve", "", "", "",
                     _ms(served["median_ms"]), _ms(added)])  # fmt: skip
    header = ["what", "hookline ms", "p90 ms", "added ms"]
    header += ["Claude Code gap ms", "added ms"] if theirs else []
    ratios = [[k, f"{v:.2f}x"] for k, v in ours["ratios"].items()]
    title = f"Command hooks{', Claude Code ' + theirs['version'] if theirs else ''}"
    return [
        (title, header, rows),
        (f"Command hooks in hookline, ratios ({ours['cpus']} cores)", ["ratio", "figure"], ratios),
    ]


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def plot(results: dict[str, Any], path: Path) -> str:
    """Cost per tool call against run length, one panel per hook count; what was done."""
    if importlib.util.find_spec("matplotlib") is None:
        return "no plot: matplotlib is not installed (pip install -e '.[bench]')"
    if not results["per_call"]:
        return "no plot: no cost per tool call was measured"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    hooks = sorted({r["hooks"] for r in results["per_call"]})
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    figure, axes = plt.subplots(1, len(hooks), figsize=(5 * len(hooks), 4.2), sharey=True)
    for ax, h in zip(axes if len(hooks) > 1 else [axes], hooks, strict=True):
        for fw in results["frameworks"]:
            points = sorted((r["calls"], r["median_us"]) for r in results["per_call"]
                            if (r["framework"], r["hooks"]) == (fw, h))  # fmt: skip
            ax.plot(*zip(*points, strict=True), marker="o", label=_label(results, fw))
        ax.set(xscale="log", yscale="log", xlabel="tool calls per run",
               title=f"{h} hook{'s' * (h != 1)}", xticks=_lengths(results))  # fmt: skip
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
        ax.grid(True, which="major", alpha=0.3)
    axes_list = list(axes) if len(hooks) > 1 else [axes]
    axes_list[0].set_ylabel("µs per tool call (median)")
    axes_list[0].legend(fontsize="small")
    figure.suptitle(f"Cost per tool call against run length ({results['machine']['date']})")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return f"plot written to {path}"
