"""`moot decide` at the terminal: the decision printed, and a contested one put to the person at the
terminal, whose choice is recorded (`record_choice`) before the gate and the HTML report read the result.

With `--no-input`, without a terminal, or with `--format json`, a contested result is printed as it stands
(the command's exit code is then 0). This is the spec's `show` hook: the CLI lends it its output
(`moot.protocol.spec.Terminal`).

A person's choice for a contested decision, recorded after the debate (`record_choice`): by the CLI when
it asks at the terminal, and by anyone from Python (`moot.api.record_choice`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from moot.errors import shown_path
from moot.protocol import Terminal, UsageError
from moot.protocol.spec import HumanChoice
from moot.protocols.decide.files import DecisionFiles
from moot.protocols.decide.schemas import DecisionRequest, DecisionResult
from moot.protocols.decide.text import decision_report
from moot.schemas.safe_text import safe_text
from moot.store.db import Store


def record_choice(debate_id: str, option: str, *, store: Store | None = None) -> DecisionResult:
    """Record a person's choice for a contested decision: in the store, and in the decision record file."""
    from moot.protocols.decide.replies import match_option

    store = store or Store.open_default()
    row = store.get_debate(debate_id)
    if row is None or row.protocol != "decide" or row.result is None:
        raise UsageError(f"no finished decision {debate_id} in {shown_path(store.path)}")
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


def human_choice(result: DecisionResult) -> HumanChoice | None:
    """What a contested decision asks a person (the MCP server asks it by elicitation): choose an option."""
    if result.consensus or result.user_choice:
        return None
    message = f"The judges are split on: {result.question}\nWhich option do you choose?"
    return HumanChoice(message, tuple((o.id, o.label or o.id) for o in result.options))


def record_human_choice(debate_id: str, option: str) -> DecisionResult:
    """`record_choice` in the default store (the MCP server's)."""
    return record_choice(debate_id, option)


MAX_ASKS = 3


def _at_terminal() -> bool:
    """Whether a person can answer: both stdin and stdout are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _ask_choice(result: DecisionResult, terminal: Terminal) -> DecisionResult:
    """Ask the person to choose an option; Enter (or end of input) leaves the decision contested."""
    ids = "/".join(o.id for o in result.options)
    for _ in range(MAX_ASKS):
        sys.stderr.write(safe_text(f"Your choice [{ids}] (Enter to leave it contested): "))
        sys.stderr.flush()
        line = sys.stdin.readline()
        answer = line.strip()
        if not answer:
            return result
        try:
            return record_choice(result.debate_id, answer)
        except UsageError as e:
            terminal.say(str(e))
    return result


def show(result: DecisionResult, fmt: str, options: Mapping[str, Any], terminal: Terminal) -> DecisionResult:
    """The decision on stdout; a contested one, with a person at the terminal, asks for their choice (the
    question on stderr where stdout carries data) and returns the result with that choice recorded, so that
    the gate and the HTML report see it. `options`: the command's own (`no_input`)."""
    no_input = bool(options.get("no_input"))
    ask = not result.consensus and not no_input and fmt != "json" and _at_terminal()
    if not ask and fmt == "text":
        terminal.emit(terminal.text(decision_report(result, asking=not no_input)))
    elif not ask:
        terminal.emit(terminal.render(result, fmt))
    elif fmt == "text":
        terminal.emit(terminal.render(result, fmt))
        result = _ask_choice(result, terminal)
        if result.user_choice:
            terminal.emit(f"Decision recorded: {result.user_choice} (chosen by you)\n")
    else:
        sys.stderr.write(terminal.render(result, "text", stream=sys.stderr))
        result = _ask_choice(result, terminal)
        terminal.emit(terminal.render(result, fmt))
    return result
