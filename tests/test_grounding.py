"""`moot.grounding`: a quote is found verbatim (whitespace aside) in what was shown, and at the place it names."""

from __future__ import annotations

from moot.diffs import change_of
from moot.grounding import NO_QUOTE, NOT_FOUND, WRONG_PLACE, ground, source_of, sources
from moot.protocols.evaluate.hardening import caps_verdict, report_order, unsupported
from moot.protocols.evaluate.schemas import CriticalFinding
from moot.schemas.config import Artifact

CODE = "def load(uid):\n    query = 'SELECT * FROM t WHERE id=' + uid\n    return db.run(query)\n"


def test_whitespace_does_not_count_nothing_else_is_forgiven() -> None:
    shown = [source_of("app.py", CODE)]
    assert ground("query='SELECT * FROM t WHERE id='+uid", shown).grounded  # re-spaced
    assert ground("+ uid\n        return db.run(query)", shown).grounded  # re-wrapped across lines
    assert ground("query = 'SELECT * FROM t WHERE id=' + user_id", shown).reason == NOT_FOUND
    assert ground("query = 'SELECT ... ' + uid", shown).reason == NOT_FOUND  # no ellipsis
    assert ground("", shown).reason == NO_QUOTE and ground("  uid ", shown).reason == NO_QUOTE  # too short to prove


def test_the_location_must_hold_the_quote() -> None:
    shown = sources([Artifact(path="./app.py", text=CODE)], task="Review the loader")
    quote = "return db.run(query)"
    assert ground(quote, shown, file="app.py", line=3).grounded
    assert ground(quote, shown, file="app.py").grounded  # a file without a line: anywhere in it
    assert ground(quote, shown, file="app.py", line=1).reason == WRONG_PLACE
    assert ground(quote, shown, file="other.py", line=3).reason == WRONG_PLACE
    assert ground("Review the loader", shown).grounded  # the task was shown too


def test_a_diff_is_quoted_on_its_new_side_by_new_line_numbers() -> None:
    patch = (
        "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n def load(uid):\n"
        "-    query = 'SELECT * FROM t WHERE id=%s'\n+    query = 'SELECT * FROM t WHERE id=' + uid\n"
        "     return db.run(query)\n"
    )
    [artifact] = change_of(patch, "test", lambda _path: None).artifacts
    shown = sources([artifact])
    assert ground("query = 'SELECT * FROM t WHERE id=' + uid", shown, file="app.py", line=2).grounded
    assert ground("WHERE id=%s'", shown).reason == NOT_FOUND  # the removed line is not what is judged
    assert ground("+    query = 'SELECT", shown).reason == NOT_FOUND  # the diff's markers are not the code


def test_only_a_grounded_agreed_finding_caps() -> None:
    real = CriticalFinding(id="C1", finding="x", raised_by="judge-1", round=1, grounded=True)
    invented = CriticalFinding(id="C2", finding="y", raised_by="judge-2", round=1, grounded=False)
    assert caps_verdict([real], {"C1": "agreed"}, grounding=True)
    assert not caps_verdict([invented], {"C2": "agreed"}, grounding=True)
    assert caps_verdict([invented], {"C2": "agreed"}, grounding=False)
    assert not caps_verdict([real], {"C1": "disputed"}, grounding=True)


def test_report_orders_are_drawn_per_judge_and_round_and_reproducible() -> None:
    seats = ["judge-1", "judge-2", "judge-3", "judge-4"]
    drawn = {(s, r): report_order("seed", s, r, seats, shuffled=True) for s in seats for r in (2, 3)}
    assert all(sorted(order) == seats for order in drawn.values())
    assert len({tuple(o) for o in drawn.values()}) > 1
    assert drawn == {(s, r): report_order("seed", s, r, seats, shuffled=True) for s in seats for r in (2, 3)}
    assert report_order("seed", "judge-1", 2, seats, shuffled=False) == seats


def test_a_change_must_name_a_grounded_finding_or_another_judge() -> None:
    assert unsupported(4.0, 3.0, [], ["C1"], ["B"])
    assert unsupported(4.0, 3.0, ["C2"], ["C1"], ["B"])  # C2 is not grounded
    assert not unsupported(4.0, 3.0, ["C1"], ["C1"], ["B"])
    assert not unsupported(4.0, 3.0, ["B"], [], ["B"])
    assert not unsupported(4.0, 4.0, [], [], [])  # no change, nothing to support
