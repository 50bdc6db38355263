"""Judges files of scripted judges (replies inline) for the report, gate, MCP and docs tests: no server,
no network, and a debate that ends the same way every time."""

from __future__ import annotations

from pathlib import Path

import yaml

from .replies import CRITERIA, round1, round2

INJECTED = (
    "<script>document.title='pwned'</script>"
    "<img src=x onerror=\"document.title='pwned-by-img'\">"
    "</pre></details><b id=injected>bold?</b>"
)


def converging_panel(tmp_path: Path, *, inject: bool = False, low: bool = False, name: str = "panel.yaml") -> Path:
    """Three judges that disagree in round 1 and agree in round 2 (final score about 4.07, PASS).

    `inject` puts markup and a script into judge-3's first reply; `low` makes the panel agree on about
    2.9 instead (a FAIL).
    """
    shift = -1.2 if low else 0.0
    j3_first = round1(3.0 + shift, 3 if not low else 2, prose=INJECTED if inject else "")
    keys = ["correctness", "design", "security", "performance", "docs"]
    judges = [
        {
            "model": "scripted",
            "name": "alpha",
            "stance": "neutral",
            "replies": [round1(4.0 + shift, 4), round2(4.0 + shift)],
        },
        {
            "model": "scripted",
            "name": "beta",
            "stance": "for",
            "replies": [
                round1(4.8 + shift, 5 if not low else 4),
                round2(4.3 + shift, {"security": 4, "design": 4} if not low else None),
            ],
        },
        {
            "model": "scripted",
            "name": "gamma",
            "stance": "against",
            "replies": [j3_first, round2(3.9 + shift, {k: 4 if not low else 3 for k in keys})],
        },
    ]
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"debate_judges": judges}, sort_keys=False), encoding="utf-8")
    return path


def artifact(tmp_path: Path) -> Path:
    path = tmp_path / "plan.md"
    path.write_text("# Plan\n<b>bold</b> <script>alert(1)</script>\n", encoding="utf-8")
    return path


def evaluate_args(tmp_path: Path, panel: Path, *extra: str) -> list[str]:
    return [
        "evaluate",
        "--solution",
        str(artifact(tmp_path)),
        "--criteria",
        CRITERIA,
        "--judges",
        str(panel),
        "--no-reports",
        *extra,
    ]


def decide_panel(tmp_path: Path, *, inject: bool = False, name: str = "decide-panel.yaml") -> Path:
    """Risk, Value and Effort judges split A/B/C in round 1; Value moves to C in round 2 (RECOMMENDED C)."""
    from .test_decide_support import r1, r2

    judges = [
        {
            "model": "scripted",
            "name": "risk-judge",
            "stance": "risk",
            "replies": [r1("A", "sync bugs appear after weeks"), r2("A", challenge={"value": "40% is a guess"})],
        },
        {
            "model": "scripted",
            "name": "value-judge",
            "stance": "value",
            "replies": [
                r1("B", "field workers need it", prose=INJECTED if inject else ""),
                r2("C", challenge={"effort": "the cache may be small"}, reason="Convinced by the ROI analysis"),
            ],
        },
        {
            "model": "scripted",
            "name": "effort-judge",
            "stance": "effort",
            "replies": [r1("C", "ship now, expand later"), r2("C", challenge={"value": "B costs 3x"})],
        },
    ]
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"debate_judges": judges}, sort_keys=False), encoding="utf-8")
    return path


def contested_decide_panel(tmp_path: Path) -> Path:
    """Risk, Value and Effort judges on A, B and C in both rounds: CONTESTED."""
    from .test_decide_support import r1, r2

    judges = [
        {"model": "scripted", "stance": stance, "replies": [r1(opt), r2(opt, challenge={other: "not convinced"})]}
        for stance, opt, other in (("risk", "A", "value"), ("value", "B", "effort"), ("effort", "C", "risk"))
    ]
    path = tmp_path / "contested.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def decide_args(panel: Path, *extra: str) -> list[str]:
    from .test_decide_support import OPTIONS, QUESTION

    args = ["decide", "--question", QUESTION, "--judges", str(panel), "--no-files", "--no-input"]
    for o in OPTIONS:
        args += ["--option", o]
    return [*args, *extra]


def challenge_panel(tmp_path: Path, *, inject: bool = False, name: str = "challenge-panel.yaml") -> Path:
    """A proponent and two challengers: one agrees at once, one objects to the end (TRADEOFF in 2 rounds)."""
    from .challenge_helpers import assumptions, confront, opening, rebuttal, verdict

    proponent = {
        "model": "scripted",
        "name": "proponent-model",
        "replies": [
            opening(),
            confront({"O1": "REJECT"}, "Shard orders by customer id"),
            confront({"O2": "REJECT"}, "Shard orders by customer id, revisit at 10x load"),
            assumptions(
                "the skew is manageable",
                "a customer above 5% of writes",
                ["no customer above 5% of writes"],
                core="whether customer skew is bounded",
            ),
        ],
    }
    challengers = [
        {"model": "scripted", "name": "agreeable", "replies": [verdict("agree", "minor")]},
        {
            "model": "scripted",
            "name": "sceptic",
            "replies": [
                verdict(
                    "disagree",
                    "strong",
                    ["one whale customer saturates its shard"],
                    reasoning=(INJECTED if inject else "") + " a whale customer exists",
                ),
                rebuttal("MAINTAIN"),
                rebuttal("ESCALATE", "revisiting later means a live migration"),
                assumptions("the skew is not bounded", "a year with no whale", ["the largest customer keeps growing"]),
            ],
        },
    ]
    path = tmp_path / name
    data = {"proponent": proponent, "challengers": challengers, "max_rounds": 2}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def challenge_args(panel: Path, *extra: str) -> list[str]:
    return ["challenge", "How should we shard the orders table?", "--judges", str(panel), *extra]
