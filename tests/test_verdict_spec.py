"""A protocol's verdict words, their ranking and their tones are its spec's (`ProtocolSpec.verdict`): the
gate, the terminal's colours and the HTML report's tone read them there, so a protocol that ranks its words
otherwise gets another gate and other colours, with nothing written for it in the kernel."""

from __future__ import annotations

import ast
import importlib
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

import moot.protocols
from moot.api.gate import check_gate_options, gate_failure
from moot.errors import UsageError
from moot.protocol.verdict import VerdictSpec
from moot.render.terminal import TextReport

TOY = Path(__file__).resolve().parent / "toy_protocol"
SRC = Path(__file__).resolve().parents[1] / "src" / "moot"

# the toy's words turned around: a majority is the best a vote can do, a consensus only passes, a yes is good
TURNED = """
from dataclasses import replace

from moot.protocol.verdict import VerdictSpec
from moot_toy.api import SPEC as TOY_SPEC

VERDICT = VerdictSpec(
    words={"MAJORITY": "good", "CONSENSUS": "warn", "CONTESTED": "bad", "YES": "good", "NO": "bad"},
    require=("MAJORITY",),
    require_fails="the vote is unanimous",
    outcome_words=TOY_SPEC.verdict.outcome_words,
)
SPEC = replace(TOY_SPEC, verdict=VERDICT)
"""


def _forget_protocols() -> None:
    importlib.invalidate_caches()
    moot.protocols.entries.cache_clear()
    moot.protocols.spec_for.cache_clear()


def _register(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    """`vote` registered through an entry point to `module`, as another distribution would register it."""
    site = tmp_path / "site"
    info = site / "vote-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vote\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[moot.protocols]\nvote = {module}\n", encoding="utf-8")
    (site / "turned_vote.py").write_text(TURNED, encoding="utf-8")
    for path in (str(TOY), str(site)):
        monkeypatch.syspath_prepend(path)
    _forget_protocols()


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    _register(tmp_path, monkeypatch, "moot_toy")
    yield
    monkeypatch.undo()
    _forget_protocols()


@pytest.fixture
def turned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    _register(tmp_path, monkeypatch, "turned_vote")
    yield
    monkeypatch.undo()
    _forget_protocols()


def _vote(kind: str, answer: str | None = "yes") -> dict[str, object]:
    verdict = {"kind": kind, "answer": answer, "confidence": "HIGH", "needs_human": kind == "contested"}
    return {"protocol": "vote", "verdict": verdict}


def _coloured(report: TextReport, monkeypatch: pytest.MonkeyPatch) -> str:
    from moot.cli.output import text_for

    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    return text_for(report, io.StringIO())


def test_the_toys_spec_says_what_require_accepts_and_how_its_words_rank(toy: None) -> None:
    assert check_gate_options(None, "majority", "vote") == "MAJORITY"
    with pytest.raises(UsageError, match=r"--require must be CONSENSUS or MAJORITY \(got 'PASS'\)"):
        check_gate_options(None, "PASS", "vote")
    with pytest.raises(UsageError, match=r"--fail-under applies to scored evaluations \(moot evaluate\) only"):
        check_gate_options(3.0, None, "vote")
    assert gate_failure(_vote("consensus"), require="MAJORITY") is None  # better than required
    assert gate_failure(_vote("majority"), require="MAJORITY") is None
    assert gate_failure(_vote("majority"), require="CONSENSUS") == "outcome MAJORITY is not --require CONSENSUS"
    assert gate_failure(_vote("contested", None), require="MAJORITY") == "outcome CONTESTED is not --require MAJORITY"


def test_another_ranking_in_the_spec_changes_the_gate(turned: None) -> None:
    assert check_gate_options(None, "majority", "vote") == "MAJORITY"
    with pytest.raises(UsageError, match=r"--require must be MAJORITY \(got 'consensus'\)"):
        check_gate_options(None, "consensus", "vote")
    assert gate_failure(_vote("majority"), require="MAJORITY") is None
    assert gate_failure(_vote("consensus"), require="MAJORITY") == "outcome CONSENSUS is not --require MAJORITY"


def test_the_command_offers_require_in_the_specs_words(turned: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import typer

    from moot.cli import protocol_cmd

    monkeypatch.setenv("COLUMNS", "200")
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command("vote")(protocol_cmd.protocol_command("vote"))
    command = typer.main.get_command(app)
    shown = " ".join(command.get_help(command.make_context("vote", ["--help"], resilient_parsing=True)).split())
    assert "MAJORITY: exit 1 when the vote is unanimous (CI gate)." in shown
    assert "--fail-under" not in shown


def test_the_terminal_colours_each_word_in_its_protocols_tone(toy: None, monkeypatch: pytest.MonkeyPatch) -> None:
    report = TextReport("", blocks=["MAJORITY then CONTESTED, not PASS or FAIL"])
    shown = _coloured(report, monkeypatch)
    assert "\x1b[1;33mMAJORITY\x1b[0m" in shown  # warn, as the toy's spec gives it
    assert "\x1b[1;32mPASS\x1b[0m" in shown and "\x1b[1;31mFAIL\x1b[0m" in shown  # the built-ins' own


def test_another_tone_in_the_spec_changes_the_colour(turned: None, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _coloured(TextReport("", blocks=["MAJORITY then CONSENSUS"]), monkeypatch)
    assert "\x1b[1;32mMAJORITY\x1b[0m" in shown  # good, as the turned spec ranks it
    assert "\x1b[1;32mCONSENSUS\x1b[0m" in shown  # a word two protocols give keeps the first's tone (challenge)


def test_a_word_no_protocol_gives_is_not_coloured(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _coloured(TextReport("", blocks=["MAJORITY and PASS"]), monkeypatch)
    assert "\x1b[1;32mPASS\x1b[0m" in shown and "MAJORITY and" in shown


def test_the_html_verdict_tone_is_the_specs(turned: None) -> None:
    from moot.api.report import build_view
    from moot.render.html_common import DebateRecord

    def record(answer: str) -> DebateRecord:
        result = _vote("consensus", answer)
        return DebateRecord("d1", "vote", "t", "finished", "2026-01-01", {}, result, None, [])

    assert build_view(record("yes")).verdict.tone == "pass"
    assert build_view(record("no")).verdict.tone == "fail"
    assert build_view(record("maybe")).verdict.tone == "neutral"


def test_the_tones_of_a_spec() -> None:
    spec = VerdictSpec({"A": "good", "B": "warn", "C": "bad"}, require=("A", "B"))
    assert [spec.html_tone(w) for w in ("A", "b", "C", "D")] == ["pass", "conditional", "fail", "neutral"]
    assert [spec.at_least(w, "B") for w in ("A", "B", "C", "D")] == [True, True, False, False]


def _verdict_words() -> set[str]:
    return {word for spec in moot.protocols.specs() for word in spec.verdict.words}


def _constants(path: Path) -> set[str]:
    """The string constants of a module, its docstrings left out (prose may name a word; a table may not)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    }


def test_no_module_outside_the_protocols_names_a_verdict_word() -> None:
    """The gate, the renderers, the CLI and the bench read the words from the specs."""
    words = _verdict_words()
    assert {"PASS", "RECOMMENDED", "CONSENSUS"} <= words
    found = {
        f"{path.relative_to(SRC)}: {word}"
        for path in SRC.rglob("*.py")
        if path.relative_to(SRC).parts[0] != "protocols"
        for word in _constants(path) & words
    }
    assert not found
