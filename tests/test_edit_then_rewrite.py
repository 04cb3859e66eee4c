"""An input the person edited at the approval prompt, which PreToolUse hooks then rewrite, runs
only once the person has seen the final input and approved that.

The person is a real HTTP approver (a server on 127.0.0.1 answering from a list, recording what
it was shown); the tool leaves a sentinel line for each run."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, Decision, ScriptedModel, tool
from hookline._tools.approvals import HttpApprover

EDIT = {"behavior": "allow", "updatedInput": {"target": "staging"}}
APPROVE = {"behavior": "allow"}
DENY = {"behavior": "deny", "message": "not that one"}


class Person(ThreadingHTTPServer):
    """Answers each approval request with the next of ``answers``; ``shown``: what it saw."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers, self.shown = list(answers), list[dict[str, Any]]()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/approve"


class _Handler(BaseHTTPRequestHandler):
    server: Person

    def do_POST(self) -> None:
        self.server.shown.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        answer = json.dumps(self.server.answers.pop(0)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def person(request: pytest.FixtureRequest) -> Iterator[Person]:
    server = Person(request.param)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def run(tmp_path: Path, person: Person, *, rewrite: bool = True) -> tuple[Any, list[str]]:
    """The model asks to deploy prod; a hook asks for approval of every deploy, and (with
    ``rewrite``) sends each one to its canary; the person at ``person`` answers."""
    log = tmp_path / "deploys.log"

    @tool
    def deploy(target: str) -> str:
        """Deploy to a target."""
        with log.open("a") as out:
            out.write(target + "\n")
        return f"deployed {target}"

    def gate(event: Any) -> Decision:
        target = event.tool_input["target"]
        canary = target if not rewrite or target.endswith("-canary") else f"{target}-canary"
        return Decision.ask("deploys need approval", updated_input={"target": canary})

    call = {"id": "t1", "name": "deploy", "input": {"target": "prod"}}
    model = ScriptedModel([{"tool_calls": [call]}, {"text": "done"}])
    agent = Agent(model, tools=[deploy], cwd=tmp_path, approver=HttpApprover(person.url))
    agent.registry.add("PreToolUse", gate, matcher="deploy", name="canary")
    result = agent.run_sync("deploy")
    return result, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("person", [[EDIT, APPROVE]], indirect=True)
def test_the_person_approves_the_input_the_hooks_made_of_their_edit(
    tmp_path: Path, person: Person
) -> None:
    result, deployed = run(tmp_path, person)
    first, final = person.shown
    assert first["tool_input"] == {"target": "prod-canary"}
    assert final["tool_input"] == {"target": "staging-canary"}  # what will run
    assert final["original_input"] == {"target": "staging"}  # their edit
    assert "changed the input" in final["reason"]
    assert deployed == ["staging-canary"]
    assert result.tool_calls[0].status == "executed"


@pytest.mark.parametrize("person", [[EDIT, DENY]], indirect=True)
def test_a_no_to_the_final_input_runs_nothing(tmp_path: Path, person: Person) -> None:
    result, deployed = run(tmp_path, person)
    assert len(person.shown) == 2
    assert deployed == []  # the sentinel stays absent
    assert (result.tool_calls[0].status, result.tool_calls[0].reason) == ("blocked", "not that one")


@pytest.mark.parametrize("person", [[EDIT, EDIT]], indirect=True)
def test_a_second_edit_is_refused_not_rewritten_again(tmp_path: Path, person: Person) -> None:
    result, deployed = run(tmp_path, person)
    assert len(person.shown) == 2
    assert deployed == []
    assert result.tool_calls[0].status == "blocked"
    assert "edited again" in (result.tool_calls[0].reason or "")


@pytest.mark.parametrize("person", [[EDIT]], indirect=True)
def test_an_edit_the_hooks_leave_as_it_is_is_not_asked_again(
    tmp_path: Path, person: Person
) -> None:
    result, deployed = run(tmp_path, person, rewrite=False)
    assert [s["tool_input"] for s in person.shown] == [{"target": "prod"}]  # asked once
    assert deployed == ["staging"]
    assert result.tool_calls[0].status == "executed"
