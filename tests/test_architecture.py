"""The layers stay as `docs/architecture.md` draws them: every import of every module (inside functions
and under TYPE_CHECKING too) points down or sideways, never up, and no two modules import each other,
however indirectly."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "moot"

# lower numbers are lower layers; a module may import its own layer and below
LAYERS = {
    "schemas": 0,
    "errors": 0,
    "consensus": 1,
    "parsing": 1,
    "prompts": 1,
    "store": 1,
    "judges": 1,
    "inputs": 1,
    "panel_file": 1,
    "project": 1,
    "reports": 1,
    "testing": 1,
    "engine": 2,
    "protocols": 3,
    "runs": 3,
    "api": 4,
    "batch": 5,  # many debates of any protocol, through the API's specs
    "bench": 6,  # verdict quality on gold-labelled sets, run as batches
    "cli": 7,
    "mcp": 7,
    "view": 7,  # moot view: the store in a browser, read-only
    "__init__": 7,
    "__main__": 8,
}
# what reports may read: typed results and the store, nothing that runs a debate
REPORTS_MAY_IMPORT = {"schemas", "store", "reports", "errors"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """Every moot module `path` imports, wherever the import statement is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("moot")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("moot") and not node.level:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in known else node.module)
    return {m for m in found if m in known}


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports_of(path, set(mods)) - {name} for name, path in mods.items()}


def area(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each a cycle or several."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_type_only_ones_included() -> None:
    assert cycles(graph()) == []


def test_imports_point_down_the_layers() -> None:
    upward = [
        f"{m} -> {t}"
        for m, targets in graph().items()
        for t in targets
        if area(m) != "__init__" and area(t) != area(m) and LAYERS[area(t)] > LAYERS[area(m)]
    ]
    assert upward == []


def test_reports_read_typed_results_only() -> None:
    reaching = [f"{m} -> {t}" for m, ts in graph().items() if area(m) == "reports" for t in ts]
    assert [r for r in reaching if area(r.split(" -> ")[1]) not in REPORTS_MAY_IMPORT] == []


def test_the_checks_can_fail() -> None:
    """The cycle finder finds a cycle, and the layer table knows every folder and top-level module."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert {area(m) for m in modules()} <= set(LAYERS)
