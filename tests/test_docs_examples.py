"""The docs stay true: every shell and Python block of README.md and docs/*.md runs as written (offline, no
API key, in a fresh folder and store, `moot` on PATH) unless its fence names why it cannot (the rule below,
stated in the README), the CI job uses only options `moot evaluate` has, and the pictures exist."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^( *)```(\w+)([^\n]*)\n(.*?)^\1```$", re.S | re.M)  # indented in a list too
RUNNABLE = ("bash", "sh", "python")
# The one rule for which blocks are not run: the fence names why, after the language (```bash needs-key).
WHY_NOT_RUN = {
    "needs-key": "calls a vendor's API or a logged-in agent CLI",
    "reader-files": "works on the reader's own files or debates (a DEBATE_ID, their judges.yaml)",
    "synopsis": "a usage line with [optional] parts and placeholders, not a command",
    "installs": "creates a venv, installs packages or runs the test suite itself",
    "server": "starts a server that runs until it is stopped",
}


def fences(doc: Path) -> list[tuple[str, str, str]]:
    """(language, the fence's marker, body) of every fenced block with a language."""
    found = FENCE.findall(doc.read_text(encoding="utf-8"))
    return [(lang, info.strip(), textwrap.dedent(body)) for _, lang, info, body in found]


def blocks(doc: str, lang: str) -> list[str]:
    """The unmarked blocks of a doc in one language (a marked block is not run)."""
    return [body for kind, marker, body in fences(DOCS / doc) if kind == lang and not marker]


DOC_FILES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
EXAMPLES = [
    (doc.relative_to(ROOT).as_posix(), i, lang, body)
    for doc in DOC_FILES
    for i, (lang, marker, body) in enumerate(fences(doc))
    if lang in RUNNABLE and not marker
]


def test_every_block_that_is_not_run_says_why() -> None:
    for doc in DOC_FILES:
        for lang, marker, _ in fences(doc):
            # another name for a shell or Python would slip past the rule: only these three are used
            assert lang not in ("shell", "console", "zsh", "py", "python3", "pycon"), f"{doc.name}: ```{lang}"
            assert lang not in RUNNABLE or marker in ("", *WHY_NOT_RUN), f"{doc.name}: unknown marker {marker!r}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"`{marker}`" in readme for marker in WHY_NOT_RUN)  # the rule is stated where users read it
    ran = {doc for doc, *_ in EXAMPLES}
    assert {"README.md", "docs/api.md", "docs/ci.md", "docs/mcp.md", "docs/providers.md"} <= ran


def test_there_are_examples_for_every_protocol() -> None:
    api = "\n".join(blocks("api.md", "python"))
    for call in ("moot.evaluate_sync(", "moot.decide_sync(", "moot.challenge_sync(", "await moot.evaluate("):
        assert call in api
    assert len(blocks("mcp.md", "python")) == 1


@pytest.mark.parametrize(("doc", "index", "lang", "code"), EXAMPLES, ids=[f"{d}#{i}" for d, i, *_ in EXAMPLES])
def test_example_runs_as_written(doc: str, index: int, lang: str, code: str, tmp_path: Path) -> None:
    if lang == "python":
        script = tmp_path / "example.py"
        script.write_text(code, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env["MOOT_HOME"] = str(tmp_path / "home")
        r = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=90
        )
    else:
        # as pasted into a terminal (which does not stop at a failing line): no line may be an error either
        r = _run_sh("set -o pipefail\n" + code, tmp_path)
    assert r.returncode == 0, f"{doc} block {index} failed:\n{r.stdout}\n{r.stderr}"
    assert "moot: error" not in r.stderr and "Traceback" not in r.stderr, f"{doc} block {index}:\n{r.stderr}"


def test_ci_job_uses_real_options(capsys: pytest.CaptureFixture[str]) -> None:
    [job] = [yaml.safe_load(b) for b in blocks("ci.md", "yaml") if "judge-the-plan" in b]
    steps = job["jobs"]["judge-the-plan"]["steps"]
    script = next(s["run"] for s in steps if "moot evaluate" in s.get("run", ""))
    assert "set -o pipefail" in script and "$GITHUB_STEP_SUMMARY" in script
    assert main(["evaluate", "--help"]) == 0
    help_text = capsys.readouterr().out
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", script))
    assert {"--fail-under", "--require", "--format", "--html"} <= used
    assert all(flag in help_text for flag in used), used - {f for f in used if f in help_text}


def test_ci_action_example_uses_the_actions_inputs_and_outputs() -> None:
    """The documented workflow passes only inputs action.yml declares and reads only outputs it sets."""
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    [workflow] = [yaml.safe_load(b) for b in blocks("ci.md", "yaml") if "/moot@" in b and "id: moot" in b]
    [step] = [s for s in workflow["jobs"]["review"]["steps"] if s.get("id") == "moot"]
    assert set(step["with"]) <= set(action["inputs"])
    text = (DOCS / "ci.md").read_text(encoding="utf-8")
    assert set(re.findall(r"steps\.moot\.outputs\.([\w-]+)", text)) <= set(action["outputs"])
    assert {"criteria", "judges", "fail-on", "comment", "sarif", "max-cost", "github-token"} == set(action["inputs"])
    assert {"verdict", "score", "outcome", "debate-id", "report-path", "sarif-path"} == set(action["outputs"])


def test_mcp_registration_snippet_is_valid_json() -> None:
    (snippet,) = blocks("mcp.md", "json")
    server = json.loads(snippet)["mcpServers"]["moot"]
    env = server.pop("env")
    assert server == {"command": "moot", "args": ["mcp"]}
    # the store and the vendors' keys reach the server only through `env` (an MCP client passes few variables)
    assert {"MOOT_HOME", "OPENAI_API_KEY", "GEMINI_API_KEY", "XAI_API_KEY"} <= set(env)
    assert all(v.startswith("<your ") for k, v in env.items() if k.endswith("_API_KEY"))  # placeholders, no key


@pytest.mark.parametrize("protocol", ["evaluate", "decide", "challenge"])
def test_report_picture_exists(protocol: str) -> None:
    png = DOCS / f"report-{protocol}.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _run_sh(block: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A shell example as a user runs it: `moot` on PATH (this source tree's), no API key, a fresh store."""
    bin_dir = cwd / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "moot"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m moot "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(MOOT_HOME=str(cwd / "home"), PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}")
    return subprocess.run(["bash", "-c", block], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_ci_no_key_gate_example_runs_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = [b for b in blocks("ci.md", "sh") if "moot demo --export" in b]
    r = _run_sh(block, tmp_path)
    assert r.stdout.rstrip().endswith("exit 1"), r.stdout + r.stderr  # as the text says: CONDITIONAL < PASS
    assert "moot evaluate: CONDITIONAL (3.65/5)" in r.stdout
    assert "gate failed: verdict CONDITIONAL is below --require PASS" in r.stderr
    passing = tmp_path / "passing"
    passing.mkdir()
    r = _run_sh(block.replace("--require PASS", "--require CONDITIONAL"), passing)
    assert r.stdout.rstrip().endswith("exit 0"), r.stdout + r.stderr
    # the doc's command is the one `moot demo --export` prints (plus the gate's options)
    assert main(["demo", "--export", str(tmp_path / "again")]) == 0
    printed = capsys.readouterr().out.strip().splitlines()[-1].split(" && ", 1)[1]
    documented = shlex.split(block.replace("\\\n", " ").splitlines()[-1].split(";")[0])
    assert shlex.split(printed) == documented[: len(shlex.split(printed))]


# a command whose comment starts with a quote shows its output: `moot ... | grep x    # "outcome": "X",`
SHOWN = re.compile(r"^(moot [^#\n]*?)\s+#\s+(\"[^\n]*)$", re.M)
SHOWN_OUTPUT = [
    (doc, command, shown)
    for doc, _, lang, code in EXAMPLES
    if lang in ("bash", "sh")
    for command, shown in SHOWN.findall(code)
]


def test_the_docs_show_some_output() -> None:
    assert any("moot demo decide" in command for _, command, _ in SHOWN_OUTPUT)


@pytest.mark.parametrize(("doc", "command", "shown"), SHOWN_OUTPUT, ids=[c for _, c, _ in SHOWN_OUTPUT])
def test_a_command_prints_the_output_its_comment_shows(doc: str, command: str, shown: str, tmp_path: Path) -> None:
    r = _run_sh("set -o pipefail\n" + command, tmp_path)
    assert r.returncode == 0, r.stderr
    assert [line.strip() for line in r.stdout.splitlines()] == [shown.strip()], f"{doc}: {command}"


def test_the_bench_demo_example_prints_the_whole_verdict(tmp_path: Path) -> None:
    """bench.md's example prints the verdict paragraph, from its first word to its last sentence's end (its
    `tail -4` began mid-sentence); the whole output's first line says the costs are made up."""
    (line,) = [
        line
        for b in blocks("bench.md", "bash")
        for line in b.splitlines()
        if "moot demo bench" in line and "Verdict" in line
    ]
    command, _, _ = line.partition("#")
    produce, _, pipeline = command.partition("|")
    whole = _run_sh(produce, tmp_path)
    assert whole.returncode == 0, whole.stderr
    assert "made-up demo prices" in whole.stdout.splitlines()[0]
    shown = subprocess.run(["bash", "-c", pipeline], input=whole.stdout, capture_output=True, text=True, check=True)
    assert shown.stdout.startswith("Verdict: ") and shown.stdout.endswith(".\n"), shown.stdout
    assert "\n\n" not in shown.stdout and "against it" in shown.stdout
    assert whole.stdout.endswith(shown.stdout)  # the verdict is the output's last paragraph, whole


def _moot_requirements(text: str) -> list[str]:
    """Every requirement naming moot in a runtime_env's `"pip": [...]` and after `pip install` in `text`."""
    found = [r for group in re.findall(r'"pip": \[(.*)\]', text) for r in re.findall(r'"([^"]+)"', group)]
    found += re.findall(r"pip install (?:-\S+ )*'([^']+)'", text)
    return [r for r in found if r.startswith(("moot", "."))]


def test_the_ray_examples_install_moot_in_a_form_that_works_before_pypi() -> None:
    """moot is not on PyPI yet (the README's Install): the Ray workers' `pip` and the driver's install name
    its checkout or its git URL, never a bare `moot`, which pip would look for on PyPI."""
    from packaging.requirements import Requirement

    wanted = _moot_requirements((DOCS / "batch.md").read_text(encoding="utf-8"))
    assert len(wanted) >= 3, wanted  # the install, the runtime_env, the job's runtime env
    for given in wanted:
        if given.startswith("."):
            continue  # the checkout, as the README installs it
        requirement = Requirement(given)
        assert requirement.name == "moot" and requirement.url, given
        assert requirement.url.startswith("git+https://github.com/"), given


def test_the_host_page_counts_the_host_replies_the_store_really_holds(tmp_path: Path) -> None:
    """docs/host.md's three host judges from a shell: its comment says how many host replies `moot show
    --calls` lists; the block, run as written, lists that many."""
    [block] = [b for b in blocks("host.md", "bash") if "--calls" in b]
    said = re.search(r"every call stored: (\w+) host replies", block)
    assert said is not None
    r = _run_sh(block, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    listed = [line for line in r.stdout.splitlines() if re.search(r"\bok\b.*\bhost$", line.rstrip())]
    numbers = {"three": 3, "six": 6, "nine": 9, "twelve": 12}
    assert len(listed) == numbers[said.group(1)], r.stdout
