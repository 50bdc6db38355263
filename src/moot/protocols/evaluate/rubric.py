"""`--criteria auto`: one call writes the task's rubric before round 1 (issue 30 §5).

The call goes to the judges file's `rubric_model:`, else the moderator, else the first judge's model; a host
one is answered by the caller like any host seat (the debate's first request). Its reply is checked like a
judge's: the rubric schema is enforced where the server allows it (weights that do not sum to 100 are
rescaled to 100 and the writer's sum kept as `rescaled_from`), an unusable reply
is sent back once naming the problem, and a second failure ends the debate with one line (exit 3). The
rubric then becomes the debate's criteria, and its anchors and checklist join the judges' system prompt,
unchanged for every judge in every round. The call is keyed `rubric`, so resume replays it.
"""

from __future__ import annotations

from typing import Any

from moot.protocol import Answer, Call, Message, Prompt, Seat, Templates, reply_parser
from moot.protocols.evaluate.task_rubric import Rubric, read_rubric, rubric_example, rubric_schema
from moot.schemas.config import Artifact

SYSTEM = "You write concise, task-specific scoring rubrics for panels of expert judges."


@reply_parser
def parse_rubric(text: str) -> Rubric:
    """A rubric from a reply, or a ReplyError naming what is wrong with it (sent back once)."""
    return read_rubric(text)


def rubric_call(seat: Seat, templates: Templates, task: str, artifacts: list[Artifact]) -> Call[Rubric]:
    task = task or "(no task description given)"
    text = templates.render("rubric.j2", task=task, artifacts=artifacts, example=rubric_example())
    prompt = Prompt(
        system=SYSTEM,
        messages=[Message(role="user", content=text)],
        json_schema=rubric_schema(),
        meta={"round": 0, "kind": "rubric", "seat": seat.id, "role": "rubric"},  # a host request's role
    )
    return Call(
        seat,
        prompt,
        "rubric",
        "rubric",
        parse_rubric,
        lambda reason: templates.render("clarify.j2", reason=reason),
        lambda r: {"summary": f"rubric of {len(r.criteria)} criteria"},
    )


def placeholder(tokens: int) -> Answer[Any]:
    """A rubric of typical shape and about `tokens` of text, for the dry run to price the rounds after it."""
    words = "x" * max(1, tokens * 4 // 25)
    criteria = [
        {"name": f"criterion {n}", "weight": w, "description": words, "score_2": words, "score_4": words}
        for n, w in enumerate((30, 25, 20, 15, 10), 1)
    ]
    rubric = Rubric.model_validate({"criteria": criteria, "checklist": [words] * 3})
    return Answer(rubric, words, "ok")
