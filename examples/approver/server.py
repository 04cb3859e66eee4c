"""A small HTTP approver for ``hookline run --approver-url``: answers from a policy file.

    python server.py --policy policy.json [--port 8777] [--token-env APPROVER_TOKEN] [--log FILE]

It listens on 127.0.0.1 only and speaks hookline's approver protocol, version 1 (the schemas
``hookline/schemas/approval-request.v1.json`` and ``approval-answer.v1.json`` in the installed
package). Each request is matched against the policy's rules in order; the first that matches
answers (``allow``, with ``"scope": "session"`` to allow what the request's ``session_scope``
names for the rest of the session; ``deny`` with a message for the model; ``pending`` to hold
the request for a person, the run pausing until ``hookline sessions resume``); with no match,
``otherwise`` answers. A rule names a ``tool`` and may add a regex for a Bash ``command`` or a
file tool's ``path`` (relative to the session's folder when the path is inside it).

With ``--token-env NAME``, a request must carry ``Authorization: Bearer <$NAME>`` (hookline
sends ``--approver-token`` or ``$HOOKLINE_APPROVER_TOKEN``), else it is answered 401. Each
request and its answer are appended to ``--log`` as one JSON line. Standard library only.
"""

from __future__ import annotations

import argparse
import hmac
import json
import os
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MAX_REQUEST = 16 << 20  # bytes: a request carries the call's whole input


def decide(policy: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    """The answer (approval-answer.v1) to ``request`` (approval-request.v1)."""
    rule = next((r for r in policy["rules"] if matches(r, request)), policy["otherwise"])
    answer: dict[str, Any] = {"version": 1, "behavior": rule["answer"]}
    if "approver" in policy:
        answer["approver"] = policy["approver"]
    if rule["answer"] == "deny":
        answer["message"] = rule.get("message") or "Denied by the approver."
    if rule.get("scope") == "session" and request.get("session_scope") is not None:
        answer["scope"] = "session"  # else there is nothing to allow for the session
    return answer


def matches(rule: dict[str, Any], request: dict[str, Any]) -> bool:
    if rule["tool"] != request["tool_name"]:
        return False
    given = request["tool_input"]
    if "command" in rule and not re.search(rule["command"], str(given.get("command", ""))):
        return False
    return "path" not in rule or bool(re.search(rule["path"], relative(given, request)))


def relative(tool_input: dict[str, Any], request: dict[str, Any]) -> str:
    """A file tool's path, relative to the folder the call runs in (the request's ``cwd``)."""
    path = str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")
    folder = request.get("cwd")
    return os.path.relpath(path, folder) if folder and os.path.isabs(path) else path


def problem(request: Any) -> str | None:
    """Why ``request`` is not an approval request this approver reads; None when it is."""
    if not isinstance(request, dict) or request.get("version") != 1:
        return "not an approval request of version 1"
    if not isinstance(request.get("tool_name"), str) or not isinstance(
        request.get("tool_input"), dict
    ):
        return "tool_name or tool_input is missing"
    return None


class Approver(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: each decision goes to --log."""

    def do_POST(self) -> None:
        token = self.server.token
        given = self.headers.get("Authorization", "")
        if token is not None and not hmac.compare_digest(given, f"Bearer {token}"):
            self.answer(401, {"error": "a bearer token is required"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 < length <= MAX_REQUEST:
            self.answer(413 if length else 400, {"error": "no request, or one too large"})
            return
        try:
            request = json.loads(self.rfile.read(length))
        except ValueError:
            request = None
        if why := problem(request):
            self.answer(400, {"error": why})
            return
        answer = decide(self.server.policy, request)
        self.server.record({"request": request, "answer": answer})
        self.answer(200, answer)

    def answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, port: int, policy: dict[str, Any], token: str | None, log: Path | None
    ) -> None:
        super().__init__(("127.0.0.1", port), Approver)
        self.policy, self.token, self.log = policy, token, log

    def record(self, entry: dict[str, Any]) -> None:
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", type=Path, required=True)
    parser.add_argument("--port", type=int, default=8777, help="0: a free one")
    parser.add_argument("--token-env", help="the variable holding the bearer token to require")
    parser.add_argument("--log", type=Path, help="append each request and answer here")
    args = parser.parse_args()
    policy = json.loads(args.policy.read_text(encoding="utf-8"))
    token = os.environ.get(args.token_env) if args.token_env else None
    if args.token_env and not token:
        parser.error(f"${args.token_env} is not set")
    server = Server(args.port, policy, token, args.log)
    print(f"approver on http://127.0.0.1:{server.server_address[1]}/approve", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
