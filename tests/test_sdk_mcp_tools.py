"""The Claude Agent SDK's in-process MCP tools on a hookline agent: ``@tool(...)``,
``create_sdk_mcp_server`` and ``sdk_server_tools``. Every call goes through the pipeline, so
hooks and rules hold; each test that refuses a call shows the handler never ran."""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, NotRequired, TypedDict

import pytest

from hookline import Agent, HookMatcher, PermissionPolicy, RunResult
from hookline._agent.messages import ToolResultBlock
from hookline._errors import ConfigError
from hookline._tools.function import FunctionTool
from hookline.permissions._rules import PermissionRule
from hookline.sdk._tools import (
    SdkMcpServer,
    SdkMcpTool,
    SdkServerTool,
    create_sdk_mcp_server,
    sdk_server_tools,
    tool,
)
from hookline.sdk._types import McpSdkServerConfig
from recording_model import RecordingModel

Args = dict[str, Any]


class OfferingModel(RecordingModel):
    """The recording model, keeping the whole tool specs each request offered."""

    def __init__(self, turns: Sequence[dict[str, Any]]) -> None:
        super().__init__(turns)
        self.offered: list[list[dict[str, Any]]] = []

    def record(self, messages: Any, tools: Sequence[dict[str, Any]], system: str | None) -> None:
        super().record(messages, tools, system)
        self.offered.append([dict(t) for t in tools])

    def read(self, call_id: str) -> ToolResultBlock:
        """The result of ``call_id`` as the model was last shown it."""
        blocks = [b for m in self.seen[-1].messages for b in m.content]
        return next(
            b for b in blocks if isinstance(b, ToolResultBlock) and b.tool_use_id == call_id
        )


def text(value: str) -> Args:
    return {"content": [{"type": "text", "text": value}]}


def calculator(ran: list[tuple[str, Args]]) -> McpSdkServerConfig:
    """The calculator server of the SDK's example: each handler appends to ``ran``."""

    @tool("add", "Add two numbers", {"a": float, "b": float})
    async def add(args: Args) -> Args:
        ran.append(("add", args))
        return text(f"{args['a']} + {args['b']} = {args['a'] + args['b']}")

    @tool("divide", "Divide one number by another", {"a": float, "b": float})
    async def divide(args: Args) -> Args:
        ran.append(("divide", args))
        if args["b"] == 0:
            return {**text("Error: Division by zero is not allowed"), "is_error": True}
        return text(f"{args['a']} / {args['b']} = {args['a'] / args['b']}")

    return create_sdk_mcp_server(name="calculator", version="2.0.0", tools=[add, divide])


def call(name: str, call_id: str, **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "input": tool_input}]}


def run(
    tmp_path: Path, script: list[dict[str, Any]], server: McpSdkServerConfig, **options: Any
) -> tuple[RunResult, OfferingModel]:
    model = OfferingModel(script)
    agent = Agent(model, tools=sdk_server_tools("calc", server), cwd=tmp_path, **options)
    return agent.run_sync("calculate"), model


# -- the tools run, and the model reads what they return -------------------------------------


def test_calculator_tools_run_and_the_model_reads_their_text(tmp_path: Path) -> None:
    ran: list[tuple[str, Args]] = []
    script = [call("mcp__calc__add", "t1", a=15, b=27), call("mcp__calc__divide", "t2", a=1, b=4)]
    result, model = run(tmp_path, [*script, {"text": "42"}], calculator(ran))

    assert ran == [("add", {"a": 15, "b": 27}), ("divide", {"a": 1, "b": 4})]
    assert model.tools[0] == ["mcp__calc__add", "mcp__calc__divide"]
    assert model.read("t1") == ToolResultBlock("t1", "15 + 27 = 42")
    assert model.read("t2") == ToolResultBlock("t2", "1 / 4 = 0.25")
    assert result.tool_calls[0].output == [{"type": "text", "text": "15 + 27 = 42"}]
    assert result.final_text == "42"


def test_the_tool_name_comes_from_the_mcp_servers_key_not_the_server_name() -> None:
    tools = sdk_server_tools("numbers", calculator([]))
    assert [t.name for t in tools] == ["mcp__numbers__add", "mcp__numbers__divide"]


def test_a_result_marked_is_error_is_a_failed_call_the_run_goes_on(tmp_path: Path) -> None:
    ran: list[tuple[str, Args]] = []
    script = [call("mcp__calc__divide", "t1", a=1, b=0), call("mcp__calc__add", "t2", a=1, b=2)]
    result, model = run(tmp_path, script, calculator(ran))

    assert [r.status for r in result.tool_calls] == ["failed", "executed"]
    assert model.read("t1") == ToolResultBlock(
        "t1", "Error: Division by zero is not allowed", is_error=True
    )
    assert model.read("t2").content == "1 + 2 = 3"


def test_text_joins_images_read_as_placeholders_and_links_as_text(tmp_path: Path) -> None:
    @tool("look", "Look", {})
    async def look(args: Args) -> Args:
        image = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
        link = {"type": "resource_link", "name": "spec", "uri": "file:///spec.md"}
        return {"content": [{"type": "text", "text": "one"}, image, link]}

    _, model = run(
        tmp_path, [call("mcp__calc__look", "t1")], create_sdk_mcp_server("x", tools=[look])
    )
    assert model.read("t1").content == "one\n[image]\nspec\nfile:///spec.md"


def test_a_plain_function_handler_runs_on_a_worker_thread(tmp_path: Path) -> None:
    threads: list[int] = []

    @tool("where", "Which thread", {})
    def where(args: Args) -> Args:
        threads.append(threading.get_ident())
        return text("here")

    _, model = run(
        tmp_path, [call("mcp__calc__where", "t1")], create_sdk_mcp_server("x", tools=[where])
    )
    assert model.read("t1").content == "here"
    assert len(threads) == 1 and threads[0] != threading.get_ident()


# -- hooks and rules hold: the handler never runs ---------------------------------------------


async def deny_add(input_data: Args, tool_use_id: str | None, context: Any) -> Args:
    return {
        "hookSpecificOutput": {
            "hookEventName": input_data["hook_event_name"],
            "permissionDecision": "deny",
            "permissionDecisionReason": "adding is closed today",
        }
    }


def test_a_pre_tool_use_hook_matching_the_tool_denies_it(tmp_path: Path) -> None:
    ran: list[tuple[str, Args]] = []
    hooks = {"PreToolUse": [HookMatcher(matcher="mcp__calc__add", hooks=[deny_add])]}
    script = [call("mcp__calc__add", "t1", a=1, b=2), call("mcp__calc__divide", "t2", a=4, b=2)]
    result, model = run(tmp_path, script, calculator(ran), hooks=hooks)

    assert ran == [("divide", {"a": 4, "b": 2})]
    assert [r.status for r in result.tool_calls] == ["blocked", "executed"]
    denied = model.read("t1")
    assert denied.is_error and "adding is closed today" in denied.content


@pytest.mark.parametrize("rule", ["mcp__calc__add", "mcp__calc", "mcp__calc__*"])
def test_a_deny_rule_holds_even_when_everything_else_is_allowed(tmp_path: Path, rule: str) -> None:
    ran: list[tuple[str, Args]] = []
    policy = PermissionPolicy(mode="bypassPermissions", deny=((PermissionRule.parse(rule), "t"),))
    result, _ = run(
        tmp_path, [call("mcp__calc__add", "t1", a=1, b=2)], calculator(ran), permissions=policy
    )

    assert ran == []
    assert result.tool_calls[0].status == "blocked"
    assert result.tool_calls[0].permission == "deny"


def test_a_read_only_hint_is_not_trusted_by_the_permission_tiers(tmp_path: Path) -> None:
    ran: list[Args] = []

    @tool("wipe", "Claims to only look", {}, annotations={"readOnlyHint": True})
    async def wipe(args: Args) -> Args:
        ran.append(args)
        return text("wiped")

    server = create_sdk_mcp_server("x", tools=[wipe])
    (made,) = sdk_server_tools("calc", server)
    result, _ = run(
        tmp_path, [call("mcp__calc__wipe", "t1")], server, permissions=PermissionPolicy()
    )

    assert ran == []
    assert made.read_only is False
    assert result.tool_calls[0].status == "blocked"
    assert "needs approval" in result.tool_calls[0].content


def test_a_hook_rewriting_the_input_out_of_schema_never_reaches_the_handler(tmp_path: Path) -> None:
    ran: list[tuple[str, Args]] = []

    async def rewrite(input_data: Args, tool_use_id: str | None, context: Any) -> Args:
        out = {"hookEventName": "PreToolUse", "updatedInput": {"a": "one", "b": 2}}
        return {"hookSpecificOutput": {**out, "permissionDecision": "allow"}}

    hooks = {"PreToolUse": [HookMatcher(matcher="mcp__calc__add", hooks=[rewrite])]}
    _, model = run(tmp_path, [call("mcp__calc__add", "t1", a=1, b=2)], calculator(ran), hooks=hooks)

    assert ran == []
    assert model.read("t1").is_error
    assert (
        "Invalid input for mcp__calc__add: a: 'one' is not of type 'number'"
        in model.read("t1").content
    )


@pytest.mark.parametrize(
    "spelling",
    ["MCP__calc__add", "mcp__calc__ADD", " mcp__calc__add", "mcp__calc__add ", "mcp__calc__add\n",
     "mcp__calculator__add", "add", "mcp__calc__add(*)"],
)  # fmt: skip
def test_other_spellings_of_a_tool_name_reach_no_handler(tmp_path: Path, spelling: str) -> None:
    ran: list[tuple[str, Args]] = []
    result, model = run(tmp_path, [call(spelling, "t1", a=1, b=2)], calculator(ran))

    assert ran == []
    assert model.read("t1") == ToolResultBlock(
        "t1", f"Error: No such tool available: {spelling}", is_error=True
    )
    assert result.tool_calls[0].status == "failed"


# -- what goes wrong in a handler, or in the model's input, is an error result ----------------


def faulty(
    ran: list[Args], returns: Any = None, raises: Exception | None = None
) -> McpSdkServerConfig:
    @tool("work", "Work", {"n": int})
    async def work(args: Args) -> Any:
        ran.append(args)
        if raises is not None:
            raise raises
        return returns

    return create_sdk_mcp_server("x", tools=[work])


@pytest.mark.parametrize(
    ("server_of", "expected"),
    [
        (lambda ran: faulty(ran, raises=ValueError("no such order")), "ValueError: no such order"),
        (lambda ran: faulty(ran, raises=KeyError("n")), "KeyError: 'n'"),
        (lambda ran: faulty(ran, returns={"is_error": True, "content": []}),
         "mcp__calc__work reported an error (no text)"),
        (lambda ran: faulty(ran, returns={**text("bad"), "isError": True}), "bad"),
        (lambda ran: faulty(ran, returns="done"),
         "mcp__calc__work returned 'done'; a tool handler returns a dict with a content list"),
        (lambda ran: faulty(ran, returns={"content": "done"}), "returns a dict with a content"),
        (lambda ran: faulty(ran, returns={"content": [{"type": "text"}]}), "a content list"),
        (lambda ran: faulty(ran, returns=None), "mcp__calc__work returned None"),
    ],
)  # fmt: skip
def test_a_failing_handler_is_an_error_result_and_the_run_goes_on(
    tmp_path: Path, server_of: Any, expected: str
) -> None:
    ran: list[Args] = []
    script = [call("mcp__calc__work", "t1", n=1), {"text": "carried on"}]
    result, model = run(tmp_path, script, server_of(ran))

    assert ran == [{"n": 1}]
    seen = model.read("t1")
    assert seen.is_error and expected in seen.content
    assert "Traceback" not in seen.content
    assert result.final_text == "carried on"


@pytest.mark.parametrize("checker", ["jsonschema", "built-in"])
@pytest.mark.parametrize(
    ("tool_input", "problem"),
    [
        ({"a": 1}, "'b' is a required property"),
        ({"a": "1", "b": 2}, "a: '1' is not of type 'number'"),
        ({"a": True, "b": 2}, "a: True is not of type 'number'"),
        ({"a": None, "b": 2}, "a: None is not of type 'number'"),
    ],
)
def test_input_out_of_schema_is_refused_before_the_handler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, checker: str, tool_input: Args, problem: str
) -> None:
    if checker == "built-in":
        monkeypatch.setitem(sys.modules, "jsonschema", None)  # as if it were not installed
    ran: list[tuple[str, Args]] = []
    script = [call("mcp__calc__add", "t1", **tool_input), call("mcp__calc__add", "t2", a=1, b=2)]
    result, model = run(tmp_path, script, calculator(ran))

    assert ran == [("add", {"a": 1, "b": 2})]
    assert model.read("t1") == ToolResultBlock(
        "t1", f"Invalid input for mcp__calc__add: {problem}", is_error=True
    )
    assert [r.status for r in result.tool_calls] == ["failed", "executed"]


def test_the_handler_gets_a_copy_of_the_input(tmp_path: Path) -> None:
    @tool("scribble", "Scribble", {"items": list})
    async def scribble(args: Args) -> Args:
        args["items"].append("handler was here")
        return text("ok")

    server = create_sdk_mcp_server("x", tools=[scribble])
    result, _ = run(tmp_path, [call("mcp__calc__scribble", "t1", items=["a"])], server)
    assert result.tool_calls[0].input == {"items": ["a"]}


# -- the schema the model is offered, from each of the three forms ----------------------------


class Order(TypedDict):
    order_id: Annotated[str, "The order to look up"]
    lines: list[int]
    note: NotRequired[str | None]


def offered(tmp_path: Path, input_schema: Any) -> dict[str, Any]:
    @tool("look", "Look up", input_schema)
    async def look(args: Args) -> Args:
        return text("ok")

    _, model = run(tmp_path, [], create_sdk_mcp_server("x", tools=[look]))
    (spec,) = model.offered[0]
    assert spec["name"] == "mcp__calc__look" and spec["description"] == "Look up"
    schema: dict[str, Any] = spec["input_schema"]
    return schema


def test_a_dict_of_python_types_is_offered_as_required_fields(tmp_path: Path) -> None:
    declared = {"a": float, "n": int, "s": str, "flag": bool, "xs": list[str], "o": dict,
                "either": int | str, "maybe": int | None}  # fmt: skip
    assert offered(tmp_path, declared) == {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "n": {"type": "integer"},
            "s": {"type": "string"},
            "flag": {"type": "boolean"},
            "xs": {"type": "array", "items": {"type": "string"}},
            "o": {"type": "object"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "maybe": {"type": "integer"},
        },
        "required": ["a", "n", "s", "flag", "xs", "o", "either", "maybe"],
    }


def test_a_typeddict_is_offered_with_its_required_keys_and_descriptions(tmp_path: Path) -> None:
    assert offered(tmp_path, Order) == {
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "description": "The order to look up"},
            "lines": {"type": "array", "items": {"type": "integer"}},
            "note": {"type": "string"},
        },
        "required": ["lines", "order_id"],
    }


def test_a_json_schema_is_offered_as_written(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string", "minLength": 2}},
        "required": ["q"],
        "additionalProperties": False,
    }
    assert offered(tmp_path, schema) == schema


def test_a_json_schema_is_checked_in_full_with_jsonschema(tmp_path: Path) -> None:
    ran: list[Args] = []

    @tool(
        "find", "Find", {"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}}
    )
    async def find(args: Args) -> Args:
        ran.append(args)
        return text("found")

    server = create_sdk_mcp_server("x", tools=[find])
    _, model = run(tmp_path, [call("mcp__calc__find", "t1", q="a")], server)
    assert ran == []
    assert model.read("t1").content == "Invalid input for mcp__calc__find: q: 'a' is too short"


# -- mistakes in the definitions are ConfigErrors, where they are made ------------------------


async def noop(args: Args) -> Args:
    return text("")


#: ``tool`` for the calls a type checker rightly refuses, made to show what happens at run time.
untyped: Any = tool


def two_named_a() -> Any:
    return create_sdk_mcp_server("x", tools=[tool("a", "A", {})(noop), tool("a", "B", {})(noop)])


def too_long() -> Any:
    return sdk_server_tools(
        "c" * 40, create_sdk_mcp_server("x", tools=[tool("t" * 20, "T", {})(noop)])
    )


def foreign_instance() -> Any:
    return sdk_server_tools("calc", {"type": "sdk", "name": "x", "instance": object()})


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: tool("", "Empty", {})(noop), "a tool name is empty"),
        (lambda: tool("add numbers", "Add", {})(noop), "'add numbers' has characters"),
        (lambda: tool("add.v2", "Add", {})(noop), "digits, _ and - (as in 'add_v2')"),
        (lambda: tool("add", "Add", {"a": "number"})(noop), "'a': 'number' is not a Python type"),
        (lambda: untyped("add", "Add", [float])(noop), "[<class 'float'>] is not an input schema"),
        (lambda: tool("add", "Add", {"type": "array", "items": {}})(noop), "not 'object'"),
        (lambda: tool("add", "Add", {"type": "object", "properties": 3})(noop), "not valid JSON"),
        (lambda: untyped("add", "Add", {})("not a function"), "which is not callable"),
        (lambda: untyped("add", "Add"), "tool('add', 'Add'): missing a required argument"),
        (lambda: untyped("add", "Add", {}, timeout=3), "unexpected keyword argument 'timeout'"),
        (two_named_a, "server 'x' has two tools named 'a'"),
        (lambda: create_sdk_mcp_server("x", tools=[SdkMcpTool("a b", "A", {}, noop)]), "'a b'"),
        (lambda: create_sdk_mcp_server("x", tools=[untyped(noop)]), "is not an SDK MCP tool"),
        (lambda: sdk_server_tools("my server", create_sdk_mcp_server("x")), "key 'my server'"),
        (foreign_instance, "mcp_servers.calc: <object object"),
        (too_long, "is 67 characters, over 64"),
    ],
)
def test_a_malformed_definition_is_one_config_error(make: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make()
    assert message in str(caught.value)
    assert caught.value.fix


def test_a_tool_name_of_exactly_64_characters_is_accepted() -> None:
    server = create_sdk_mcp_server("x", tools=[tool("t" * 48, "T", {})(noop)])
    (made,) = sdk_server_tools("c" * 9, server)
    assert len(made.name) == 64 and isinstance(made, SdkServerTool)


def test_the_sdk_shapes_of_the_tool_and_the_server_config() -> None:
    @tool("add", "Add", {"a": float}, annotations={"readOnlyHint": True})
    async def add(args: Args) -> Args:
        return text("")

    assert add == SdkMcpTool("add", "Add", {"a": float}, add.handler, {"readOnlyHint": True})
    config = create_sdk_mcp_server("calculator", tools=[add])
    assert config["type"] == "sdk" and config["name"] == "calculator"
    server = config["instance"]
    assert isinstance(server, SdkMcpServer)
    assert (server.name, server.version, server.tools) == ("calculator", "1.0.0", (add,))
    assert sdk_server_tools("calc", create_sdk_mcp_server("empty")) == []


def test_sdk_style_by_keywords_makes_an_sdk_tool() -> None:
    made = tool(name="add", description="Add", input_schema={"a": float})(noop)
    assert isinstance(made, SdkMcpTool) and made.name == "add"


# -- hookline's own @tool still works through the same name -----------------------------------


def test_hookline_style_tool_still_makes_function_tools(tmp_path: Path) -> None:
    seen: list[str] = []

    @tool
    def echo(words: str) -> str:
        """Say it back."""
        seen.append(words)
        return f"echo: {words}"

    @tool(name="mcp__orders__refund", read_only=False)
    async def refund(order_id: str) -> dict[str, str]:
        seen.append(order_id)
        return {"refunded": order_id}

    assert isinstance(echo, FunctionTool) and isinstance(refund, FunctionTool)
    model = OfferingModel(
        [call("echo", "t1", words="hi"), call("mcp__orders__refund", "t2", order_id="A-1")]
    )
    Agent(model, tools=[echo, refund], cwd=tmp_path).run_sync("go")
    assert seen == ["hi", "A-1"]
    assert model.read("t1").content == "echo: hi"
    assert model.read("t2").content == '{"refunded":"A-1"}'
