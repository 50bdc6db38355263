"""`benchmarks/bench_hardening.py`: the probes run end to end on the local server (two items each), and their
rates show what each rule does with planted judges, on and off."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.timeout(900)


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_hardening.py"
    spec = importlib.util.spec_from_file_location("bench_hardening", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _rate(lines: list[str], what: str) -> tuple[int, int]:
    line = next(x for x in lines if what in x)
    m = re.search(r"(\d+)/(\d+)\s+= [\d.]+\s+\[[\d.]+, [\d.]+\]\s+[\d.]+ calls", line)
    assert m, line
    return int(m.group(1)), int(m.group(2))


def test_each_probe_prints_rates_with_intervals_and_the_rules_do_what_they_say() -> None:
    lines = _bench().run(2, ["planted", "bandwagon", "position"])
    assert _rate(lines, "grounding on : invented finding caps") == (0, 2)
    assert _rate(lines, "grounding on : real finding caps") == (2, 2)
    assert _rate(lines, "grounding off: invented finding caps") == (2, 2)
    assert _rate(lines, "rules on : its flip is listed as unsupported") == (2, 2)
    assert _rate(lines, "rules off: its flip is listed as unsupported") == (0, 2)
    assert _rate(lines, "per-judge option order off: follows the order") == (2, 2)  # first-shown pickers
