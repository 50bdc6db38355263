"""The layers stay as `docs/architecture.md` draws them: every import of every module (inside functions
and under TYPE_CHECKING too) points down or sideways, never up, and no two modules import each other,
however indirectly."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "moot"

# lower numbers are lower layers; a module may import its own layer and below. The framework
# (`moot.protocol`) is one layer above the engine, a protocol's package (`moot.protocols.<name>`) the layer
# above it (so the framework cannot import a protocol); the registry (`moot.protocols` itself) is the layer
# above the packages, through which everything higher reaches a protocol. The reports stand above the
# rendering kit they draw with, so that no arrow points back up between the two folders.
LAYERS = {
    "schemas": 0,
    "errors": 0,
    "access": 0,
    "about": 0,  # what moot is (version, address), read from the installed package's metadata
    "file_blocks": 0,  # how the judges file reaches the blocks the protocols declare, knowing none of them
    "parsing": 1,
    "prompts": 1,
    "store": 1,
    "judges": 1,
    "inputs": 1,
    "secrets": 1,
    "diffs": 1,
    "grounding": 1,  # whether a finding quotes what the judges were shown
    "panel_file": 1,
    "project": 1,
    "trust": 1,
    "render": 1,  # the shared rendering kit every protocol draws with
    "testing": 1,
    "engine": 2,
    "reports": 2,  # the reports (HTML, bench, dry run) drawn with `render`, which never reads them
    "framework": 3,  # the protocol framework, moot.protocol
    "protocol": 4,  # the protocol packages, moot.protocols.<name>.*
    "protocols": 5,  # the registry, moot.protocols
    "api": 6,
    "batch": 7,  # many debates of any protocol, through the API's specs
    "bench": 8,  # verdict quality on gold-labelled sets, run as batches
    "cli": 9,
    "mcp": 9,
    "view": 9,  # moot view: the store in a browser, read-only
    "__init__": 9,
    "__main__": 10,
}
# what reports may read: typed results and the store, nothing that runs a debate
REPORTS_MAY_IMPORT = {"schemas", "store", "reports", "render", "errors", "access"}
# the kernel: what every protocol is built on, which therefore knows none of them (nor their registry)
KERNEL = {
    "engine",
    "judges",
    "store",
    "schemas",
    "reports",
    "render",
    "parsing",
    "prompts",
    "errors",
    "access",
    "file_blocks",
    "trust",
    "inputs",
    "secrets",
    "diffs",
    "grounding",
    "panel_file",
    "project",
    "testing",
}


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
    """The layer table's name for a module's place: its folder or top-level module; "framework" for the
    protocol framework (`moot.protocol...`), "protocol" for a protocol's package (`moot.protocols.<name>...`),
    "protocols" for the registry itself."""
    parts = module.split(".")
    if parts[1:2] == ["protocols"] and len(parts) > 2:
        return "protocol"
    if parts[1:2] == ["protocol"]:
        return "framework"
    return parts[1] if len(parts) > 1 else "__init__"


def protocol_package(module: str) -> str | None:
    """`moot.protocols.<name>` for a module inside a protocol's package, else None."""
    parts = module.split(".")
    return ".".join(parts[:3]) if parts[1:2] == ["protocols"] and len(parts) > 2 else None


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
    assert upward(graph()) == []


def test_reports_read_typed_results_only() -> None:
    reaching = [f"{m} -> {t}" for m, ts in graph().items() if area(m) == "reports" for t in ts]
    assert [r for r in reaching if area(r.split(" -> ")[1]) not in REPORTS_MAY_IMPORT] == []


def kernel_reaching_protocols(g: dict[str, set[str]]) -> list[str]:
    return [
        f"{m} -> {t}" for m, ts in g.items() if area(m) in KERNEL for t in ts if area(t) in ("protocol", "protocols")
    ]


def protocols_importing_each_other(g: dict[str, set[str]]) -> list[str]:
    return [
        f"{m} -> {t}"
        for m, ts in g.items()
        for t in ts
        if protocol_package(m) and protocol_package(t) and protocol_package(m) != protocol_package(t)
    ]


def test_the_kernel_never_imports_a_protocol_nor_the_registry() -> None:
    assert kernel_reaching_protocols(graph()) == []


def test_no_protocol_package_imports_another() -> None:
    assert protocols_importing_each_other(graph()) == []


def test_the_checks_can_fail() -> None:
    """The cycle finder finds a cycle, the layer table knows every folder and top-level module, and the
    protocol checks see a kernel module reaching a protocol and one protocol reaching another."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert {area(m) for m in modules()} <= set(LAYERS)
    assert set(KERNEL) < set(LAYERS)
    bad = {
        "moot.store.db": {"moot.protocols"},
        "moot.engine.x": {"moot.protocols.evaluate.api", "moot.schemas.envelope"},
        "moot.protocols.decide.api": {"moot.protocols.challenge.schemas", "moot.protocols.decide.schemas"},
    }
    assert kernel_reaching_protocols(bad) == [
        "moot.store.db -> moot.protocols",
        "moot.engine.x -> moot.protocols.evaluate.api",
    ]
    assert protocols_importing_each_other(bad) == ["moot.protocols.decide.api -> moot.protocols.challenge.schemas"]
    assert area("moot.protocols") == "protocols" and area("moot.protocols.evaluate.html") == "protocol"
    assert area("moot.protocol.spec") == "framework" and area("moot.protocol") == "framework"


def upward(g: dict[str, set[str]]) -> list[str]:
    return [
        f"{m} -> {t}"
        for m, targets in g.items()
        for t in targets
        if area(m) != "__init__" and area(t) != area(m) and LAYERS[area(t)] > LAYERS[area(m)]
    ]


def test_the_framework_cannot_import_a_protocol_nor_render_a_report() -> None:
    """The checks see the framework reaching a protocol's package and the rendering kit reaching a report."""
    bad = {
        "moot.protocol.spec": {"moot.protocols.evaluate.params", "moot.engine.core"},
        "moot.render.html_page": {"moot.reports.html", "moot.render.html_common"},
    }
    assert upward(bad) == [
        "moot.protocol.spec -> moot.protocols.evaluate.params",
        "moot.render.html_page -> moot.reports.html",
    ]
