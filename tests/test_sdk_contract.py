"""hookline's Claude Agent SDK shim held to the real SDK's own source, field by field.

hookline writes the SDK's types out by hand (``hookline.sdk``); this test reads
claude-agent-sdk 0.2.189 out of its published sdist (tests/sdk_sdist.py: fetched once, checked
against its sha256; CI must have it) and compares:

- every public name the SDK's ``types`` module defines and every name its package exports is
  provided by hookline, or listed in ``hookline.types.NOT_PROVIDED`` (importing it is then an
  ImportError that says so), and that list names only the SDK's names;
- each dataclass has the SDK's fields in the SDK's order with the SDK's defaults, each of a
  compatible type; a field of hookline's own may follow, with a default, only as EXTRA says;
- each TypedDict has the SDK's required and optional keys, each of a compatible type, and each
  type alias (a ``Literal``, a union) is the SDK's;
- the SDK's errors exist with the SDK's bases; ``query``, ``tool``, ``create_sdk_mcp_server``,
  ``SdkMcpTool`` and each public method of ``ClaudeSDKClient`` accept every call the SDK's do.

The SDK's ``types`` module imports only the standard library when it runs, so it is run on its
own (never as the ``claude_agent_sdk`` package, whose other modules need anyio, mcp, ...) and
its annotations are read as Python reads them; the package's other files are read with ``ast``.

*Compatible* means the same type, each class known by its name, a union member the SDK has and
``NOT_PROVIDED`` lists (a message kind hookline never yields) left out. Where hookline's type
is wider (it accepts every value the SDK's accepts, and more), WIDER says why, field by field;
an entry there whose types are the same, or where hookline's is not wider, fails too.
"""

from __future__ import annotations

import ast
import collections.abc
import dataclasses
import inspect
import sys
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import hookline
import hookline.sdk._errors
import hookline.sdk._types
import hookline.types
import sdk_sdist
from hookline._agent.model import ModelClient

Shape = frozenset[tuple[Any, ...]]
ANY: Shape = frozenset({("any",)})
#: The names hookline's own annotations use that its modules import only for type checkers.
SHIM_NAMES = {**vars(hookline.sdk._types), "ModelClient": ModelClient}
NOT_PROVIDED = hookline.types.NOT_PROVIDED

_MAPPING = "any mapping: the SDK's TypedDict is a dict when the program runs"
_NOT_YET = "setting it is a ConfigError (not supported yet), so no value of it is used"
_SUBAGENT = "hookline's AgentDefinition, also read from agent files; " + _NOT_YET
#: Fields whose type in hookline accepts every value the SDK's accepts, and more: why.
WIDER: dict[tuple[str, str], str] = {
    ("ClaudeAgentOptions", "tools"): _MAPPING + "; other forms are a ConfigError",
    ("ClaudeAgentOptions", "system_prompt"): _MAPPING + "; other forms are a ConfigError",
    ("ClaudeAgentOptions", "mcp_servers"): _MAPPING + "; each entry is read as .mcp.json's",
    ("ClaudeAgentOptions", "sandbox"): _MAPPING + ", as the settings' sandbox is read",
    ("ClaudeAgentOptions", "model"): "also a hookline ModelClient (str covers 'openai:NAME')",
    ("ClaudeAgentOptions", "can_use_tool"): "sync too; an answer of another type refuses the call",
    ("ClaudeAgentOptions", "hooks"): "keyed by every event hookline runs, not only the SDK's ten",
    ("ClaudeAgentOptions", "betas"): _NOT_YET,
    ("ClaudeAgentOptions", "plugins"): _NOT_YET,
    ("ClaudeAgentOptions", "thinking"): _NOT_YET,
    ("ClaudeAgentOptions", "effort"): _NOT_YET,
    ("ClaudeAgentOptions", "session_store"): _NOT_YET,
    ("ClaudeAgentOptions", "task_budget"): _NOT_YET,
    ("HookMatcher", "hooks"): "sync callbacks too; an answer is read as any hook's answer",
    ("AgentDefinition", "tools"): "any sequence of names (a tuple too)",
    ("AgentDefinition", "disallowedTools"): "any sequence of names (a tuple too)",
    **{("AgentDefinition", name): _SUBAGENT for name in
       ("skills", "memory", "mcpServers", "effort", "permissionMode")},
}  # fmt: skip
#: Fields hookline's dataclasses have and the SDK's do not (each after the SDK's, with a default).
EXTRA: dict[tuple[str, str], str] = {
    ("ClaudeAgentOptions", "hookline"): "keyword options of hookline.AgentOptions (audit, ...)",
}
#: Public methods of the SDK's ClaudeSDKClient that hookline's does not have yet: why.
METHODS_NOT_YET: dict[str, str] = {
    "rewind_files": "file checkpoints are not supported yet (enable_file_checkpointing)",
    "get_mcp_status": "MCP status calls are not supported yet",
    "reconnect_mcp_server": "MCP status calls are not supported yet",
    "toggle_mcp_server": "MCP status calls are not supported yet",
    "stop_task": "task messages are not supported yet",
    "get_context_usage": "context usage is not reported yet",
    "get_server_info": "the Claude Code process's init data does not exist here",
}


# -- reading the SDK ------------------------------------------------------------------------------


def run_module(source: str, name: str) -> dict[str, Any]:
    """The namespace of ``source`` run as module ``name``, listed in ``sys.modules`` only while
    it runs (dataclasses look their module up there)."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        # dont_inherit: not this file's ``from __future__ import annotations``; the SDK's
        # TypedDicts read ``NotRequired`` from real annotations.
        exec(compile(source, f"<{name}>", "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules[name]
    return module.__dict__


@pytest.fixture(scope="module")
def sdk() -> dict[str, Any]:
    """The SDK's ``types`` module, run."""
    return run_module(sdk_sdist.read("src/claude_agent_sdk/types.py"), "claude_agent_sdk_types")


@pytest.fixture(scope="module")
def tree() -> Callable[[str], ast.Module]:
    """``tree("types.py")``: a file of the SDK's package, parsed."""
    return lambda name: ast.parse(sdk_sdist.read(f"src/claude_agent_sdk/{name}"))


def defined(module: ast.Module) -> dict[str, ast.stmt]:
    """The public names a module defines at its top level (classes, functions, assignments)."""
    found: dict[str, ast.stmt] = {}
    for node in module.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update({t.id: node for t in targets if isinstance(t, ast.Name)})
    return {name: node for name, node in found.items() if not name.startswith("_")}


def exported(module: ast.Module) -> list[str]:
    """The names in a module's ``__all__``."""
    (names,) = [
        node.value
        for node in module.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    ]
    return list(ast.literal_eval(names))


# -- comparing types ------------------------------------------------------------------------------


def shape(hint: Any) -> Shape:
    """A type as a set of union members, each class by its name, so two modules compare."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return ANY
    if hint is Ellipsis:  # tuple[int, ...]
        return frozenset({("...",)})
    if hint is None or hint is type(None):
        return frozenset({("none",)})
    if origin is typing.Literal:
        return frozenset(("literal", value) for value in args)
    if origin in (typing.Union, types.UnionType):
        return frozenset().union(*map(shape, args))
    if origin is collections.abc.Callable:
        params, result = args
        given = None if params is Ellipsis else tuple(map(shape, params))
        return frozenset({("callable", given, shape(result))})
    if isinstance(hint, typing.TypeVar):
        return frozenset({("typevar", hint.__name__)})
    cls = origin or hint
    assert isinstance(cls, type), f"no shape for {hint!r}"
    return frozenset({("class", cls.__name__, kinds(cls), tuple(map(shape, args)))})


def kinds(cls: type) -> frozenset[str]:
    """What a class is, beyond its name: which abstract collections it is one of."""
    abstract = (collections.abc.Mapping, collections.abc.Sequence)
    made = {"TypedDict"} if typing.is_typeddict(cls) else set()
    made |= {"dataclass"} if dataclasses.is_dataclass(cls) else set()
    return frozenset(made | {base.__name__ for base in abstract if issubclass(cls, base)})


def covers(wide: Shape, narrow: Shape) -> bool:
    """Whether every value of type ``narrow`` is a value of type ``wide``."""
    return ("any",) in wide or all(any(member(w, n) for w in wide) for n in narrow)


def member(wide: tuple[Any, ...], narrow: tuple[Any, ...]) -> bool:
    if wide == narrow:
        return True
    if wide[0] == "class" and narrow[0] == "literal":
        return not wide[3] and type(narrow[1]).__name__ == wide[1]
    if wide[0] == narrow[0] == "class" and (wide[1] == narrow[1] or wide[1] in narrow[2]):
        # A TypedDict is a mapping of str keys to values of its own types.
        args = (shape(str), ANY) if not narrow[3] and "TypedDict" in narrow[2] else narrow[3]
        return not wide[3] or (len(wide[3]) == len(args) and all(map(covers, wide[3], args)))
    if wide[0] == narrow[0] == "callable":
        (_, w_params, w_result), (_, n_params, n_result) = wide, narrow
        params = w_params is None or (
            n_params is not None
            and len(n_params) == len(w_params)
            and all(map(covers, n_params, w_params))  # a parameter: the other way round
        )
        return params and covers(w_result, n_result)
    return False


def provided(hint: Any) -> Shape:
    """``shape(hint)`` without the union members hookline lists as not provided."""
    kept = frozenset(m for m in shape(hint) if not (m[0] == "class" and m[1] in NOT_PROVIDED))
    return kept or shape(hint)


def type_problem(
    where: tuple[str, ...], theirs: Any, ours: Any, *, wider: dict[Any, str] = WIDER
) -> str | None:
    """What is wrong with hookline's type ``ours`` for the SDK's ``theirs`` at ``where`` (a
    class and a field, or an alias's name); None: nothing."""
    same, listed, named = provided(theirs) == shape(ours), where in wider, ".".join(where)
    if same:
        return f"{named}: listed in WIDER, but the same type" if listed else None
    if listed and covers(shape(ours), shape(theirs)):
        return None
    why = "is not wider than" if listed else "differs from"
    return f"{named}: hookline's {ours!r} {why} the SDK's {theirs!r}"


# -- comparing classes ----------------------------------------------------------------------------


def default(spec: dataclasses.Field[Any]) -> Any:
    if spec.default_factory is not dataclasses.MISSING:
        return ("factory", spec.default_factory())
    if hasattr(spec.default, "write"):
        return "a stream"  # sys.stderr: whichever the process had when each module ran
    return spec.default


def dataclass_problems(theirs: type, ours: type, their_names: dict[str, Any]) -> list[str]:
    """Fields, order, defaults and types of the SDK's dataclass ``theirs`` in ``ours``."""
    name, problems = theirs.__name__, []
    their_fields = dataclasses.fields(theirs)
    our_fields = dataclasses.fields(ours)
    their_order = [f.name for f in their_fields]
    our_order = [f.name for f in our_fields]
    if our_order[: len(their_order)] != their_order:
        problems.append(f"{name}: hookline's fields are {our_order}, the SDK's {their_order}")
    for their_f, our_f in zip(their_fields, our_fields, strict=False):
        if their_f.name == our_f.name and default(their_f) != default(our_f):
            problems.append(
                f"{name}.{our_f.name}: default {default(our_f)!r}, the SDK's {default(their_f)!r}"
            )
    for extra in our_fields[len(their_fields) :]:
        if (name, extra.name) not in EXTRA or default(extra) is dataclasses.MISSING:
            problems.append(f"{name}.{extra.name}: not the SDK's, and not in EXTRA with a default")
    their_hints = typing.get_type_hints(theirs, globalns=their_names)
    return problems + hint_problems(
        name, their_hints, typing.get_type_hints(ours, localns=SHIM_NAMES)
    )


def typeddict_problems(theirs: Any, ours: Any, their_names: dict[str, Any]) -> list[str]:
    """Required keys, optional keys and each key's type of the SDK's TypedDict in ``ours``."""
    name, problems = theirs.__name__, []
    for kind in ("required", "optional"):
        have, want = (sorted(getattr(t, f"__{kind}_keys__")) for t in (ours, theirs))
        if have != want:
            problems.append(f"{name}: {kind} keys {have}, the SDK's {want}")
    their_hints = typing.get_type_hints(theirs, globalns=their_names)
    return problems + hint_problems(
        name, their_hints, typing.get_type_hints(ours, localns=SHIM_NAMES)
    )


def hint_problems(name: str, theirs: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """A problem for each field both have whose types are not compatible."""
    found = (
        type_problem((name, key), hint, ours[key]) for key, hint in theirs.items() if key in ours
    )
    return [problem for problem in found if problem]


def problems_of(theirs: Any, ours: Any, their_names: dict[str, Any], name: str) -> list[str]:
    """What is wrong with hookline's ``ours`` for the SDK's ``theirs`` (named ``name``)."""
    if isinstance(theirs, type) and dataclasses.is_dataclass(theirs):
        return dataclass_problems(theirs, ours, their_names)
    if typing.is_typeddict(theirs):
        return typeddict_problems(theirs, ours, their_names)
    if isinstance(theirs, type):  # a warning class: the same bases, by name
        have, want = ([c.__name__ for c in t.__mro__] for t in (ours, theirs))
        return [] if have == want else [f"{name}: bases {have}, the SDK's {want}"]
    problem = type_problem((name,), theirs, ours)  # a type alias
    return [problem] if problem else []


# -- the tests ------------------------------------------------------------------------------------


def sdk_types_names(tree: Callable[[str], ast.Module]) -> set[str]:
    return set(defined(tree("types.py")))


def test_every_public_name_of_the_sdks_types_module_is_provided_or_listed(
    tree: Callable[[str], ast.Module],
) -> None:
    names = sdk_types_names(tree)
    assert len(names) > 150  # the file was read
    ours = set(hookline.types.__all__)
    assert sorted(names - ours - NOT_PROVIDED) == []


def test_every_name_the_sdk_package_exports_is_provided_or_refused_by_name(
    tree: Callable[[str], ast.Module],
) -> None:
    names = exported(tree("__init__.py"))
    assert {"query", "ClaudeSDKClient", "tool", "HookMatcher"} <= set(names)
    missing = []
    for name in names:
        try:
            getattr(hookline, name)
        except ImportError as refusal:  # what `from hookline import NAME` raises
            assert name in NOT_PROVIDED and "does not provide" in str(refusal)
        except AttributeError:
            missing.append(name)
    assert missing == []


def test_not_provided_lists_only_the_sdks_names(tree: Callable[[str], ast.Module]) -> None:
    theirs = sdk_types_names(tree) | set(exported(tree("__init__.py")))
    assert sorted(NOT_PROVIDED - theirs) == []


def test_each_type_hookline_provides_is_the_sdks(
    sdk: dict[str, Any], tree: Callable[[str], ast.Module]
) -> None:
    names = sorted(sdk_types_names(tree) & set(hookline.types.__all__))
    assert len(names) > 90
    ours = {name: getattr(hookline.types, name) for name in names}
    assert [p for name in names for p in problems_of(sdk[name], ours[name], sdk, name)] == []


def test_every_allowance_names_a_field_that_exists(sdk: dict[str, Any]) -> None:
    for owner, field in [*WIDER, *EXTRA]:
        assert field in {f.name for f in dataclasses.fields(getattr(hookline.types, owner))}
    assert all((owner, field) not in EXTRA for owner, field in WIDER)
    assert all(field in typing.get_type_hints(sdk[owner], globalns=sdk) for owner, field in WIDER)


def test_the_sdks_errors_are_hooklines_with_the_sdks_bases(
    tree: Callable[[str], ast.Module],
) -> None:
    classes = [n for n in tree("_errors.py").body if isinstance(n, ast.ClassDef)]
    assert len(classes) >= 7
    for node in classes:
        ours = getattr(hookline.sdk._errors, node.name)
        assert {ast.unparse(b) for b in node.bases} <= {c.__name__ for c in ours.__mro__}


def call_forms(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
) -> Iterator[tuple[list[str], dict[str, str]]]:
    """Calls the SDK's function accepts: required arguments only, then all of them positionally
    where it can, then all of them by keyword where it can (``self`` left out). Python calls a
    ``__dunder__`` method itself, positionally: only the first two forms for those."""
    a = node.args
    positional = [p.arg for p in (*a.posonlyargs, *a.args) if p.arg != "self"]
    first_default = len(positional) - len(a.defaults)
    keyword = [p.arg for p in a.kwonlyargs]
    needed_kw = [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None]
    only = [p.arg for p in a.posonlyargs]
    yield positional[:first_default], {k: k for k in needed_kw}
    yield positional, {k: k for k in keyword}
    if not node.name.endswith("__"):
        yield only, {k: k for k in [*positional[len(only) :], *keyword]}


def accepts(ours: Callable[..., Any], node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``ours`` (one of its overloads, when it has them) takes every call form."""
    candidates = typing.get_overloads(ours) or [ours]
    signatures = [inspect.signature(c) for c in candidates]
    if node.args.args and node.args.args[0].arg == "self":
        signatures = [s.replace(parameters=list(s.parameters.values())[1:]) for s in signatures]
    return any(all(bindable(s, *form) for form in call_forms(node)) for s in signatures)


def bindable(signature: inspect.Signature, args: list[str], kwargs: dict[str, str]) -> bool:
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def test_the_sdks_functions_and_client_methods_take_the_same_calls(
    tree: Callable[[str], ast.Module],
) -> None:
    package, query = defined(tree("__init__.py")), defined(tree("query.py"))
    functions = [package["tool"], package["create_sdk_mcp_server"], query["query"]]
    refused = [f.name for f in functions if not accepts(getattr(hookline, f.name), f)]
    client = defined(tree("client.py"))["ClaudeSDKClient"]
    assert isinstance(client, ast.ClassDef)
    methods = [m for m in client.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
    public = [m for m in methods if not m.name.startswith("_") or m.name.endswith("__")]
    absent = {m.name for m in public if not hasattr(hookline.ClaudeSDKClient, m.name)}
    refused += [m.name for m in public if m.name not in absent
                and not accepts(getattr(hookline.ClaudeSDKClient, m.name), m)]  # fmt: skip
    assert refused == []
    assert absent == set(METHODS_NOT_YET)


def test_sdk_mcp_tool_has_the_sdks_fields(tree: Callable[[str], ast.Module]) -> None:
    node = defined(tree("__init__.py"))["SdkMcpTool"]
    assert isinstance(node, ast.ClassDef)
    theirs = [(s.target.id, s.value is not None) for s in node.body
              if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]  # fmt: skip
    ours = [
        (f.name, f.default is not dataclasses.MISSING)
        for f in dataclasses.fields(hookline.SdkMcpTool)
    ]
    assert ours == theirs  # fmt: skip


# -- the comparison itself finds what it is for ---------------------------------------------------

PLANTED_SDK = """
from dataclasses import dataclass, field
from typing import Literal, NotRequired, TypedDict

@dataclass
class Block:
    text: str
    kind: Literal["a", "b"] = "a"
    tags: list[str] = field(default_factory=list)

@dataclass
class Pair:
    left: int
    right: int

class Input(TypedDict):
    name: str
    size: NotRequired[int]

Mode = Literal["x", "y"]
"""
PLANTED_OURS = """
from dataclasses import dataclass
from typing import Literal, TypedDict

@dataclass
class Block:
    text: str
    kind: Literal["a"] = "b"
    tags: tuple[str, ...] = ()
    extra: int = 0

@dataclass
class Pair:
    right: int
    left: int

class Input(TypedDict):
    name: str
    size: int

Mode = Literal["x"]
"""


def test_each_planted_difference_is_named() -> None:
    theirs = run_module(PLANTED_SDK, "planted_sdk")
    ours = run_module(PLANTED_OURS, "planted_ours")
    found = {
        n: problems_of(theirs[n], ours[n], theirs, n) for n in ("Block", "Pair", "Input", "Mode")
    }
    assert found == {
        "Block": [
            "Block.kind: default 'b', the SDK's 'a'",
            "Block.tags: default (), the SDK's ('factory', [])",
            "Block.extra: not the SDK's, and not in EXTRA with a default",
            "Block.kind: hookline's typing.Literal['a'] differs from the SDK's "
            "typing.Literal['a', 'b']",
            "Block.tags: hookline's tuple[str, ...] differs from the SDK's list[str]",
        ],
        "Pair": ["Pair: hookline's fields are ['right', 'left'], the SDK's ['left', 'right']"],
        "Input": [
            "Input: required keys ['name', 'size'], the SDK's ['name']",
            "Input: optional keys [], the SDK's ['size']",
        ],
        "Mode": ["Mode: hookline's typing.Literal['x'] differs from the SDK's "
                 "typing.Literal['x', 'y']"],
    }  # fmt: skip


def test_a_wider_type_passes_only_where_listed_and_truly_wider() -> None:
    where, listed = ("Block", "text"), {("Block", "text"): "why"}
    assert type_problem(where, str, str | int, wider=listed) is None
    assert type_problem(where, str, str | int, wider={}) == (
        "Block.text: hookline's str | int differs from the SDK's <class 'str'>"
    )
    assert type_problem(where, str, str, wider=listed) == (
        "Block.text: listed in WIDER, but the same type"
    )
    assert type_problem(where, str | int, str, wider=listed) == (
        "Block.text: hookline's <class 'str'> is not wider than the SDK's str | int"
    )


class _Preset(typing.TypedDict):
    type: str


@pytest.mark.parametrize(
    ("wide", "narrow", "wider"),
    [
        (str, typing.Literal["a", "b"], True),
        (typing.Literal["a"], typing.Literal["a", "b"], False),
        (collections.abc.Sequence[str], list[str], True),
        (list[str], collections.abc.Sequence[str], False),
        (collections.abc.Mapping[str, Any], _Preset, True),
        (dict[str, Any], _Preset, False),  # a TypedDict is not a dict[str, Any] to a checker
        (collections.abc.Mapping[str, int], _Preset, False),
        (Callable[..., Any], Callable[[int], str], True),
        # A function that takes any sequence is one that takes a list; not the other way.
        (Callable[[list[str]], str], Callable[[collections.abc.Sequence[str]], str], True),
        (Callable[[collections.abc.Sequence[str]], str], Callable[[list[str]], str], False),
        (Callable[[int], str | None], Callable[[int], str], True),
        (Callable[[int], str], Callable[[int], str | None], False),
        (Any, int | None, True),
        (int | None, Any, False),
    ],
)
def test_wider_means_every_value_of_the_narrow_type_is_one_of_the_wide(
    wide: Any, narrow: Any, wider: bool
) -> None:
    assert covers(shape(wide), shape(narrow)) is wider


@pytest.mark.parametrize(
    ("ours", "takes"),
    [
        (lambda a, b=1, *, c, d=2: None, True),
        (lambda a, b=1, e=3, *, c, d=2: None, True),  # one more, with a default
        (lambda *args, **kwargs: None, True),
        (lambda a, *, b=1, c, d=2: None, False),  # b only by keyword
        (lambda a, b=1, *, c: None, False),  # no d
        (lambda a, b, *, c, d=2: None, False),  # b needed
    ],
)
def test_a_signature_takes_the_sdks_calls_or_is_named(ours: Any, takes: bool) -> None:
    (node,) = ast.parse("def f(a, b=1, *, c, d=2): ...").body
    assert isinstance(node, ast.FunctionDef)
    assert accepts(ours, node) is takes
