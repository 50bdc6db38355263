"""`moot view` reads each protocol's result through one table (`moot.view.envelope`): every path in it names
a field of the result envelope every protocol's result starts with, and the debates of a real store map
onto the fields the pages show."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from moot.schemas.envelope import Envelope
from moot.store import Store
from moot.view.envelope import PATHS, SPEND_PATH, outcome

from .view_store import debates


def _has_path(model: type[BaseModel], path: str) -> bool:
    node: type[BaseModel] | None = model
    for key in path.removeprefix("$.").split("."):
        if node is None or key not in node.model_fields:
            return False
        annotation = node.model_fields[key].annotation
        node = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    return True


@pytest.mark.parametrize("field", sorted(PATHS))
def test_every_path_names_a_field_of_the_envelope(field: str) -> None:
    assert _has_path(Envelope, PATHS[field]), f"{field} at {PATHS[field]}"
    assert _has_path(Envelope, SPEND_PATH)
    assert not _has_path(Envelope, "$.summary.final_verdict")  # the check can fail


def test_the_three_protocols_map_onto_the_pages_fields(tmp_path: Path) -> None:
    made = debates(tmp_path)
    store = Store.open_default()
    got = {}
    for name, debate_id in made.items():
        row = store.get_debate(debate_id)
        assert row is not None
        got[name] = outcome(row.protocol, row.status, row.result)
    e, d, c, x = got["evaluate"], got["decide"], got["challenge"], got["contested"]
    assert (e.verdict, e.answer, e.confidence, e.rounds, len(e.judges)) == ("PASS", "PASS", "HIGH", 2, 3)
    assert e.kind in ("consensus", "majority") and e.spend == 0.0 and e.status == "finished"
    assert (d.verdict, d.answer, d.confidence, d.rounds) == ("RECOMMENDED", "C", "HIGH", 2)
    assert [j.split(" ")[0] for j in d.judges] == ["risk", "value", "effort"]
    assert (c.verdict, c.rounds, len(c.judges)) == ("TRADEOFF", 2, 3) and c.judges[0].endswith("(proponent)")
    assert c.answer.startswith("Shard orders by customer id")
    assert (x.verdict, x.confidence, x.answer) == ("CONTESTED", "REQUIRES_INPUT", "")
    assert outcome("evaluate", "running", None) == outcome("evaluate", "running", {})  # no result yet
    assert outcome("vote", "finished", {"outcome": "X"}).verdict == ""  # a protocol the table does not know
