"""A person's choice for a contested decision, recorded after the debate (`record_choice`): by the CLI when
it asks at the terminal, and by anyone from Python (`moot.api.record_choice`)."""

from __future__ import annotations

from pathlib import Path

from moot.errors import UsageError
from moot.protocols.decide.files import DecisionFiles
from moot.protocols.decide.schemas import DecisionRequest, DecisionResult
from moot.store.db import Store


def record_choice(debate_id: str, option: str, *, store: Store | None = None) -> DecisionResult:
    """Record a person's choice for a contested decision: in the store, and in the decision record file."""
    from moot.protocols.decide.parsing import match_option

    store = store or Store.open_default()
    row = store.get_debate(debate_id)
    if row is None or row.protocol != "decide" or row.result is None:
        raise UsageError(f"no finished decision {debate_id} in {store.path}")
    result = DecisionResult.model_validate(row.result)
    if result.consensus:
        raise UsageError(f"decision {row.id} is not contested: the judges recommend {result.recommended_option}")
    chosen = match_option(option, result.options)
    if chosen is None:
        raise UsageError(f"{option!r} is not one of the options ({', '.join(o.id for o in result.options)})")
    result = result.model_copy(update={"user_choice": chosen, "decided_by": "user"})
    store.set_status(row.id, "finished", result=result.model_dump(mode="json"))
    request = DecisionRequest.model_validate(row.request)
    if request.files_dir and result.files:
        DecisionFiles(Path(request.files_dir), request.context.question_id).write_record(result)
    return result
