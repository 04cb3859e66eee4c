"""The model clients' own cost per tool call: a streamed remote model against the scripted model.

Run ``python bench/bench_model_clients.py`` (``--quick`` for a smoke check, ``--json`` for
JSON). The method is written down in bench/README.md: each remote configuration talks to a local
server (in its own process) that speaks the provider's wire format; the server measures its own
time, and the client's cost is what a run costs beyond the same run on the scripted model.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from time import perf_counter, process_time
from typing import Any

import benchkit  # beside this script; puts ../src on sys.path when needed
import hookline
from benchkit import SCRATCH, p90
from hookline import Agent, ScriptedModel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the fake servers

_body_seconds = 0.0  # time spent inside the tool body, summed by the body itself


@hookline.tool
def noop(x: int) -> str:
    """Do nothing and say so."""
    global _body_seconds
    start = perf_counter()
    _body_seconds += perf_counter() - start
    return "ok"


#: What the model says each turn, streamed in these pieces (the tool input in 3-character pieces).
CALL_TEXT = ["I will", " call", " noop."]
FINAL_TEXT = ["All", " done", "."]


def script(calls: int) -> list[dict[str, Any]]:
    """The scripted model's turns: the same text and calls the servers stream."""
    turns: list[dict[str, Any]] = [
        {"text": "".join(CALL_TEXT), "tool_calls": [{"id": f"call_{i}", "name": "noop",
                                                     "input": {"x": i}}]}
        for i in range(calls)
    ]  # fmt: skip
    return [*turns, {"text": "".join(FINAL_TEXT)}]


# -- the server, in a process of its own ---------------------------------------------------------


def serve(provider: str) -> None:
    """Answer chat requests until stdin closes: turn ``k`` (``k`` assistant messages so far)
    calls noop with ``x = k`` until the prompt's number of calls, then the final text; streamed
    or whole, as the request asks. Each answer is built once and kept."""
    from local_http import serve as run_server
    from model_servers import (
        Answer,
        Events,
        Json,
        ModelHandler,
        ModelServer,
        anthropic_events,
        anthropic_message,
        fragments,
        openai_chunks,
        openai_completion,
    )

    streamed, whole = (
        (openai_chunks, openai_completion)
        if provider == "openai"
        else (anthropic_events, anthropic_message)
    )
    cache: dict[tuple[int, bool, bool], Answer] = {}

    def answer(body: dict[str, Any]) -> Answer:
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        key = (turn, turn >= _calls(body), bool(body.get("stream")))
        if key not in cache:
            call = (f"call_{turn}", "noop", fragments(json.dumps({"x": turn}), 3))
            text, calls = (FINAL_TEXT, []) if key[1] else (CALL_TEXT, [call])
            made = streamed(text, calls) if key[2] else whole("".join(text), calls)
            cache[key] = Events(made) if key[2] else Json(200, made)
        return cache[key]

    class Handler(ModelHandler):
        def do_GET(self) -> None:
            stats = {"requests": len(httpd.seen), "busy": httpd.busy, "cpu": process_time()}
            httpd.seen.clear()  # the bodies are not needed: keep the memory flat
            self._send(200, json.dumps(stats).encode(), "application/json", {})

    httpd = ModelServer(answer)
    httpd.RequestHandlerClass = Handler
    with run_server(httpd):
        print(httpd.server_address[1], flush=True)
        sys.stdin.read()  # until the bench closes it


def _calls(body: dict[str, Any]) -> int:
    """How many tool calls the run wants: the prompt says it (``call noop N times``)."""
    first = body["messages"][1] if body["messages"][0]["role"] == "system" else body["messages"][0]
    content = first["content"]
    text = content if isinstance(content, str) else content[-1]["text"]
    return int(text.split()[2])


class Server:
    """The server process for one provider: its URL, and its stats over HTTP."""

    def __init__(self, provider: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", provider],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stats(self) -> dict[str, float]:
        with urllib.request.urlopen(self.url("/stats")) as answer:
            data: dict[str, float] = json.loads(answer.read())
            return data

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(10)


# -- the runs --------------------------------------------------------------------------------------


def model_for(kind: str, server: Server | None, pieces: list[str]) -> Any:
    """A fresh client for ``kind``; a remote one streams its text into ``pieces``."""
    if kind == "scripted":
        return None
    url = server.url("") if server is not None else "http://127.0.0.1:9"
    if kind.startswith("openai"):
        from hookline.models._openai import OpenAIModel

        return OpenAIModel("bench-model", base_url=url + "/v1", api_key="unused",
                           on_text=pieces.append, stream=kind == "openai")  # fmt: skip
    from hookline.models._anthropic import AnthropicModel

    return AnthropicModel("bench-model", base_url=url, api_key="unused", on_text=pieces.append)


async def one_run(kind: str, calls: int, server: Server | None) -> tuple[float, float, float]:
    """One fresh agent (and client) in a fresh temp dir: wall and CPU seconds of ``run``, and
    tool-body seconds."""
    global _body_seconds
    pieces: list[str] = []
    model = model_for(kind, server, pieces) or ScriptedModel(script(calls))
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        agent = Agent(model, tools=[noop], cwd=tmp, max_turns=calls + 1)
        _body_seconds = 0.0
        wall, cpu = perf_counter(), process_time()
        result = await agent.run(f"call noop {calls} times")
        wall, cpu = perf_counter() - wall, process_time() - cpu
        await agent.close()
    executed = sum(r.status == "executed" for r in result.tool_calls)
    streamed = kind == "scripted" or kind == "openai-whole" or "".join(pieces).endswith("done.")
    if result.stop_reason != "end_turn" or executed != calls or not streamed:
        why = f"{result.stop_reason} {result.stop_detail}, {executed}/{calls} ran"
        raise SystemExit(f"bench run went wrong ({kind}): {why}")
    return wall, cpu, _body_seconds


async def measure(kind: str, calls: int, runs: int, warmup: int) -> dict[str, Any]:
    """Warm up, then ``runs`` timed runs: medians per run and per call (µs), the tool body's
    time taken out, and the server's own time per run."""
    server = None if kind == "scripted" else Server(kind.split("-")[0])
    try:
        for _ in range(warmup):
            await one_run(kind, calls, server)
        before = server.stats() if server else {"busy": 0.0, "requests": 0}
        walls, cpus = [], []
        for _ in range(runs):
            wall, cpu, body = await one_run(kind, calls, server)
            walls.append(wall - body)
            cpus.append(cpu - body)
        after = server.stats() if server else {"busy": 0.0, "requests": 0}
    finally:
        if server is not None:
            server.close()
    per_call = [w / calls * 1e6 for w in walls]
    return {
        "model": kind, "calls": calls, "runs": runs,
        "wall_us": statistics.median(per_call), "wall_p90_us": p90(per_call),
        "cpu_us": statistics.median(cpus) / calls * 1e6,
        "server_us": (after["busy"] - before["busy"]) / runs / calls * 1e6,
        "run_ms": statistics.median(walls) * 1e3, "run_cpu_ms": statistics.median(cpus) * 1e3,
        "server_run_ms": (after["busy"] - before["busy"]) / runs * 1e3,
        "requests_per_run": after["requests"] / runs,  # the counter restarts at each stats call
    }  # fmt: skip


async def floor(provider: str, requests: int) -> dict[str, Any]:
    """The same first request, sent ``requests`` times with bare httpx2 (no SDK, no hookline)
    and its streamed answer read to the end: what any Python client pays for the HTTP alone."""
    import httpx2

    server = Server(provider)
    messages = [hookline.Message.user("call noop 10 times")]
    model = model_for(provider, server, [])
    body = model._arguments(messages, [noop.spec()], None)
    body["stream"] = True
    url = server.url("/v1/chat/completions" if provider == "openai" else "/v1/messages")
    try:
        async with httpx2.AsyncClient() as client:

            async def once() -> None:
                async with client.stream("POST", url, json=body) as answer:
                    async for _ in answer.aiter_bytes():
                        pass

            for _ in range(requests // 10):
                await once()
            before = server.stats()
            wall, cpu = perf_counter(), process_time()
            for _ in range(requests):
                await once()
            wall, cpu = perf_counter() - wall, process_time() - cpu
            after = server.stats()
    finally:
        server.close()
    return {
        "provider": provider, "requests": requests, "wall_us": wall / requests * 1e6,
        "cpu_us": cpu / requests * 1e6,
        "server_us": (after["busy"] - before["busy"]) / requests * 1e6,
    }  # fmt: skip


def own_part(provider: str, rounds: int) -> dict[str, Any]:
    """hookline's own share of one streamed call, without I/O: the request's arguments for a
    21-message conversation (the history converted once, as in a run), then the reply put
    together from the events the server sends, parsed as the SDK hands them over. µs per call."""
    import hookline.models._anthropic as anthropic_client
    import hookline.models._openai as openai_client
    from hookline._agent.messages import ToolResultBlock
    from hookline.models._partial import Reply, obj, objs
    from model_servers import anthropic_events, fragments, openai_chunks

    call = ("call_9", "noop", fragments(json.dumps({"x": 9}), 3))
    build = openai_chunks if provider == "openai" else anthropic_events
    events = [
        json.loads(line[6:])
        for event in build(CALL_TEXT, [call])
        for line in event.decode().splitlines()
        if line.startswith("data: {")
    ]
    messages = [hookline.Message.user("call noop 10 times")]
    for i in range(10):
        done = hookline.ToolCall(f"call_{i}", "noop", {"x": i})
        messages += [
            hookline.Message.assistant("".join(CALL_TEXT), (done,)),
            hookline.Message("user", (ToolResultBlock(done.id, "ok"),)),
        ]
    model = model_for(provider, None, [])
    tools = [noop.spec()]

    def once() -> hookline.Message:
        model._arguments(messages, tools, None)
        reply = Reply(lambda piece: None)
        for event in events:
            if provider == "openai":
                for choice in objs(event.get("choices")):
                    openai_client._add_delta(reply, obj(choice.get("delta")))
            else:
                anthropic_client._read(reply, event.get("type"), event)
        return reply.message()

    assert once().tool_calls[0].input == {"x": 9}
    times = []
    for _ in range(rounds):
        start = perf_counter()
        for _ in range(100):
            once()
        times.append((perf_counter() - start) / 100 * 1e6)
    return {"provider": provider, "events": len(events), "us": statistics.median(times)}


KINDS = ("scripted", "openai", "anthropic", "openai-whole")


def run_all(quick: bool) -> dict[str, Any]:
    """Every model at 10 and 50 calls per run, each under its own ``asyncio.run``; then the
    bare-HTTP floor for each provider."""
    plan = [(10, 10, 2), (50, 3, 1)] if quick else [(10, 100, 10), (50, 30, 3)]
    rows = [
        asyncio.run(measure(kind, calls, runs, warmup))
        for calls, runs, warmup in plan
        for kind in KINDS
    ]
    floors = [asyncio.run(floor(p, 100 if quick else 1000)) for p in ("openai", "anthropic")]
    own = [own_part(p, 5 if quick else 50) for p in ("openai", "anthropic")]
    return {"rows": rows, "marginal": marginal(rows), "floors": floors, "own": own}


def marginal(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per call, from the two run lengths (a two-point fit: the run's fixed cost drops out):
    each model's wall and CPU time, its server's time, and the client's own cost beyond the
    scripted model (wall less the server's time)."""
    by = {(r["model"], r["calls"]): r for r in rows}
    short, long = sorted({r["calls"] for r in rows})

    def slope(kind: str, key: str) -> float:
        return (by[kind, long][key] - by[kind, short][key]) / (long - short) * 1e3

    out = []
    for kind in KINDS:
        wall, cpu, server = (
            slope(kind, "run_ms"),
            slope(kind, "run_cpu_ms"),
            slope(kind, "server_run_ms"),
        )
        base = (slope("scripted", "run_ms"), slope("scripted", "run_cpu_ms"))
        out.append({
            "model": kind, "wall_us": wall, "cpu_us": cpu, "server_us": server,
            "client_wall_us": wall - base[0] - server, "client_cpu_us": cpu - base[1],
        })  # fmt: skip
    return out


HEADER = "model          calls/run  runs  wall µs/call  p90 µs/call  cpu µs/call  server µs/call"
ROW = (
    "{model:<13}  {calls:>9}  {runs:>4}  {wall_us:>12.1f}  {wall_p90_us:>11.1f}  {cpu_us:>11.1f}"
    "  {server_us:>14.1f}"
)


def table(results: dict[str, Any]) -> str:
    """The results as small plain-text tables."""
    lines = [HEADER, *(ROW.format(**r) for r in results["rows"])]
    lines.append("per call (fit over both run lengths): wall, CPU here, the server's own time;")
    lines.append("the client's own cost beyond the scripted model (target <= 100 µs):")
    for m in results["marginal"]:
        lines.append(
            f"  {m['model']:<13} wall {m['wall_us']:7.1f}  cpu {m['cpu_us']:7.1f}  server "
            f"{m['server_us']:6.1f}  ->  client: wall - server {m['client_wall_us']:7.1f} µs,"
            f" cpu {m['client_cpu_us']:7.1f} µs"
        )
    for f in results["floors"]:
        lines.append(
            f"floor, {f['provider']}: one bare httpx2 POST of the same request, its stream read "
            f"to the end: wall {f['wall_us']:.1f} µs, cpu {f['cpu_us']:.1f} µs, server "
            f"{f['server_us']:.1f} µs ({f['requests']} requests)"
        )
    for o in results["own"]:
        lines.append(
            f"hookline's own part, {o['provider']}: request arguments for 21 messages and the "
            f"reply from its {o['events']} events, no I/O: {o['us']:.1f} µs per call"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        benchkit.main(__doc__, run_all, table)
