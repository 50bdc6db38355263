"""A protocol that says nothing of its items (a plugin's SPEC without `batch`) still batches: an item holds
its function's arguments, checked against the function's own signature, and each argument without a
default is required. The batch reaches it through the registry alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import moot.batch.items as items_module
from moot.batch.items import item_fields, load_items
from moot.errors import UsageError
from moot.protocol.flat import flat_spec as ProtocolSpec
from moot.protocols import names, spec_for


async def toy(topic: str, rounds: int = 1, judges: Any = None, max_cost: float | None = None) -> None:
    """A fourth protocol's public function."""


def _unused(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("not called when items are loaded")


TOY = ProtocolSpec("toy", _unused, object, _unused, _unused, _unused, exports={"toy": toy})


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(items_module, "names", lambda: [*names(), "toy"])
    monkeypatch.setattr(items_module, "spec_for", lambda name: TOY if name == "toy" else spec_for(name))


def _items(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_its_items_are_its_functions_arguments(tmp_path: Path) -> None:
    assert item_fields("toy") == {"id", "topic", "rounds", "judges"}
    (item,) = load_items(_items(tmp_path, {"id": 1, "topic": "t", "rounds": 2}), "toy")
    assert item.arguments == {"topic": "t", "rounds": 2}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"id": 1}, "line 1: a toy item needs 'topic'"),
        ({"id": 1, "topic": "t", "colour": "red"}, "line 1: unknown argument 'colour' for toy"),
        ({"id": 1, "topic": "t", "rounds": "2"}, "line 1: field 'rounds'"),
    ],
)
def test_a_bad_item_names_its_line(tmp_path: Path, row: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        load_items(_items(tmp_path, row), "toy")


def test_an_unknown_protocol_lists_the_registrys(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--protocol must be one of evaluate, decide, challenge, toy"):
        load_items(_items(tmp_path, {"id": 1}), "vote")
