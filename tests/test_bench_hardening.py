"""`moot bench planted-findings|position|verbosity|bandwagon`: each suite runs end to end on the local server
(scripted judges, two items), prints every rate on and off with its interval, the paired difference and the
cost per debate; a judge of the user's own goes in the seat under test; bad input is one line and exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(300)
SUITES = "planted-findings,bandwagon,position,verbosity"


def _bench(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["bench", *args, "--no-progress"])
    out, err = capsys.readouterr()
    return code, out, err


def _rates(result: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    """measure -> (hits with the rules on, hits with them off, items)."""
    return {
        m["measure"]: (m["on"]["hits"], m["off"]["hits"], m["on"]["n"]) for s in result["suites"] for m in s["measures"]
    }


def test_each_suite_reports_its_rates_on_and_off_and_the_rules_do_what_they_say(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _bench(capsys, SUITES, "--limit", "2", "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert [s["suite"] for s in result["suites"]] == SUITES.split(",") and result["tested"] == "scripted"
    rates = _rates(result)
    assert rates["invented_caps"] == (0, 2, 2)  # grounding on: the invented quote caps nothing
    assert rates["real_caps"] == (2, 2, 2)  # the real one still does
    assert rates["flip_unsupported"] == (2, 0, 2)  # the herder's flip is listed only with the rule on
    assert rates["padded_wins"] == (2, 2, 2)  # a longest-option picker is not cured by the option order
    for s in result["suites"]:
        for m in s["measures"]:
            low, high = m["difference"]["ci95"]
            assert low <= m["difference"]["estimate"] <= high
            assert m["difference"]["inconclusive"] is (low <= 0 <= high)
            assert 0 <= m["on"]["ci95"][0] <= m["on"]["rate"] <= m["on"]["ci95"][1] <= 1
        for arm in ("on", "off"):
            assert s["cost"][arm]["calls_per_debate"] > 0 and s["cost"][arm]["tokens_per_debate"] > 0
    position = next(s for s in result["suites"] if s["suite"] == "position")
    assert position["cost"]["on"]["calls_per_debate"] == position["cost"]["off"]["calls_per_debate"] == 3


def test_the_text_shows_each_rate_with_its_interval_the_difference_and_the_cost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _bench(capsys, "planted-findings", "--limit", "2")
    assert code == 0
    assert "judge under test: scripted" in out
    block = out.split("an invented finding caps the verdict\n")[1]
    assert re.match(r" +rules on +0/2 += 0\.00 \[0\.00, 0\.66\]\n +rules off +2/2 += 1\.00 \[0\.34, 1\.00\]\n", block)
    assert re.search(r"on - off +-1\.00 \[-1\.00, \+0\.\d\d\] inconclusive", block)  # two items prove nothing yet
    assert re.search(r"cost per debate: on \d\.\d calls, \d+ tokens; off \d\.\d calls, \d+ tokens", out)


def test_a_judge_of_the_users_own_sits_in_the_seat_under_test(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's first judge answers in every tested seat: one that picks the shortest option is never won
    over by padding, where the scripted longest-option picker always is."""

    def shortest(model: str, body: dict[str, Any]) -> Reply:
        text = "\n".join(m["content"] for m in body["messages"])  # the options in this judge's own order
        options = re.findall(r'<option id="([^"]+)">\n(.*?)\n</option>', text, re.DOTALL)
        pick = min(options, key=lambda o: len(o[1]))[0]
        return Reply(text=yaml.safe_dump({"recommendation": pick, "confidence": "HIGH", "rationale": "shorter"}))

    llm_server.responder = shortest
    judges = tmp_path / "mine.yaml"
    judges.write_text(yaml.safe_dump({"debate_judges": [{"model": "mine", "api_base": llm_server.base_url}]}))
    code, out, _ = _bench(capsys, "verbosity", "--limit", "2", "--judges", str(judges), "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert _rates(result)["padded_wins"] == (0, 0, 2) and result["tested"].startswith("mine (judge 1 of")
    assert {r.model for r in llm_server.requests} == {"mine"} and len(llm_server.requests) == 12  # 3 seats x 4


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["position,judgebench"], "unknown hardening suite 'judgebench'"),
        (["bandwagon", "--html", "x.html"], "--html does not apply to the hardening suites"),
        (["verbosity", "--limit", "0"], "--limit must be at least 1"),
        (["position", "--judges", "no-such.yaml"], "no such judges file: no-such.yaml"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], said: str, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _bench(capsys, *args)
    assert code == 2 and out == "" and said in err and len(err.strip().splitlines()) == 1


def test_an_item_whose_debate_cannot_finish_is_left_out_and_named(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A judge under test whose every reply is unreadable: no decide debate can finish, so the item is left
    out (a difference is read from items both arms finished), the output says why, and the exit is 1."""
    llm_server.responder = lambda model, body: Reply(text="I would rather not say.")
    judges = tmp_path / "mine.yaml"
    judges.write_text(yaml.safe_dump({"debate_judges": [{"model": "mute", "api_base": llm_server.base_url}]}))
    code, out, err = _bench(capsys, "verbosity", "--limit", "1", "--judges", str(judges), "--format", "json")
    [suite] = json.loads(out)["suites"]
    assert code == 1 and "1 item left out" in err
    assert len(suite["failed"]) == 1 and suite["failed"][0].startswith("item 1: ")
    assert suite["measures"][0]["difference"] is None
