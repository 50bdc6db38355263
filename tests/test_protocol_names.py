"""Issue 22: outside `moot/protocols/` (the protocols' packages and their registry) no module names a
protocol, neither in a string literal nor in an import, so that every protocol, a plugin's too, is reached
the same way: through the registry, by the name a user typed or a result carries.

A string constant exactly equal to a registered protocol's name counts (`"decide"`); prose that mentions
one does not (docstrings, help text, messages), nor does a comment."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from moot.protocols import names

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "moot"
PROTOCOLS = PACKAGE / "protocols"


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _imported_protocol(node: ast.AST, protocols: set[str]) -> str | None:
    """The protocol package an import statement reaches, if any (`moot.protocols.decide...` or
    `from moot.protocols import decide`)."""
    modules: list[str] = []
    if isinstance(node, ast.Import):
        modules = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    for module in modules:
        parts = module.split(".")
        if parts[:2] == ["moot", "protocols"] and len(parts) > 2 and parts[2] in protocols:
            return module
    return None


def offences(source: str, protocols: Iterable[str]) -> list[str]:
    """What in `source` names a protocol: `line: 'name'` for a string constant, `line: import module`."""
    wanted = set(protocols)
    tree = ast.parse(source)
    skip = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in wanted:
            if id(node) not in skip:
                out.append(f"{node.lineno}: {node.value!r}")
        elif (module := _imported_protocol(node, wanted)) is not None:
            out.append(f"{getattr(node, 'lineno', 0)}: import {module}")
    return sorted(out, key=lambda o: int(o.split(":")[0]))


def offenders() -> list[str]:
    protocols = names()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(PROTOCOLS):
            continue
        rel = path.relative_to(PACKAGE.parent)
        found += [f"{rel}:{o}" for o in offences(path.read_text(encoding="utf-8"), protocols)]
    return found


def test_no_module_outside_the_protocols_names_one() -> None:
    assert offenders() == []


def test_the_check_can_fail() -> None:
    snippet = '''"""A docstring naming decide, and one that is only "decide"."""
from moot.protocols.decide.api import decide
from moot.protocols import challenge, spec_for
import moot.protocols.evaluate.html

def f(protocol: str) -> bool:
    """evaluate"""
    words = "evaluate or decide"  # prose: not a name
    return protocol == "decide" or protocol in ("challenge",) or protocol == 'evaluate '
'''
    assert offences(snippet, ["evaluate", "decide", "challenge"]) == [
        "2: import moot.protocols.decide.api",
        "3: import moot.protocols.challenge",
        "4: import moot.protocols.evaluate.html",
        "9: 'decide'",
        "9: 'challenge'",
    ]
    assert offences("x = 'plugin'", ["plugin"]) == ["1: 'plugin'"]


def test_the_registry_lists_the_built_in_protocols() -> None:
    assert {"evaluate", "decide", "challenge"} <= set(names())
