"""The known subset: the closed model of Bash the analyser understands.

A line is inside the subset when every node of its syntax tree is one of ``NODE_TYPES`` (and
passes the check for its kind below), every expansion is a plain parameter, and every builtin
it runs is one ``hookline.permissions.bash._builtins`` accepts. Anything else is named by a
reason, which the reader puts into ``Analysis.unknown``: Bash evaluates arithmetic, array
subscripts, indirections, transformations and offsets as code (``x='a[$(touch f)]'; echo
$((x))`` runs ``touch``), so a line that holds one cannot be proved to run only what it shows.

The model is written down in docs/permissions.md, "The known subset"; a test keeps the two equal.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import hookline.permissions.bash._programs as programs
from hookline._support.words import words
from hookline.permissions.bash._words import Word

if TYPE_CHECKING:
    from tree_sitter import Node

#: Nodes that hold commands or words, and are read as they stand.
STRUCTURE = words(
    "program list pipeline command command_name redirected_statement subshell compound_statement "
    "negated_command if_statement elif_clause else_clause while_statement for_statement do_group "
    "case_statement case_item function_definition file_redirect heredoc_redirect "
    "herestring_redirect heredoc_body command_substitution process_substitution "
    "variable_assignment variable_assignments declaration_command unset_command test_command "
    "string translated_string concatenation array brace_expression extglob_pattern regex"
)
#: Leaves: words and the tokens around them.
LEAVES = words(
    "word number raw_string ansi_c_string string_content heredoc_content heredoc_start "
    "heredoc_end variable_name special_variable_name file_descriptor test_operator comment"
)
#: Expansions: accepted only in their plain forms (see ``expansion_reason``).
EXPANSIONS = frozenset({"simple_expansion", "expansion", "arithmetic_expansion"})
#: Expressions: accepted only as the conditions of a test (``[[ -f x && $a == b ]]``) and as
#: arithmetic on number literals alone (``$((2 * 3))``).
EXPRESSIONS = words(
    "binary_expression unary_expression parenthesized_expression ternary_expression "
    "postfix_expression"
)
#: Every node type the reader accepts.
NODE_TYPES = STRUCTURE | LEAVES | EXPANSIONS | EXPRESSIONS

#: Variables whose assigned value Bash evaluates as arithmetic (``RANDOM=$x`` runs the code a
#: subscript in ``$x`` holds): only a literal integer may be assigned to them.
ARITHMETIC_VARIABLES = frozenset({"RANDOM", "SRANDOM", "OPTIND", "HISTCMD", "SECONDS", "LINENO"})
#: Comparisons ``[[ ]]`` evaluates as arithmetic, so as code.
ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
#: Tests that take a variable's name (``-v a[$(cmd)]`` evaluates the subscript).
NAME_TESTS = frozenset({"-v", "-R"})

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = re.compile(r"[0-9]|[@*#?$!_-]")
_INTEGER = re.compile(r"-?[0-9]+")


def node_reason(node: Node, source: bytes) -> str | None:
    """Why ``node`` (not a command, pipeline, list, substitution or test) is outside the
    subset; None when it is inside."""
    kind = node.type
    if kind in EXPANSIONS:
        return expansion_reason(node, source)
    if kind == "compound_statement" and _opens(node, "(("):
        return f"`{_shown(node, source)}` is arithmetic, which Bash evaluates as code"
    if kind == "for_statement":
        return _for_reason(node, source)
    if kind == "array":
        return _array_reason(node, source)
    if kind in EXPRESSIONS:
        return f"`{_shown(node, source)}` is an arithmetic expression, which Bash evaluates as code"
    if kind == "c_style_for_statement":
        return f"`for ((...))` is arithmetic, which Bash evaluates as code ({_shown(node, source)})"
    if kind == "subscript":
        return f"`{_shown(node, source)}` is an array subscript, which Bash evaluates as code"
    if kind not in NODE_TYPES:
        return f"`{_shown(node, source)}` ({kind}) is outside the known subset"
    return None


def assignment_reason(node: Node, source: bytes) -> str | None:
    """Why ``NAME=value`` is outside the subset: a value Bash evaluates as arithmetic."""
    names = node.children_by_field_name("name")
    name = node_text(names[0], source) if names else ""
    if name not in ARITHMETIC_VARIABLES:
        return None
    values = node.children_by_field_name("value")
    if values and _INTEGER.fullmatch(node_text(values[0], source)):
        return None
    return f"`{name}=` is evaluated as arithmetic, which Bash evaluates as code"


def descriptor_reason(node: Node, source: bytes) -> str | None:
    """``{NAME}>file`` is not a word but a redirect that assigns a descriptor's number to NAME:
    a subscript there (``{a[x]}>f``) is evaluated as code, and PATH-like names change what runs."""
    if source[node.end_byte : node.end_byte + 1] not in (b"<", b">"):
        return None
    text = node_text(node, source)
    if not (text.startswith("{") and text.endswith("}")):
        return None
    name = text[1:-1]
    if not _IDENTIFIER.fullmatch(name):
        return f"`{_cut(text)}` names a descriptor by a name that is not plain"
    if programs.changes_what_runs(name):
        return f"`{_cut(text)}` sets {name}, which changes what the next commands run"
    return None


def duplication_reason(op: str, target: Word | None) -> str | None:
    """``>&WORD`` whose word is not a descriptor: Bash expands the word a second time, so
    ``>&'$(cmd)'`` (quoted!) runs ``cmd``; a target only run time knows may hold one too."""
    if op not in (">&", "<&") or target is None:
        return None
    value = target.value
    if value is None or "$" in value or "`" in value:
        return f"`{op}{_cut(target.raw)}` may expand its target a second time, as code"
    return None


def expansion_reason(node: Node, source: bytes) -> str | None:
    """``$NAME``, ``${NAME}``, ``$1``, ``$@`` and ``"${NAME[@]}"`` are plain; arithmetic on
    literal numbers is harmless; every other expansion is named."""
    text = node_text(node, source)
    if node.type == "arithmetic_expansion":
        if text.startswith("$((") and _literal_arithmetic(node):
            return None
        return f"`{_cut(text)}` is arithmetic, which Bash evaluates as code"
    if node.type == "simple_expansion":
        name = text[1:]
        if _IDENTIFIER.fullmatch(name) or _SPECIAL.fullmatch(name):
            return None
        return f"`{_cut(text)}` is an expansion outside the known subset"
    inner = text[2:-1] if text.startswith("${") and text.endswith("}") else ""
    if _IDENTIFIER.fullmatch(inner) or _SPECIAL.fullmatch(inner):
        return None
    name, bracket, rest = inner.partition("[")
    if bracket and rest in ("@]", "*]") and _IDENTIFIER.fullmatch(name):
        return None
    return f"`{_cut(text)}` is {_expansion_kind(inner)}, which Bash may evaluate as code"


def _expansion_kind(inner: str) -> str:
    """What a non-plain ``${...}`` does, in words."""
    if inner.startswith("!"):
        return "an indirection"
    if inner.startswith("#"):
        return "a length"
    match = re.match(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!_-]", inner)
    rest = inner[match.end() :] if match else inner
    if rest.startswith("["):
        return "an array subscript"
    if rest.startswith("@"):
        return "a transformation"
    if rest.startswith("/"):
        return "a substitution of a pattern"
    if rest.startswith((":-", ":=", ":+", ":?", "-", "=", "+", "?")):
        return "a default or alternative value"
    if rest.startswith(":"):
        return "a substring offset"
    return "an expansion outside the known subset"


def test_reason(node: Node, source: bytes, *, double: bool) -> str | None:
    """Why one condition of ``[[ ... ]]`` (``double``) or ``[ ... ]`` is outside the subset."""
    operators = [c for c in node.children if c.type == "test_operator" or not c.is_named]
    operands = [c for c in node.named_children if c.type != "test_operator"]
    op = next((node_text(c, source) for c in operators if node_text(c, source) not in "()!"), "")
    if node.type not in ("binary_expression", "unary_expression", "parenthesized_expression"):
        return f"`{_shown(node, source)}` is an arithmetic expression, which Bash evaluates as code"
    if double and op in ARITHMETIC_TESTS:
        if all(
            c.type in ("number", "word") and _INTEGER.fullmatch(node_text(c, source))
            for c in operands
        ):
            return None
        return f"`[[ ... {op} ... ]]` compares as arithmetic, which Bash evaluates as code"
    if op in NAME_TESTS and not _names_only(operands, source):
        return f"`{op}` takes a variable name, and a computed one is evaluated as code"
    return None


def _names_only(operands: list[Node], source: bytes) -> bool:
    return all(c.type == "word" and _IDENTIFIER.fullmatch(node_text(c, source)) for c in operands)


def _for_reason(node: Node, source: bytes) -> str | None:
    if _opens(node, "select"):
        return "`select` reads its choice from the terminal, outside the known subset"
    for name in node.children_by_field_name("variable"):
        value = node_text(name, source)
        if not _IDENTIFIER.fullmatch(value):
            return f"`for {value}` assigns a name that is not plain"
        if value in ARITHMETIC_VARIABLES:
            return f"`for {value}` sets {value}, which Bash evaluates as arithmetic"
        if programs.changes_what_runs(value):
            return f"`for {value}` sets {value}, which changes what the next commands run"
    return None


def _array_reason(node: Node, source: bytes) -> str | None:
    """``x=(a b)`` is plain; ``x=([i]=a)`` evaluates ``i`` as arithmetic."""
    for element in node.named_children:
        text = node_text(element, source)
        if text.startswith("["):
            return f"`{_cut(text)}` is an array subscript, which Bash evaluates as code"
    return None


def _literal_arithmetic(node: Node) -> bool:
    """Arithmetic on number literals alone: no name, subscript or substitution to evaluate."""
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type == "number":
            continue
        if child.type not in EXPRESSIONS or child.type == "postfix_expression":
            return False
        stack.extend(child.named_children)
    return True


def _opens(node: Node, token: str) -> bool:
    return bool(node.children) and node.children[0].type == token


def node_text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode(errors="replace")


def _shown(node: Node, source: bytes) -> str:
    return _cut(node_text(node, source))


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."
