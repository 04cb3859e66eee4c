"""Changing models mid-session (``Agent.switch_model``): PreModelSwitch may refuse, PostModelSwitch
speaks to the new model.

PreModelSwitch hooks answer allow, deny or ask; a deny refuses the switch, and so does an ask,
which nobody can answer in a headless run (the Agent SDK's word: "ask = refusal outside
interactive"), and so does a fail-closed hook that fails. Otherwise the agent takes the new
model, the old one's connections are released (``aclose``; its next call, if any, opens new
ones), and PostModelSwitch fires: what its hooks add as context opens the next prompt, so the
new model reads it with its first request. Both events carry the model names, the one that was
asked for, and the conversation's estimated size in tokens (``compaction.estimate_tokens``).

A model name (``"anthropic:claude-sonnet-4-5"``, a ``--model`` value) becomes a client through
the agent's runtime's resolver (``hookline.agent.model.named``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from hookline.agent import compaction
from hookline.agent.model import ModelClient, Resolver, named
from hookline.agent.replies import contexts
from hookline.errors import ConfigError
from hookline.events import PostModelSwitch, PreModelSwitch, Scope

if TYPE_CHECKING:
    from hookline.agent.conversation import Seat
    from hookline.agent.session import Session
    from hookline.hooks.engine import HookEngine


def resolve(model: ModelClient | str, resolver: Resolver) -> tuple[ModelClient, str]:
    """The client for ``model`` (a name, through ``resolver``) and the name that was asked
    for; a ConfigError for neither."""
    if isinstance(model, str):
        return named(model, resolver), model
    if not isinstance(model, ModelClient):
        raise ConfigError(
            f"{model!r} is not a model",
            key="model",
            fix="pass a ModelClient (an object with name and async complete) or a model name",
        )
    return model, model.name


@dataclass(frozen=True, slots=True)
class ModelSwitch:
    """What ``Agent.switch_model`` did: ``switched``, or why not (``reason``)."""

    from_model: str
    to_model: str
    requested_model: str
    context_tokens: int
    switched: bool = False
    reason: str | None = None

    def fields(self) -> dict[str, Any]:
        """The fields of both switch events."""
        data = asdict(self)
        del data["switched"], data["reason"]
        return data


async def switch(seat: Seat, session: Session, new: ModelClient, requested: str) -> ModelSwitch:
    """``Agent.switch_model`` in a started ``session``, to ``new`` (``requested``, as
    ``resolve`` gives them): ask PreModelSwitch, swap, release the old client, announce."""
    old, scope = seat.model, session.scope
    asked = ModelSwitch(old.name, new.name, requested, compaction.estimate_tokens(session.messages))
    if (why := await _refusal(seat.engine, scope, asked)) is not None:
        return replace(asked, reason=why)
    seat.model = new
    if old is not new:
        await _release(old)
    post = await seat.engine.dispatch(scope.event(PostModelSwitch, **asked.fields()))
    session.opening_context += contexts("PostModelSwitch", post.decision)
    return replace(asked, switched=True)


async def _refusal(engine: HookEngine, scope: Scope, asked: ModelSwitch) -> str | None:
    """Fire PreModelSwitch; why the switch is refused, or None when it may go ahead."""
    decision = (await engine.dispatch(scope.event(PreModelSwitch, **asked.fields()))).decision
    if decision.permission in (None, "allow"):
        return None
    reason = decision.reason or "refused by a PreModelSwitch hook"
    if decision.permission == "deny":
        return reason
    return f"a PreModelSwitch hook asks a person to confirm, and none can answer here: {reason}"


async def _release(model: ModelClient) -> None:
    """Let go of a model's connections (``aclose``, if it has one)."""
    aclose = getattr(model, "aclose", None)
    if aclose is not None:
        await aclose()
