"""A paused session as data: everything a resume in another process needs, schema-versioned.

A run pauses when a call is deferred (a hook's defer, or an ask nobody can answer now). What
is saved: the session (id, folders, scope), the conversation, the turn in progress (its prompt,
steps, the calls already done) and the batch that paused, call by call: the result of each call
that finished (it never runs again) or nothing for each call still waiting for an answer.
Tool definitions, hooks and the model are not data: a resume rebuilds them.

Reading is strict: the saved JSON must match a typed model (``SavedState``: every field of the
right type, the permission mode one hookline knows, the folders absolute), or it is refused as
damaged before anything is claimed or run; nothing is coerced. Saving writes the same model, so
what is saved is what is read. A tool call and its result are their dataclasses (``ToolCall``,
``ToolResult``) in that model: a field added to ``ToolResult`` is saved and read back with no
edit here, and a state saved before it existed loads with the field's default.

Versions: 5 (this one) keeps, with a pause that has a deadline (``defer_deadline``), the time
its waiting calls stop waiting (``Turn.deadline``, and on each deferred result): a resume after
it gives them the expiry answer (``hookline._agent.saved.deadline``). A state of version 4 or
older has none: it waits as long as it is kept. An older hookline refuses version 5 rather
than resume a call past its deadline. 4 keeps, in a batch, the calls whose body started and
whose result is not saved yet (``Turn.started``): the one place a resume, crash recovery and a
checkpoint read to tell whether a call may have run, so none runs twice on its own. It also
notes, for a session interrupted (Ctrl-C, an error) while it ran, the status it had
(``interrupted_from``). 3 is sealed: the save adds a keyed hash (``hookline._agent.saved.seal``),
so a resume can refuse a state edited outside hookline. 2 saves, in the CLI's launch, a
fingerprint of every settings layer and hook file the run was built with, so a resume can
refuse settings changed under a paused session; it has no seal. 1 had no fingerprints; it is
read the same way, and its settings count as changed (``hookline sessions resume
--reload-settings`` resumes it). A save also notes how long the transcript was
(``transcript_size``, read when present): a resume cuts what a killed process wrote after it.
A state of version 3 or older has no started marks: read as one where none started (a hookline
that reads up to 3 refuses a 4, rather than run a started call again). Any other version is
refused.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal, NotRequired, cast

from pydantic import Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from hookline._agent.messages import Block, Message, TextBlock, ToolResultBlock, Usage
from hookline._agent.result import StopReason
from hookline._agent.saved.hidden import revealed
from hookline._errors import ConfigError
from hookline._events import PermissionMode
from hookline._tools.base import ToolCall, ToolResult

#: The version of this layout, written by every save.
STATE_VERSION = 5
#: The versions a resume reads; it refuses any other: it cannot know what it means.
READABLE_VERSIONS = (1, 2, 3, 4, 5)
#: The first version whose saves are sealed with a keyed hash.
SEALED_SINCE = 3


@dataclass
class Turn:
    """One prompt's work so far: what the loop carries, and what a pause saves."""

    prompt: str
    steps: int = 0
    stop_blocks: int = 0
    final_text: str = ""
    calls: list[ToolResult] = field(default_factory=list)
    stop_reason: StopReason = "end_turn"
    detail: str | None = None
    #: A paused batch, in the model's order: each call with its result, or None while it waits.
    batch: list[tuple[ToolCall, ToolResult | None]] = field(default_factory=list)
    #: Tokens this turn's model calls reported (not saved with a pause); None: none reported.
    usage: Usage | None = None
    #: The calls of ``batch`` whose body started and whose result is not saved: a crash there
    #: leaves each one's outcome unknown. Saved just before the body (and the audit's
    #: write-ahead record), so a call without this mark never started.
    started: list[str] = field(default_factory=list)
    #: Saved at every step (``checkpoint=True``, or a turn a resume took up); not saved.
    checkpointed: bool = False
    #: When the paused batch's waiting calls stop waiting (seconds since the epoch): a resume
    #: after it denies them (``hookline._agent.saved.deadline``). None: no deadline.
    deadline: float | None = None

    @property
    def waiting(self) -> list[ToolCall]:
        """The calls of the batch still to run: no result, and never started."""
        return [c for c, result in self.batch if result is None and c.id not in self.started]

    @property
    def interrupted(self) -> list[ToolCall]:
        """The calls of the batch that started and have no result: what came of them is
        unknown, so a resume does not run them again on its own."""
        return [c for c, result in self.batch if result is None and c.id in self.started]

    def settled(self, result: ToolResult) -> None:
        """``result`` is its call's outcome: kept in the batch, the call no longer started."""
        for index, (call, _) in enumerate(self.batch):
            if call.id == result.call.id:
                self.batch[index] = (result.call, result)
        if result.call.id in self.started:
            self.started.remove(result.call.id)

    def new_batch(self, batch: list[tuple[ToolCall, ToolResult | None]]) -> None:
        """Start ``batch`` (empty: none in progress); nothing of it has started, nor waits."""
        self.batch, self.started, self.deadline = batch, [], None


def dump_state(session: dict[str, Any], messages: list[Message], turn: Turn) -> dict[str, Any]:
    """The JSON-ready state of a paused session, written by the model ``load_state`` reads."""
    state: dict[str, Any] = {
        "version": STATE_VERSION,
        "session": session,
        "messages": [m.to_dict() for m in messages],
        "turn": {
            "prompt": turn.prompt,
            "steps": turn.steps,
            "stop_blocks": turn.stop_blocks,
            "final_text": turn.final_text,
            "detail": turn.detail,
            "calls": turn.calls,
            "batch": [{"call": call, "result": result} for call, result in turn.batch],
            "started": list(turn.started),
            "deadline": turn.deadline,
        },
    }
    dumped: dict[str, Any] = _adapter().dump_python(cast("SavedState", state), mode="json")
    return dumped


def load_state(data: Any, *, where: str) -> tuple[dict[str, Any], list[Message], Turn]:
    """The parts of a saved state (its conversation decrypted: ``hookline._agent.saved.hidden``); a
    ConfigError naming ``where`` if it is not one we know."""
    data = revealed(data, where=where)
    if not isinstance(data, dict):
        raise ConfigError("the saved session state is not an object", file=where)
    version = data.get("version")
    if version not in READABLE_VERSIONS:
        readable = ", ".join(str(v) for v in READABLE_VERSIONS)
        raise ConfigError(
            f"the saved session state has schema version {version!r}; this hookline reads "
            f"versions {readable} only",
            file=where,
            key="version",
            fix="resume it with the hookline version that saved it",
        )
    try:  # lax: strict Python validation takes only instances for dataclasses, and strict
        # JSON cannot carry the lone surrogates a hostile tool id may hold (the seal vouches
        # for the saved state itself)
        state = _adapter().validate_python(data)
        session = dict(state["session"])
        _check_folders(session)
        turn = state["turn"]
        paused = Turn(
            prompt=turn["prompt"],
            steps=turn["steps"],
            stop_blocks=turn["stop_blocks"],
            final_text=turn["final_text"],
            detail=turn.get("detail"),
            calls=list(turn["calls"]),
            batch=[(b["call"], b["result"]) for b in turn["batch"]],
            started=list(turn.get("started", [])),
            deadline=turn.get("deadline"),
        )
        return session, [_message_from_dict(m) for m in state["messages"]], paused
    except ValidationError as exc:
        raise _damaged(where, _first_error(exc)) from None
    except ValueError as exc:
        raise _damaged(where, str(exc)) from None


class SavedSession(TypedDict):
    """The session part of a saved state (``Session.snapshot``)."""

    id: str
    cwd: str
    #: Where Bash's shell was (a `cd` carries over); the project folder when missing.
    shell_cwd: NotRequired[str]
    state_dir: str
    roots: Annotated[list[str], Field(min_length=1)]
    permission_mode: PermissionMode
    prompt_id: str | None
    user: str | None
    tenant: str | None
    prompts: int
    #: What answers allowed for the rest of the session (``SessionGrant.to_dict``).
    grants: NotRequired[list[SavedGrant]]
    #: How long the transcript was, the conversation written out: a resume goes on from there.
    transcript_size: NotRequired[Annotated[int, Field(ge=0)]]


class SavedGrant(TypedDict):
    rules: list[str]
    mode: Literal["acceptEdits"] | None
    description: NotRequired[str]


class SavedText(TypedDict):
    type: Literal["text"]
    text: str


class SavedToolUse(TypedDict):
    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]


class SavedToolResult(TypedDict):
    type: Literal["tool_result"]
    tool_use_id: str
    content: str
    is_error: bool


class SavedMessage(TypedDict):
    role: Literal["user", "assistant"]
    content: list[
        Annotated[SavedText | SavedToolUse | SavedToolResult, Field(discriminator="type")]
    ]


class SavedBatchItem(TypedDict):
    call: ToolCall
    result: ToolResult | None


class SavedTurn(TypedDict):
    prompt: str
    steps: int
    stop_blocks: int
    final_text: str
    detail: NotRequired[str | None]
    calls: list[ToolResult]
    batch: list[SavedBatchItem]
    #: The ids of the batch's calls whose body started and whose result is not saved.
    started: NotRequired[list[str]]
    #: When the waiting calls stop waiting (``Turn.deadline``); missing before version 5.
    deadline: NotRequired[float | None]


class SavedState(TypedDict):
    """A saved state, as the store keeps it (JSON): what ``load_state`` accepts."""

    version: int
    session: SavedSession
    messages: list[SavedMessage]
    turn: SavedTurn
    #: Opaque to the loop: the CLI's flags (``hookline._cli.launch.Launch``).
    launch: NotRequired[dict[str, Any] | None]
    #: The process that saved it (host, pid): a crashed run's can be resumed.
    owner: NotRequired[dict[str, Any] | None]
    #: The status it had when a Ctrl-C or an error interrupted it (``hookline._agent.saved.pause``).
    interrupted_from: NotRequired[str]
    #: The keyed hash of the rest (``hookline._agent.saved.seal``), from version 3 on.
    seal: NotRequired[dict[str, Any]]


@cache
def _adapter() -> TypeAdapter[SavedState]:
    """Built on first use: importing hookline does not pay for it."""
    return TypeAdapter(SavedState)


def _check_folders(session: dict[str, Any]) -> None:
    """The folders must be absolute paths: a resume must not depend on where it runs."""
    for name in ("cwd", "state_dir"):
        if not posixpath.isabs(session[name]):
            raise ValueError(f"session.{name} is not an absolute path: {session[name]!r}")
    for root in session["roots"]:
        if not posixpath.isabs(root):
            raise ValueError(f"session.roots holds a relative path: {root!r}")


def _first_error(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else error["msg"]


def _damaged(where: str, why: str) -> ConfigError:
    return ConfigError(
        f"the saved session state is damaged ({why})",
        file=where,
        fix="it cannot be resumed; start a new session",
    )


def conversation(data: Any) -> list[Message]:
    """Messages from their JSON (``Message.to_dict`` each), checked as strictly as a saved
    state's; a pydantic ``ValidationError`` for anything else."""
    return [_message_from_dict(m) for m in _messages_adapter().validate_python(data)]


@cache
def _messages_adapter() -> TypeAdapter[list[SavedMessage]]:
    return TypeAdapter(list[SavedMessage])


def _call_from_dict(data: SavedToolUse) -> ToolCall:
    return ToolCall(data["id"], data["name"], dict(data["input"]))


def _message_from_dict(data: SavedMessage) -> Message:
    return Message(data["role"], tuple(_block_from_dict(b) for b in data["content"]))


def _block_from_dict(data: SavedText | SavedToolUse | SavedToolResult) -> Block:
    if data["type"] == "text":
        return TextBlock(data["text"])
    if data["type"] == "tool_use":
        return _call_from_dict(data)
    return ToolResultBlock(data["tool_use_id"], data["content"], data["is_error"])
