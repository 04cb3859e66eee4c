"""Custom tools from typed Python functions: the input schema comes from the type hints."""

from __future__ import annotations

import enum
import inspect
import typing
from collections.abc import Callable
from functools import partial
from typing import Any, Final, Literal, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from hookline._errors import ConfigError, ToolInputError
from hookline._support.threads import in_thread
from hookline._tools.base import Tool, ToolContext


class _Default(enum.Enum):
    """No timeout given: an async body gets ``ASYNC_TIMEOUT``, a plain one none."""

    TOKEN = 0


DEFAULT: Final = _Default.TOKEN
#: Seconds an async tool body may take unless its tool says otherwise.
ASYNC_TIMEOUT: Final = 120.0


class FunctionTool(Tool):
    """A tool whose body is a plain or async function with typed parameters.

    A parameter annotated ``ToolContext`` receives the context and is hidden from the model.
    A timeout applies or is not declared: an async body has ``ASYNC_TIMEOUT`` unless it says
    otherwise; a plain function has none unless given one, and then runs in a thread that the
    timeout can leave behind (the run moves on with a timeout error; the thread finishes alone).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | Literal[_Default.TOKEN] | None = DEFAULT,
        read_only: bool = False,
    ) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        self.description = description or inspect.getdoc(fn) or self.name
        self.read_only = read_only
        self._awaits = inspect.iscoroutinefunction(fn)
        #: A plain function with a timeout of its own runs in a thread the timeout can leave
        #: behind; without one it runs inline, as cheap as a call, and has no timeout at all.
        self._threaded = not self._awaits and isinstance(timeout, (int, float))
        if isinstance(timeout, _Default):
            timeout = ASYNC_TIMEOUT if self._awaits else None
        self.timeout = timeout
        self.suspends = self._awaits or self._threaded
        self._model, self._context_param = _input_model(fn, self.name)
        self.input_schema = self._model.model_json_schema()

    def prepare(self, raw: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        validate(self._model, raw, self.name)
        return raw

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        kwargs = dict(validate(self._model, tool_input, self.name).__dict__)
        if self._context_param:
            kwargs[self._context_param] = ctx
        if self._awaits:
            return await self.fn(**kwargs)
        if self._threaded:
            return await in_thread(partial(self.fn, **kwargs))
        return self.fn(**kwargs)


@overload
def tool(fn: Callable[..., Any], /) -> FunctionTool: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | Literal[_Default.TOKEN] | None = DEFAULT,
    read_only: bool = False,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """Make a tool of a typed function: ``@tool`` or ``@tool(name="mcp__orders__refund")``."""
    if fn is not None:
        return FunctionTool(fn, **options)
    return lambda f: FunctionTool(f, **options)


def validate(model: type[BaseModel], raw: Any, tool_name: str) -> BaseModel:
    """``raw`` parsed by ``model``; a ToolInputError in one line the model can act on."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'input'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ToolInputError(f"Invalid input for {tool_name}: {problems}") from None


def _input_model(fn: Callable[..., Any], name: str) -> tuple[type[BaseModel], str | None]:
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:
        raise ConfigError(
            f"cannot read the type hints of tool {name!r}: {exc}",
            key="tools",
            fix="import every type the function's annotations name",
        ) from None
    fields: dict[str, Any] = {}
    context_param = None
    for param in inspect.signature(fn).parameters.values():
        hint = hints.get(param.name, Any)
        if hint is ToolContext:
            context_param = param.name
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (hint, default)
    config = ConfigDict(extra="forbid")
    model = create_model(f"{name}_input", __config__=config, **fields)
    return model, context_param
