"""The built-in rubrics (`--criteria code`) are rubric files moot ships, in the form a user's own rubric
file takes: each still gives the names, weights and help texts it gave when it was a table in the code."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

import pytest

from moot.protocols.evaluate.criteria import load_criteria, normalise, parse_criteria_string

# Written down from the table the built-ins were before they became files.
EXPECTED: dict[str, list[tuple[str, float, str]]] = {
    "plan": [
        ("problem_understanding", 20, "Is the problem understood and stated correctly?"),
        ("architecture_quality", 25, "Is the architecture sound, simple and fit for the problem?"),
        ("risk_mitigation", 20, "Are the risks named and mitigated?"),
        ("implementation_clarity", 20, "Could an engineer implement this without guessing?"),
        ("feasibility", 15, "Can it be built with the time and people at hand?"),
    ],
    "code": [
        ("correctness", 30, "Does it work? Handles edge cases?"),
        ("design_quality", 25, "Clean architecture? Maintainable?"),
        ("efficiency", 20, "Performance considerations?"),
        ("code_quality", 15, "Readable? Well-documented?"),
        ("testing", 10, "Test coverage? Test quality?"),
    ],
    "design": [
        ("completeness", 30, "All requirements addressed?"),
        ("feasibility", 25, "Can it actually be built?"),
        ("scalability", 20, "Handles growth?"),
        ("simplicity", 15, "Appropriately simple?"),
        ("documentation", 10, "Clear and comprehensive?"),
    ],
    "documentation": [
        ("accuracy", 35, "Technically correct?"),
        ("completeness", 30, "Covers all necessary topics?"),
        ("clarity", 20, "Easy to understand?"),
        ("usability", 15, "Helpful examples? Good structure?"),
    ],
}


def test_the_built_in_rubrics_are_the_four_named_in_the_help() -> None:
    shipped = importlib.resources.files("moot.schemas") / "rubrics"
    assert sorted(f.name for f in shipped.iterdir() if f.name.endswith(".yaml")) == [
        f"{n}.yaml" for n in sorted(EXPECTED)
    ]
    with pytest.raises(ValueError, match="has no weight"):
        parse_criteria_string("security")  # not a built-in: read as a criterion missing its weight


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_built_in_rubric_keeps_its_names_weights_and_help(name: str) -> None:
    criteria = parse_criteria_string(f"  {name} ")
    assert [(c.name, c.weight, c.description) for c in criteria] == [
        (c.name, c.weight, c.description) for c in normalise(list(EXPECTED[name]))
    ]
    assert [round(c.weight * 100) for c in criteria] == [weight for _, weight, _ in EXPECTED[name]]
    assert load_criteria(name) == criteria


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_built_in_rubric_file_is_a_rubric_file_a_user_could_pass(name: str) -> None:
    shipped = importlib.resources.files("moot.schemas") / "rubrics" / f"{name}.yaml"
    with importlib.resources.as_file(shipped) as path:
        assert load_criteria(str(path)) == parse_criteria_string(name)


def test_a_built_in_rubric_handed_out_twice_is_not_shared() -> None:
    first = parse_criteria_string("code")
    first.clear()
    assert len(parse_criteria_string("code")) == 5


def test_a_rubric_name_in_another_case_is_that_rubric() -> None:
    assert parse_criteria_string("Code") == parse_criteria_string("code")
    assert parse_criteria_string("DOCUMENTATION") == parse_criteria_string("documentation")


@pytest.mark.parametrize(
    ("given", "nearest"), [("docs", "documentation"), ("desgin", "design"), ("plans", "plan"), ("security", None)]
)
def test_a_bare_word_is_told_the_built_in_rubrics_and_the_nearest(given: str, nearest: str | None) -> None:
    with pytest.raises(ValueError, match="has no weight") as caught:
        parse_criteria_string(given)
    message = str(caught.value)
    assert "a built-in rubric: code, design, documentation, plan" in message
    assert message.endswith(f"did you mean '{nearest}'?)" if nearest else "plan)")


def test_the_command_says_it_in_one_line_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from moot.cli.app import main

    (tmp_path / "a.md").write_text("# A plan\n", encoding="utf-8")
    assert main(["evaluate", "-s", str(tmp_path / "a.md"), "--criteria", "docs", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean 'documentation'?" in err
