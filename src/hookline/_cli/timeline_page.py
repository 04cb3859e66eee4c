"""A session's timeline as one self-contained HTML page: no script, no network, styles inline.

Every recorded value is escaped for HTML after it is made safe to print (``shown``: control
characters, bidirectional overrides and look-alikes marked), so a tool input holding markup,
escapes or a ``<script>`` shows as text. Each step is a row; its hooks are a ``details`` block
that opens on a click. The hook health panel is the session's ``hooks stats``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from hookline._support.display import shown
from hookline.audit._health import HookHealth
from hookline.audit._timeline import HookMark, Step

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d1d1f}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;width:100%}td,th{padding:4px 8px;border-bottom:1px solid #ddd;
text-align:left;vertical-align:top}th{background:#f4f4f6}
.kind{font-weight:600;white-space:nowrap}.detail{font-family:ui-monospace,monospace;
white-space:pre-wrap;word-break:break-all;max-width:640px}
.deny,.blocked,.failed{color:#b00020;font-weight:600}.allow,.executed{color:#0a7d32}
.ask,.defer,.deferred{color:#9a6700;font-weight:600}.shadow{color:#666;font-style:italic}
.slow{color:#b00020;font-weight:600}
"""


def page(session: str, steps: list[Step], hooks: list[HookHealth], *, slow_ms: float) -> str:
    """The whole page for one session."""
    rows = "".join(_step(step, steps[0].time if steps else 0.0) for step in steps)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>hookline timeline {_e(session)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>Session <span id='session'>{_e(session)}</span></h1>"
        f"<p>{len(steps)} steps</p>"
        "<table id='steps'><thead><tr><th>+s</th><th>step</th><th>what</th><th>decision</th>"
        f"<th>by</th><th>ms</th><th>hooks</th></tr></thead><tbody>{rows}</tbody></table>"
        f"<h2>Hook health</h2>{_health(hooks, slow_ms)}</body></html>"
    )


def _step(step: Step, start: float) -> str:
    decision = step.decision or ""
    word = decision.split(" ")[0]
    reason = f"<div>{_e(step.reason)}</div>" if step.reason else ""
    return (
        f"<tr class='step {_e(step.kind)}'><td>{step.time - start:.3f}</td>"
        f"<td class='kind'>{_e(step.kind)}</td>"
        f"<td><div>{_e(step.title)}</div><div class='detail'>{_e(step.detail)}</div></td>"
        f"<td class='{_e(word)}'>{_e(decision)}{reason}</td><td>{_e(step.who or '')}</td>"
        f"<td>{_ms(step.ms)}</td><td>{_hooks(step.hooks)}</td></tr>"
    )


def _hooks(marks: Iterable[HookMark]) -> str:
    items = [_mark(mark) for mark in marks]
    if not items:
        return ""
    return f"<details><summary>{len(items)} hooks</summary><ul>{''.join(items)}</ul></details>"


def _mark(mark: HookMark) -> str:
    decision = mark.decision or "no decision"
    said = f"would {decision}" if mark.shadow else decision
    failure = f" ({_e(mark.failure)})" if mark.failure else ""
    reason = f": {_e(mark.reason)}" if mark.reason else ""
    kind = "shadow" if mark.shadow else _e(decision)
    return (
        f"<li class='hook'>{_e(mark.event)} <b>{_e(mark.hook)}</b> "
        f"<span class='{kind}'>{_e(said)}</span>{failure}{reason} {_ms(mark.ms)} ms</li>"
    )


def _health(hooks: list[HookHealth], slow_ms: float) -> str:
    if not hooks:
        return "<p>No hook ran.</p>"
    head = "<tr><th>hook</th><th>event</th><th>runs</th><th>p50 ms</th><th>p95 ms</th>"
    head += "<th>max ms</th><th>failures</th></tr>"
    rows = []
    for hook in hooks:
        p95 = hook.percentile(95)
        slow = " class='slow'" if p95 is not None and p95 > slow_ms else ""
        failures = ", ".join(f"{k} {n}" for k, n in hook.failures.items())
        rows.append(
            f"<tr{slow}><td>{_e(hook.hook)}</td><td>{_e(hook.event)}</td><td>{hook.runs}</td>"
            f"<td>{_ms(hook.percentile(50))}</td><td>{_ms(p95)}</td>"
            f"<td>{_ms(hook.percentile(100))}</td><td>{_e(failures)}</td></tr>"
        )
    return f"<table id='health'>{head}{''.join(rows)}</table>"


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _e(text: object) -> str:
    """A recorded value, safe to print (``shown``), then escaped for HTML."""
    return html.escape(shown(str(text)), quote=True)
