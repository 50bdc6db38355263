"""Plausible one-edit bugs in a Python function: the gold `fail` items of `humaneval-bugs`.

Each mutant rewrites one expression's text in place (an operator, a constant, a `not`), so comments,
docstrings, spacing and layout stay as the author wrote them and the bug is not given away by the style.
Each edit is checked by parsing the result: it must give exactly the tree the edit meant (parentheses
are added only where precedence needs them), else the mutant is dropped.
"""

from __future__ import annotations

import ast
import copy
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

_Op = TypeVar("_Op", ast.cmpop, ast.operator)


def _both_ways(*pairs: tuple[type[_Op], type[_Op]]) -> dict[type[_Op], type[_Op]]:
    """Each operator of a pair swapped for the other: a slip is as likely one way as the other."""
    return {old: new for a, b in pairs for old, new in ((a, b), (b, a))}


# Each operator a mutant may replace, and what it puts in its place.
_COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = _both_ways(
    (ast.Lt, ast.LtE), (ast.Gt, ast.GtE), (ast.Eq, ast.NotEq), (ast.In, ast.NotIn), (ast.Is, ast.IsNot)
)
_ARITH: dict[type[ast.operator], type[ast.operator]] = {
    **_both_ways((ast.Add, ast.Sub), (ast.Div, ast.FloorDiv)),
    ast.Mod: ast.FloorDiv,
    ast.Mult: ast.Div,
}
_UNWRAP_FUNCS = frozenset({"sorted", "set", "abs", "reversed", "round", "int"})
_UNWRAP_METHODS = frozenset({"lower", "upper", "strip", "swapcase", "capitalize"})
_LOOSE = (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda)


@dataclass(frozen=True)
class Mutant:
    """The whole program with one edit; `kind` names the edit and `line` where it is."""

    kind: str
    line: int
    source: str


class _Source:
    """The program's text, addressed as `ast` does (line numbers and UTF-8 byte columns)."""

    def __init__(self, source: str) -> None:
        self.raw = source.encode("utf-8")
        self.starts = [0] + [m.end() for m in re.finditer(b"\n", self.raw)]

    def begin(self, node: ast.AST) -> int:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        return int(self.starts[line - 1] + col)

    def end(self, node: ast.AST) -> int:
        line, col = getattr(node, "end_lineno", 1), getattr(node, "end_col_offset", 0)
        return int(self.starts[line - 1] + col)

    def text(self, begin: int, end: int) -> str:
        return self.raw[begin:end].decode("utf-8")

    def of(self, node: ast.AST) -> str:
        return self.text(self.begin(node), self.end(node))

    def with_gaps(self, node: ast.AST, parts: list[ast.expr], edit: Callable[[str], str]) -> str:
        """`node`'s text with `edit` applied to each gap between consecutive `parts` (where an operator is)."""
        out, at = [], self.begin(node)
        for left, right in itertools.pairwise(parts):
            out += [self.text(at, self.end(left)), edit(self.text(self.end(left), self.begin(right)))]
            at = self.begin(right)
        return "".join([*out, self.text(at, self.end(node))])


def mutants(source: str, *, first_line: int = 1) -> list[Mutant]:
    """Every distinct one-edit mutant of the code from `first_line` on, ordered by line and kind."""
    tree = ast.parse(source)
    src = _Source(source)
    parents = {id(child): (node, field) for node in ast.walk(tree) for field, child in _children(node)}
    found: dict[str, Mutant] = {}
    for index, node in enumerate(ast.walk(tree)):
        if getattr(node, "lineno", 0) < first_line:
            continue
        parent, field = parents.get(id(node), (None, ""))
        for kind, new, text in _edits(src, node, parent, field):
            result = _splice(src, tree, (index, node), new, text)
            if result is not None and result not in found:
                found[result] = Mutant(kind, getattr(node, "lineno", 0), result)
    return sorted(found.values(), key=lambda m: (m.line, m.kind, m.source))


def _edits(src: _Source, node: ast.AST, parent: ast.AST | None, field: str) -> Iterator[tuple[str, ast.expr, str]]:
    """The edits one node allows: each as the expression meant, and its text written from the source's."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        new_cmp = _COMPARE[type(node.ops[0])]()
        flipped = ast.Compare(node.left, [new_cmp], node.comparators)
        yield "comparison", flipped, src.with_gaps(node, [node.left, *node.comparators], _swap(node.ops[0], new_cmp))
    if isinstance(node, ast.BoolOp):
        old, new, bool_op = ("and", "or", ast.Or()) if isinstance(node.op, ast.And) else ("or", "and", ast.And())
        yield "and/or", ast.BoolOp(bool_op, node.values), src.with_gaps(node, node.values, _word(old, new))
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        new_op = _ARITH[type(node.op)]()
        swapped = ast.BinOp(node.left, new_op, node.right)
        yield "arithmetic", swapped, src.with_gaps(node, [node.left, node.right], _swap(node.op, new_op))
    if isinstance(node, ast.Constant) and type(node.value) is int:
        for v in (node.value + 1, node.value - 1):
            if v or not _summand(parent):
                yield "constant", _number(v), str(v)
    elif isinstance(node, ast.expr) and _is_bound(node, parent, field):
        for op, sign in ((ast.Add(), "+"), (ast.Sub(), "-")):
            yield "bound", ast.BinOp(node, op, ast.Constant(1)), f"{src.of(node)} {sign} 1"
    if isinstance(node, ast.expr) and field in ("test", "ifs") and not isinstance(parent, ast.Assert):
        yield "negated condition", *_negated(src, node)
    if isinstance(node, ast.Constant) and isinstance(node.value, bool) and isinstance(parent, ast.Return):
        yield "return value", ast.Constant(not node.value), str(not node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
        other = "max" if node.func.id == "min" else "min"
        call = ast.Call(ast.Name(other, ast.Load()), node.args, node.keywords)
        yield "min/max", call, other + src.text(src.end(node.func), src.end(node))
    if isinstance(node, ast.Call) and (inner := _unwrapped(node)) is not None and not _restated(parent, inner):
        yield "dropped call", inner, src.of(inner)


def _swap(old: ast.cmpop | ast.operator, new: ast.cmpop | ast.operator) -> Callable[[str], str]:
    """Replace the operator `old` by `new` in the gap between two operands."""
    return _word(_symbol(old), _symbol(new))


def _symbol(op: ast.cmpop | ast.operator) -> str:
    """How Python writes an operator ('not in', '//'): the middle of `a <op> b`, as `ast.unparse` writes it."""
    a, b = ast.Name("a"), ast.Name("b")
    return ast.unparse(ast.Compare(a, [op], [b]) if isinstance(op, ast.cmpop) else ast.BinOp(a, op, b))[2:-2]


def _word(old: str, new: str) -> Callable[[str], str]:
    """Replace the operator `old` (a symbol or keywords) by `new` in the gap between two operands."""
    pattern = re.compile(r"(?<![\w<>=!])" + re.escape(old).replace(r"\ ", r"\s+") + r"(?![\w<>=])")
    return lambda gap: pattern.sub(new, gap, count=1)


def _number(v: int) -> ast.expr:
    """`-1` as Python parses it: minus applied to 1."""
    return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))


def _negated(src: _Source, test: ast.expr) -> tuple[ast.expr, str]:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand, src.of(test.operand)
    text = src.of(test)
    return ast.UnaryOp(ast.Not(), test), f"not ({text})" if isinstance(test, _LOOSE) else f"not {text}"


def _unwrapped(call: ast.Call) -> ast.expr | None:
    """What a call that only reshapes its input (`sorted(x)`, `s.lower()`) is applied to."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in _UNWRAP_FUNCS and len(call.args) == 1 and not call.keywords:
        return call.args[0]
    if isinstance(func, ast.Attribute) and func.attr in _UNWRAP_METHODS and not call.args and not call.keywords:
        return func.value
    return None


def _restated(parent: ast.AST | None, value: ast.expr) -> bool:
    """`x = x`: an assignment of a name to itself reads as a slip, a giveaway."""
    return isinstance(parent, ast.Assign) and [ast.unparse(t) for t in parent.targets] == [ast.unparse(value)]


def _summand(parent: ast.AST | None) -> bool:
    """Whether the parent adds or subtracts its operand (an edit to 0 there reads `n + 0`, a giveaway)."""
    return isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add | ast.Sub)


def _is_bound(node: ast.expr, parent: ast.AST | None, field: str) -> bool:
    """A slice bound, or the stop of a `range(...)` call, unless it already ends in `± constant` (that
    constant's own edit covers it)."""
    if isinstance(node, ast.BinOp) and _summand(node) and isinstance(node.right, ast.Constant):
        return False
    if isinstance(parent, ast.Slice):
        return field in ("lower", "upper")
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "range":
        args = parent.args
        return field == "args" and 0 < len(args) <= 3 and node is args[min(1, len(args) - 1)]
    return False


def _children(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            yield field, value
        elif isinstance(value, list):
            yield from ((field, v) for v in value if isinstance(v, ast.AST))


def _splice(src: _Source, tree: ast.Module, at: tuple[int, ast.AST], new: ast.expr, text: str) -> str | None:
    """The program with the node's text (`at`: its index in `ast.walk` order and itself) replaced by
    `text`, bare or in parentheses, whichever parses to the tree meant; None if neither does."""
    index, node = at
    meant = ast.dump(_replaced(tree, index, new))
    for candidate in (text, f"({text})"):
        result = (src.raw[: src.begin(node)] + candidate.encode("utf-8") + src.raw[src.end(node) :]).decode("utf-8")
        try:
            if ast.dump(ast.parse(result)) == meant:
                return result
        except SyntaxError:
            continue
    return None


def _replaced(tree: ast.Module, index: int, new: ast.expr) -> ast.Module:
    """A copy of `tree` with its `index`-th node (in `ast.walk` order) replaced by `new`."""
    twin = copy.deepcopy(tree)
    target = next(n for i, n in enumerate(ast.walk(twin)) if i == index)
    for node in ast.walk(twin):
        for field, value in ast.iter_fields(node):
            if value is target:
                setattr(node, field, new)
                return twin
            if isinstance(value, list) and any(v is target for v in value):
                value[[v is target for v in value].index(True)] = new
                return twin
    raise ValueError("the node to replace is not in the tree")
