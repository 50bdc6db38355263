"""The prompts' layout for vendors' prompt caches (OpenAI, Anthropic, Gemini serve the longest prefix a call
shares with an earlier one): within a step, every judge's prompt is one text up to where its judge-specific
part starts.

Each debate runs to its last round against the local server; the prompts are read as the server got them.
In evaluate, a round's instructions and reply template are shared and each judge's part holds the other
judges' reports in the order drawn for it (the rules against herding, on as by default). In decide, the
shared prefix holds every judge's replies of the round before in seat order, and each judge's options come in
its own part; the test turns the option shuffle off (`debate_config: {shuffled_options: false}`) only to read
the options in the shared part.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import moot
from moot.testing import FakeLLMServer
from moot.testing.fake_llm_server import SeenRequest

from .challenge_helpers import assumptions, confront, opening, rebuttal, verdict
from .replies import CRITERIA, round1, round2, round3
from .test_decide_support import OPTIONS, QUESTION, r1, r2


def full_text(request: SeenRequest) -> str:
    """What a prefix cache compares: the system prompt, then the messages, in order."""
    return "\n".join(m["content"] for m in request.body["messages"])


def shared_prefix(prompts: list[tuple[str, str]]) -> str:
    """Each prompt cut where its judge-specific part starts (`marker`, said once): the cuts are one text."""
    cuts = []
    for text, marker in prompts:
        assert text.count(marker) == 1, marker
        cuts.append(text[: text.index(marker)])
    assert all(cut == cuts[0] for cut in cuts), "the judges' prompts differ before their judge-specific parts"
    return cuts[0]


def in_order(text: str, parts: list[str]) -> bool:
    places = [text.index(p) for p in parts]
    return places == sorted(places)


def test_evaluate_judges_of_a_round_share_all_but_their_own_part(llm_server: FakeLLMServer, artifact: Path) -> None:
    """With the rules against herding on (the default): a round's instructions and reply template come before
    the reports, so the judges of a round share them; each judge's own part holds the other judges' reports,
    in its drawn order, never its own, then who it is."""
    models = ["judge-a", "judge-b", "judge-c"]
    for model, score in zip(models, (1.5, 3.0, 4.5), strict=True):  # never converging: all three rounds run
        llm_server.script(model, round1(score, prose=f"R1 of {model}"), round2(score, reason=f"R2 of {model}"))
        llm_server.script(model, round3(score))
    judges = [
        {"model": m, "stance": s, "api_base": llm_server.base_url}
        for m, s in zip(models, ("neutral", "for", "against"), strict=True)
    ]
    result = moot.evaluate_sync(str(artifact), criteria=CRITERIA, judges=judges, reports_dir=None)
    assert result.rounds_completed == 3 and len(llm_server.requests) == 9
    for k in range(3):
        sent = [llm_server.calls_for(m)[k] for m in models]
        cuts = [full_text(r)[: full_text(r).index("<judge_report " if k else "You are Judge ")] for r in sent]
        assert all(cut == cuts[0] for cut in cuts), "the judges' prompts differ before their own parts"
        prefix = cuts[0]
        assert f"Round {k + 1} of" in prefix and "export function createUser" in prefix  # the artifact
        assert "Reply in this template" in prefix and "```yaml" in prefix
        if k == 0:  # isolation: no judge sees another's reply in round 1
            assert not any("R1 of" in full_text(r) for r in sent)
            continue
        for n, (request, own) in enumerate(zip(sent, models, strict=True), 1):
            text = full_text(request)
            letters = result.report_orders[f"r{k + 1}/judge-{n}"]
            assert len(letters) == 2 and "ABC"[n - 1] not in letters
            assert in_order(text, [f'<judge_report judge="{x}"' for x in letters] + [f"You are Judge {n},"])
            assert f"R{k} of {own}" not in text  # its own report is not shown again
            assert all(f"R{k} of {m}" in text for m in models if m != own)
            assert f'You are Judge {n}, judge "{"ABC"[n - 1]}" to the others.' in text


def test_decide_judges_of_a_round_share_all_but_their_own_part(llm_server: FakeLLMServer) -> None:
    stances = {"risk": ("A", "Risk"), "value": ("B", "Value"), "effort": ("C", "Effort")}
    for stance, (option, _) in stances.items():  # each on its own option: contested, both rounds run
        others = {s: "not convinced" for s in stances if s != stance}
        llm_server.script(f"{stance}-m", r1(option, f"R1 of {stance}"), r2(option, challenge=others))
    judges = [{"model": f"{s}-m", "stance": s, "api_base": llm_server.base_url} for s in stances]
    config = {"shuffled_options": False}
    result = moot.decide_sync(QUESTION, OPTIONS, judges=judges, write_files=False, config=config)
    assert result.outcome == "CONTESTED" and len(llm_server.requests) == 6
    for k in range(2):
        sent = [llm_server.calls_for(f"{s}-m")[k] for s in stances]
        prompts = [
            (full_text(r), f"You are the {title} Judge") for r, (_, title) in zip(sent, stances.values(), strict=True)
        ]
        prefix = shared_prefix(prompts)
        assert f"Round {k + 1} of" in prefix and "Full offline" in prefix  # the options
        if k == 0:
            assert not any("R1 of" in text for text, _ in prompts) and "in isolation" in prefix
            continue
        assert in_order(prefix, [f'<judge_report judge="{s}"' for s in stances])
        assert all(f"R1 of {s}" in prefix for s in stances)
        for (text, marker), stance in zip(prompts, stances, strict=True):
            assert f'Your own round 1 report is the one above labelled judge="{stance}"' in text[text.index(marker) :]


def _challenge_panel(server: FakeLLMServer) -> dict[str, Any]:
    """A proponent that rejects everything and three challengers that maintain their objections to the end."""
    server.script(
        "prop",
        opening("Shard orders by customer id"),
        confront({f"O{i}": "REJECT" for i in (1, 2, 3)}, "Position v2"),
        confront({f"O{i}": "REJECT" for i in (4, 5, 6)}, "Position v3"),
        assumptions("skew is bounded", "a whale", ["no whale"], core="skew"),
    )
    challengers = ["ch-a", "ch-b", "ch-c"]
    for m in challengers:
        server.script(
            m,
            verdict("disagree", "strong", [f"objection of {m}"]),
            rebuttal("MAINTAIN", f"R1 of {m}"),
            rebuttal("MAINTAIN", f"R2 of {m}"),
            assumptions("skew is not bounded", "a year with no whale", ["whales grow"]),
        )
    return {
        "proponent": {"model": "prop", "api_base": server.base_url},
        "challengers": [{"model": m, "api_base": server.base_url} for m in challengers],
    }


def test_challenge_challengers_of_a_step_share_all_but_their_own_part(llm_server: FakeLLMServer) -> None:
    panel = _challenge_panel(llm_server)
    result = moot.challenge_sync("Shard the orders table?", max_rounds=2, **panel)
    assert result.outcome == "TRADEOFF" and len(llm_server.requests) == 16
    challengers = ["ch-a", "ch-b", "ch-c"]
    # what each step of the challengers must share: the proponent's latest words and every challenger's
    expected = [
        ["Phase 2: PARALLEL CHALLENGE", "Shard orders by customer id"],
        ["Phase 5: REBUTTAL (round 1", *[f"objection of {m}" for m in challengers], "because O3", "Position v2"],
        ["Phase 5: REBUTTAL (round 2", *[f"R1 of {m}" for m in challengers], "because O6", "Position v3"],
        ["Phase 7: ASSUMPTION EXTRACTION", "Position v3"],
    ]
    for k, parts in enumerate(expected):
        sent = [llm_server.calls_for(m)[k] for m in challengers]
        prompts = [(full_text(r), f"You are challenger-{n}, a CHALLENGER.") for n, r in enumerate(sent, 1)]
        if k == 3:  # the proponent states its assumptions in the same step
            prompts.append((full_text(llm_server.calls_for("prop")[3]), "You are the PROPONENT"))
        prefix = shared_prefix(prompts)
        assert in_order(prefix, parts)
        if k == 0:  # the challengers answer independently
            assert not any("objection of" in text for text, _ in prompts)


def test_decide_judges_share_the_context_even_with_options_drawn_per_judge(llm_server: FakeLLMServer) -> None:
    """The options, in an order drawn for each judge, come after the context: the context (the long part)
    stays in the prefix every judge of the debate shares."""
    context = "The app is used in the field; connectivity is poor. " * 40
    stances = {"risk": "A", "value": "B", "effort": "C"}
    for stance, option in stances.items():
        others = {s: "not convinced" for s in stances if s != stance}
        llm_server.script(f"{stance}-m", r1(option, f"R1 of {stance}"), r2(option, challenge=others))
    judges = [{"model": f"{s}-m", "stance": s, "api_base": llm_server.base_url} for s in ("risk", "value", "effort")]
    moot.decide_sync(QUESTION, OPTIONS, context=context, judges=judges, write_files=False)
    for k in range(2):
        texts = [full_text(llm_server.calls_for(f"{s}-m")[k]) for s in stances]
        shared = texts[0]
        for text in texts[1:]:
            cut = next((i for i, (a, b) in enumerate(zip(shared, text, strict=False)) if a != b), len(shared))
            shared = shared[:cut]
        assert context.strip() in shared and "<option id=" not in shared  # the options, drawn per judge, after
        if k == 0:  # round 1: the instructions and the template are shared too
            assert "Reply in this template" in shared
        else:  # every judge's round-1 report, in seat order, before them too
            assert in_order(shared, [f"R1 of {s}" for s in stances])
