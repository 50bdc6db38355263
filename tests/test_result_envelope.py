"""Each protocol's result model inherits the envelope's fields (`moot.schemas.envelope.RunEnvelope`,
`ResultEnvelope`, `PanelRecorded`) and restates none of them: it narrows the protocol's name and its judges'
type through the base's parameters, and its JSON keeps the envelope's keys first, then its own in order."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from moot.protocols import specs
from moot.schemas.envelope import ENVELOPE_KEYS, OPTIONAL_KEYS, RunEnvelope

TOY = Path(__file__).resolve().parent / "toy_protocol"


def _toy_result() -> type[BaseModel]:
    sys.path.insert(0, str(TOY))
    try:
        from moot_toy.schemas import VoteResult
    finally:
        sys.path.remove(str(TOY))
    return VoteResult


def _results() -> list[type[BaseModel]]:
    return [*(spec.result_type for spec in specs()), _toy_result()]


@pytest.mark.parametrize("model", _results(), ids=lambda m: m.__name__)
def test_a_result_model_restates_no_envelope_field(model: type[BaseModel]) -> None:
    assert issubclass(model, RunEnvelope)
    own = set(inspect.get_annotations(model))
    assert own, "the check reads the model's own fields"
    assert not own & {*ENVELOPE_KEYS, *OPTIONAL_KEYS}
    for key in ("protocol", "debate_id", "status", "spend", "debate_effect"):
        assert key in model.model_fields


@pytest.mark.parametrize("model", _results(), ids=lambda m: m.__name__)
def test_a_result_model_is_narrowed_to_its_protocol(model: type[BaseModel]) -> None:
    [name] = model.model_fields["protocol"].annotation.__args__  # type: ignore[union-attr]
    assert name in {spec.name for spec in specs()} | {"vote"}
    with pytest.raises(ValidationError, match="protocol"):
        model.model_validate({"protocol": "someone-else", "debate_id": "d"})


def test_the_toys_json_keeps_its_key_order_and_judge_type() -> None:
    vote = _toy_result()
    judge = {"seat": "judge-1", "model": "m", "stance": "voter", "answers": {"round_1": "yes"}}
    result = vote.model_validate({"debate_id": "d1", "rounds_completed": 1, "judges": [judge], "question": "q?"})
    data = result.model_dump(mode="json")
    assert list(data) == [*ENVELOPE_KEYS, "question", "yes", "no", "reasons", "notes"]
    assert data["protocol"] == "vote" and data["status"] == "finished"  # the name it is narrowed to
    assert type(result.judges[0]).__name__ == "VoteJudge"  # type: ignore[attr-defined]
    assert data["judges"][0]["answers"] == {"round_1": "yes"}
