"""The vote as steps over `VoteState`: round 1, every judge alone; round 2, only when they split, each reads
the others' answers and answers again. One call per active judge per round, keyed "r{round}/{seat}", so
that a resumed vote replays every call that had completed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moot.engine.ask import Answer
from moot.engine.steps import Call, Outcome, Step
from moot.judges.base import Seat
from moot.parsing.extract import reply_parser
from moot.parsing.replies import read_reply, reply_example, reply_schema
from moot.prompts import Templates
from moot.schemas.messages import Message, Prompt
from moot.schemas.spend import Spend
from moot_toy.replies import VoteReply
from moot_toy.result import build_result
from moot_toy.schemas import VoteRequest, VoteResult

PROMPTS = Templates(Path(__file__).parent / "templates")


@dataclass
class VoteState:
    active: list[Seat]
    replies: dict[str, dict[int, VoteReply | None]] = field(default_factory=dict)  # seat -> round -> reply
    dropped: dict[str, tuple[int, str]] = field(default_factory=dict)
    answered_by: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    rounds_done: int = 0
    stopped: bool = False

    def latest(self, seat_id: str) -> VoteReply | None:
        rounds = self.replies.get(seat_id, {})
        return rounds[max(rounds)] if rounds else None

    def tally(self) -> tuple[int, int]:
        """(yes, no) among the active judges' latest usable answers."""
        answers = [r.answer for s in self.active if (r := self.latest(s.id)) is not None]
        return answers.count("yes"), answers.count("no")

    @property
    def unanimous(self) -> bool:
        yes, no = self.tally()
        return self.rounds_done > 0 and (yes == 0 or no == 0)


@reply_parser
def parse_vote(text: str) -> VoteReply:
    """A reply validated as `VoteReply`; anything else is sent back once."""
    return read_reply(VoteReply, text, required_any=("answer",))


class Vote:
    """One run (or resumed run) of the vote."""

    name = "vote"
    final_name = "final"  # never used: a vote has no step after its rounds

    def __init__(self, request: VoteRequest, seats: Sequence[Seat], debate_id: str) -> None:
        self.request = request
        self.seats = list(seats)
        self.debate_id = debate_id
        self.state = VoteState(active=list(seats))
        self.system = PROMPTS.render("system.j2", judge_count=len(self.seats), question=request.question)

    def plan(self) -> Step | None:
        st = self.state
        if st.stopped or st.unanimous or st.rounds_done >= self.request.max_rounds:
            return None
        round_no = st.rounds_done + 1
        return Step(round_no, [self._call(seat, round_no) for seat in st.active], first=round_no == 1, quorum=2)

    def _call(self, seat: Seat, round_no: int) -> Call[VoteReply]:
        others = [
            {"judge": s.id, "answer": r.answer, "reason": r.reason}
            for s in self.state.active
            if s.id != seat.id and (r := self.state.latest(s.id)) is not None
        ]
        text = PROMPTS.render(
            "round.j2",
            seat=seat.id,
            round=round_no,
            max_rounds=self.request.max_rounds,
            others=others,
            example=reply_example(VoteReply),
        )
        prompt = Prompt(
            system=self.system,
            messages=[Message(role="user", content=text)],
            json_schema=reply_schema(VoteReply),
            meta={"round": round_no, "kind": "judge", "seat": seat.id},
        )
        return Call(
            seat,
            prompt,
            f"r{round_no}/{seat.id}",
            "judge",
            parse_vote,
            lambda reason: PROMPTS.render("clarify.j2", reason=reason),
            lambda reply: {"summary": f"votes {reply.answer}"},
        )

    def absorb(self, step: Step, answers: Sequence[Answer[Any]]) -> Outcome:
        st, round_no = self.state, step.round
        outcome = Outcome(go_on=True)
        for call, answer in zip(step.calls, answers, strict=True):
            sid = call.seat.id
            if answer.status in ("timeout", "error"):
                st.dropped[sid] = (round_no, f"{answer.status}: {answer.reason}")
                outcome.dropped[sid] = st.dropped[sid][1]
                continue
            st.replies.setdefault(sid, {})[round_no] = answer.value
            st.answered_by[sid] = answer.answered_by or st.answered_by.get(sid, "")
            if answer.value is None:
                st.notes.append(f"{sid} gave no usable answer in round {round_no} ({answer.reason})")
        st.active = [s for s in st.active if s.id not in st.dropped]
        st.rounds_done = round_no
        outcome.active = len(st.active)
        yes, no = st.tally()
        outcome.round_record = {"yes": yes, "no": no}
        outcome.round_finished = {"consensus": st.unanimous, "summary": f"{yes} yes, {no} no", "reasons": []}
        outcome.go_on = len(st.active) >= 2 and not st.unanimous
        return outcome

    def stopped(self, step: Step, reason: str) -> None:
        self.state.stopped = True
        self.state.notes.append(f"{reason}; the outcome is from the {step.round - 1} round(s) done")

    def rehearse(self, call: Call[Any], tokens: int) -> Answer[Any]:
        """Judges alternate yes and no, so that every round is planned and priced."""
        position = [s.id for s in self.seats].index(call.seat.id)
        reply = VoteReply(answer="yes" if position % 2 == 0 else "no", reason="a placeholder")
        return Answer(reply, "x" * 4 * max(1, tokens), "ok")

    def result(self, spend: Spend) -> VoteResult:
        result = build_result(self.request, self.seats, self.state, self.debate_id)
        result.spend = spend
        return result
