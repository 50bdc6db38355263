"""Part 5 of issue 22: every name the docs (README.md, docs/*.md) tell users to import is public API: in
`moot.__all__` or in the `__all__` of the submodule it is imported from, and never from `moot.cli`.

The names are read from the docs themselves: the imports of their Python code blocks, and the dotted
`moot.module.Name` references in their prose. A name added to the docs without a public home fails here.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"```python[^\n]*\n(.*?)```", re.S)
IMPORT = re.compile(r"^\s*from (moot[\w.]*) import (?:\(([^)]*)\)|([\w, ]+))", re.M)
DOTTED = re.compile(r"`(moot(?:\.[a-z_]+)+)\.([A-Za-z_][A-Za-z0-9_]*)`")
# dotted names the prose mentions to explain how moot works, not for users to import
EXPLAINED = {"moot.judges.agent_cli_profiles.QWEN_EXCLUDED"}


def documented_imports() -> set[tuple[str, str]]:
    """(module, name) for every `from moot... import name` in a Python block and every `moot.mod.Name`."""
    found: set[tuple[str, str]] = set()
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in FENCE.findall(text):
            for module, grouped, inline in IMPORT.findall(block):
                names = (grouped or inline).replace("\n", " ").split(",")
                found |= {(module, n.split(" as ")[0].strip()) for n in names if n.strip()}
        for module, name in DOTTED.findall(text):
            if f"{module}.{name}" not in EXPLAINED:
                found.add((module, name))
    return found


def _is_module(dotted: str) -> bool:
    try:
        importlib.import_module(dotted)
    except ImportError:
        return False
    return True


def test_the_docs_name_imports_at_all() -> None:
    names = documented_imports()
    assert ("moot.api", "Panelist") in names and ("moot.api", "gate_failure") in names
    assert len(names) >= 15


@pytest.mark.parametrize(("module", "name"), sorted(documented_imports()))
def test_every_documented_import_is_public(module: str, name: str) -> None:
    assert not module.startswith("moot.cli"), f"the docs send users to the CLI layer: {module}.{name}"
    if _is_module(f"{module}.{name}"):
        return  # a documented submodule (`moot.testing.agent_wire`): its own names are pinned where imported
    mod = importlib.import_module(module)
    public = getattr(mod, "__all__", None)
    assert public is not None, f"{module} has no __all__, yet the docs import {name} from it"
    assert name in public, f"{name} is not in {module}.__all__"
    assert getattr(mod, name) is not None


def test_the_gate_rule_has_a_public_home_and_the_old_import_still_works() -> None:
    from moot.api import gate_failure
    from moot.api.gate import gate_failure as home
    from moot.cli.gate import gate_failure as old

    assert gate_failure is home is old
    verdict = {"kind": "consensus", "answer": "CONDITIONAL", "confidence": "HIGH", "needs_human": False}
    assert gate_failure({"protocol": "evaluate", "verdict": verdict}, require="PASS") is not None
    assert gate_failure({"protocol": "evaluate", "verdict": verdict}, require="CONDITIONAL") is None


def _type_names(folder: Path, root: Path = ROOT / "src") -> dict[str, set[str]]:
    """Classes, wherever they are defined (a handler class built inside a function included), and module-level
    type aliases (`X = Literal[...]`), by name -> the modules defining them."""
    import ast

    defs: dict[str, set[str]] = {}
    for f in folder.rglob("*.py"):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        nested = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n not in tree.body]
        for node in [*tree.body, *nested]:
            name = None
            if isinstance(node, ast.ClassDef):
                name = node.name
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                target = node.targets[0].id
                if target[:1].isupper() and not target.isupper() and isinstance(node.value, ast.Subscript):
                    name = target
            if name:
                defs.setdefault(name, set()).add(str(f.relative_to(root)))
    return defs


def test_the_envelope_types_are_defined_once() -> None:
    everywhere = _type_names(ROOT / "src" / "moot")
    for name in ("Verdict", "SeatStatus", "Envelope", "EnvelopeFirst", "VerdictKind", "JudgeStatus", "RunStatus"):
        assert everywhere[name] == {"moot/schemas/envelope.py"}, (name, everywhere[name])


def test_no_type_name_is_defined_in_two_modules() -> None:
    """Issue 22: one name, one type, anywhere in the package (private ones too), so that a reader who
    meets a type's name knows which type it is."""
    twice = {n: sorted(m) for n, m in _type_names(ROOT / "src" / "moot").items() if len(m) > 1}
    assert twice == {}


def test_the_type_name_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Row:\n    pass\nKind = Literal['x']\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("Row = dict[str, int]\nKIND = ('x',)\n", encoding="utf-8")
    found = {n: {Path(m).name for m in ms} for n, ms in _type_names(tmp_path, tmp_path).items()}
    assert found == {"Row": {"a.py", "b.py"}, "Kind": {"a.py"}}


def test_the_type_name_check_sees_classes_defined_inside_functions(tmp_path: Path) -> None:
    """Issue 32: `moot.testing` built a class `Handler` inside three servers' methods; a class defined in a
    function or a class counts as much as one at module level."""
    (tmp_path / "a.py").write_text("def start():\n    class Handler:\n        pass\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("class Server:\n    class Handler:\n        pass\n", encoding="utf-8")
    found = {n: {Path(m).name for m in ms} for n, ms in _type_names(tmp_path, tmp_path).items()}
    assert found == {"Handler": {"a.py", "b.py"}, "Server": {"b.py"}}
