"""The input of an SDK MCP tool: the JSON Schema its ``@tool`` declaration gives the model, and
the check of each input against it before the handler runs.

``@tool`` takes three forms: a JSON Schema (a dict whose ``type`` is a string), a mapping of
field names to Python types (every field required), or a TypedDict class. The check is
``jsonschema`` in full when it is importable (it comes with ``hookline[mcp]``), else the
required keys and the JSON type of each top-level field (a bool is no number).
"""

from __future__ import annotations

import importlib
import reprlib
import types
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final, Union, get_args

import typing_extensions

from hookline._errors import ConfigError
from hookline._support.frozen import copy_json

#: Problems with an input, for the model; None: it fits.
Check = Callable[[Any], str | None]


def json_schema(declared: Any, label: str) -> dict[str, Any]:
    """The JSON Schema the model is offered, from any of the three forms ``@tool`` takes: a
    JSON Schema (a dict whose ``type`` is a string), ``{name: Python type}`` (every field
    required), or a TypedDict class."""
    if isinstance(declared, Mapping) and isinstance(declared.get("type"), str):
        if declared["type"] != "object":
            why = f"{label}: the input schema's type is {declared['type']!r}, not 'object'"
            raise ConfigError(why, key="tools", fix="describe the input as an object")
        return dict(copy_json(dict(declared)))
    if isinstance(declared, Mapping):
        properties = {str(k): _type_schema(v, f"{label}, field {k!r}") for k, v in declared.items()}
        return {"type": "object", "properties": properties, "required": list(properties)}
    if typing_extensions.is_typeddict(declared):
        return _typeddict_schema(declared, label)
    raise ConfigError(
        f"{label}: {declared!r} is not an input schema",
        key="tools",
        fix='pass {"a": float}, a TypedDict class, or a JSON Schema dict',
    )


_SIMPLE: Final[dict[Any, str]] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
}
#: TypedDict field qualifiers that say nothing about the value's type.
_QUALIFIERS: Final = (
    typing_extensions.NotRequired,
    typing_extensions.Required,
    typing_extensions.ReadOnly,
)


def _type_schema(hint: Any, label: str) -> dict[str, Any]:
    """A Python type as JSON Schema, as the SDK maps them (unknown classes become strings)."""
    origin = typing_extensions.get_origin(hint)
    if origin in _QUALIFIERS:
        return _type_schema(get_args(hint)[0], label)
    if origin is Annotated:
        base, *meta = get_args(hint)
        described = [m for m in meta if isinstance(m, str)]
        return _type_schema(base, label) | ({"description": described[0]} if described else {})
    if isinstance(hint, type) and hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    if origin is Union or isinstance(hint, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        if len(options) == 1:
            return _type_schema(options[0], label)
        return {"anyOf": [_type_schema(a, label) for a in options]}
    if origin in (list, dict):
        schema: dict[str, Any] = {"type": _SIMPLE[origin]}
        if origin is list and get_args(hint):
            schema["items"] = _type_schema(get_args(hint)[0], label)
        return schema
    if typing_extensions.is_typeddict(hint):
        return _typeddict_schema(hint, label)
    if isinstance(hint, type) or origin is not None:
        return {"type": "string"}
    raise ConfigError(
        f"{label}: {hint!r} is not a Python type", key="tools", fix="write a type, as {'a': float}"
    )


def _typeddict_schema(td: Any, label: str) -> dict[str, Any]:
    hints = typing_extensions.get_type_hints(td, include_extras=True)
    properties = {k: _type_schema(v, f"{label}, field {k!r}") for k, v in hints.items()}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = sorted(k for k, v in hints.items() if _required(k, v, td))
    return schema | ({"required": required} if required else {})


def _required(key: str, hint: Any, td: Any) -> bool:
    """Whether a TypedDict field is required: its own ``Required``/``NotRequired`` first (the
    class's ``__required_keys__`` misses them under ``from __future__ import annotations``)."""
    origin = typing_extensions.get_origin(hint)
    if origin is typing_extensions.ReadOnly:
        return _required(key, get_args(hint)[0], td)
    if origin in (typing_extensions.Required, typing_extensions.NotRequired):
        return origin is typing_extensions.Required
    return key in getattr(td, "__required_keys__", (key,))


# -- checking an input against its schema -----------------------------------------------------


def input_check(schema: dict[str, Any], label: str) -> Check:
    """The check of an input against ``schema``: ``jsonschema`` in full when it is importable,
    else required keys and the JSON type of each top-level field."""
    try:
        jsonschema: Any = importlib.import_module("jsonschema")
    except ImportError:
        return lambda data: _basic_problem(schema, data)
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        raise ConfigError(
            f"{label}: the input schema is not valid JSON Schema: {exc.message}",
            key="tools",
            fix="correct the schema (it is checked with jsonschema)",
        ) from None
    validator = validator_class(schema)

    def check(data: Any) -> str | None:
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        if error is None:
            return None
        where = ".".join(str(part) for part in error.absolute_path)
        return f"{where}: {error.message}" if where else str(error.message)

    return check


#: JSON types and the Python values that are of them (a bool is no number).
_JSON_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": (list, tuple),
    "object": Mapping,
    "null": type(None),
}


def _basic_problem(schema: Mapping[str, Any], data: Any) -> str | None:
    if not isinstance(data, Mapping):
        return f"{reprlib.repr(data)} is not of type 'object'"
    for name in schema.get("required", ()):
        if name not in data:
            return f"{name!r} is a required property"
    properties = schema.get("properties", {})
    for name, value in data.items():
        field_schema = properties.get(name)
        if isinstance(field_schema, Mapping) and not _fits(value, field_schema):
            kinds = field_schema.get("type") or "the schema"
            return f"{name}: {reprlib.repr(value)} is not of type {kinds!r}"
    return None


def _fits(value: Any, schema: Mapping[str, Any]) -> bool:
    if isinstance(schema.get("anyOf"), list):
        return any(_fits(value, s) for s in schema["anyOf"] if isinstance(s, Mapping))
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    return not kinds or any(_is_json(value, k) for k in kinds)


def _is_json(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(kind, object))
