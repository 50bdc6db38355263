"""The review step of the GitHub Action (`action.yml` at the repository's root): `moot evaluate --diff` over
the pull request's base...head, then what a workflow needs of it.

Run as `python -m moot.protocols.evaluate.github_action` with the action's inputs in `INPUT_*` variables
(`INPUT_CRITERIA`, `INPUT_JUDGES`, `INPUT_FAIL_ON`, `INPUT_COMMENT`, `INPUT_SARIF`, `INPUT_MAX_COST`,
`INPUT_GITHUB_TOKEN`) and GitHub's own (`GITHUB_EVENT_PATH`, `GITHUB_REPOSITORY`, `GITHUB_API_URL`,
`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`). The judges file, a `moot.yaml` and a rubric file are read from the
pull request's base revision, never from its head (`moot.protocols.evaluate.action_panel`). It writes:

- every output to `GITHUB_OUTPUT`: verdict, score, outcome (pass or fail under `fail-on`), debate-id,
  report-path (the HTML report), sarif-path (empty unless `sarif` names a file);
- the verdict as GitHub Markdown to the step summary;
- with `comment` true, one pull-request review through the REST API at `GITHUB_API_URL`: the summary as
  its body and one inline comment per located finding, on its line of the new file;
- its exit code from `fail-on` (FAIL: 1 on FAIL; CONDITIONAL: 1 on FAIL or CONDITIONAL; never: 0), or
  moot's own when the debate could not run (2 bad input, 3 too few judges).

The judges' keys come from the workflow's secrets as environment variables; this module never reads them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from moot.errors import UsageError
from moot.protocols.evaluate.action_panel import BasePanel, base_panel
from moot.protocols.evaluate.locations import located, sarif
from moot.protocols.evaluate.text import evaluation_github
from moot.render.github import md, render_github

FAILING = {"FAIL": {"FAIL"}, "CONDITIONAL": {"FAIL", "CONDITIONAL"}, "NEVER": set()}


def _input(name: str, default: str = "") -> str:
    return os.environ.get(f"INPUT_{name.upper().replace('-', '_')}", default).strip() or default


def _pull_request() -> dict[str, Any]:
    event = json.loads(Path(os.environ["GITHUB_EVENT_PATH"]).read_text(encoding="utf-8"))
    pr = event.get("pull_request")
    if not isinstance(pr, dict):
        raise SystemExit("moot review: this action runs on pull_request events (no pull_request in the event)")
    return pr


def _panel(pr: Mapping[str, Any]) -> BasePanel:
    """The judges file and criteria from the pull request's base revision (`action_panel`), never its head's."""
    into = Path(tempfile.mkdtemp(prefix="moot-action-", dir=os.environ.get("RUNNER_TEMP") or None))
    base, head = str(pr["base"]["sha"]), str(pr["head"]["sha"])
    return base_panel(Path.cwd(), base, head, _input("judges"), _input("criteria", "code"), into)


def _evaluate(pr: Mapping[str, Any], report: Path, panel: BasePanel) -> tuple[int, dict[str, Any], str]:
    """moot evaluate over base...head: its exit code, its JSON result (empty when it could not run) and its
    last line on stderr (why it could not)."""
    rev = f"{pr['base']['sha']}...{pr['head']['sha']}"
    argv = [sys.executable, "-m", "moot", "evaluate", "--diff", rev, "--criteria", panel.criteria]
    argv += ["--format", "json", "--no-reports", "--html", str(report), "--quiet", "--judges", panel.judges]
    if _input("max-cost"):
        argv += ["--max-cost", _input("max-cost")]
    # the review's GitHub token is this step's, not the debate's: moot evaluate never sees it
    env = {k: v for k, v in os.environ.items() if k != "INPUT_GITHUB_TOKEN"}
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    sys.stderr.write(done.stderr)
    why = (done.stderr.strip().splitlines() or [""])[-1]
    try:
        return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}, why
    except ValueError:
        return done.returncode or 1, {}, why


def _post_review(pr: Mapping[str, Any], result: Mapping[str, Any], body: str) -> None:
    """One review: the summary, and one comment per located finding on its line (RIGHT: the new file)."""
    comments = [
        {"path": f["file"], "line": int(f["line"]), "side": "RIGHT", "body": f"**{md(f['level'])}** {md(f['text'])}"}
        for f in located(result)
    ]
    payload = {"commit_id": pr["head"]["sha"], "event": "COMMENT", "body": body, "comments": comments}
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    url = f"{api}/repos/{os.environ['GITHUB_REPOSITORY']}/pulls/{pr['number']}/reviews"
    request = urllib.request.Request(  # noqa: S310 - the Actions runner's API address
        url,
        data=json.dumps(payload).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {_input('github-token')}",
            "Accept": "application/vnd.github+json",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as reply:  # noqa: S310
        reply.read()


def _append(variable: str, text: str) -> None:
    path = os.environ.get(variable)
    if path:
        with Path(path).open("a", encoding="utf-8") as out:
            out.write(text)


def main() -> int:
    """The review step; its exit code is the step's."""
    pr = _pull_request()
    fail_on = _input("fail-on", "FAIL").upper()
    if fail_on not in FAILING:
        sys.stderr.write(f"moot review: fail-on must be FAIL, CONDITIONAL or never (got {fail_on!r})\n")
        return 2
    report = Path(os.environ.get("RUNNER_TEMP", ".")) / "moot-review.html"
    result: dict[str, Any] = {}
    try:
        panel = _panel(pr)
    except UsageError as e:  # before any call: a judges file the base lacks, or judges it may not seat
        code, why, panel = 2, f"moot: error: {e}", BasePanel("", "")
    else:
        code, result, why = _evaluate(pr, report, panel)
    verdict = str((result.get("summary") or {}).get("final_verdict", ""))
    score = (result.get("summary") or {}).get("consensus_score", "")
    failed = code != 0 or verdict in FAILING[fail_on]
    sarif_path = ""
    if result and _input("sarif"):
        sarif_path = _input("sarif")
        Path(sarif_path).write_text(json.dumps(sarif(result), indent=2), encoding="utf-8")
    outputs = {
        "verdict": verdict,
        "score": score,
        "outcome": "fail" if failed else "pass",
        "debate-id": result.get("debate_id", ""),
        "report-path": str(report) if report.is_file() else "",
        "sarif-path": sarif_path,
    }
    _append("GITHUB_OUTPUT", "".join(f"{k}={v}\n" for k, v in outputs.items()))
    notes = "".join(f"> {md(note)}\n" for note in panel.notes)
    if result:
        summary = render_github(result, evaluation_github) + (f"\n{notes}" if notes else "")
        _append("GITHUB_STEP_SUMMARY", summary + "\n")
        if _input("comment", "true").lower() == "true":
            _post_review(pr, result, summary)
    else:  # nothing was judged (bad input, a secret in the diff, too few judges): the summary says why
        _append("GITHUB_STEP_SUMMARY", f"## ❔ moot review could not run (exit {code})\n\n{md(why)}\n\n{notes}")
    return code or (1 if failed else 0)


if __name__ == "__main__":
    raise SystemExit(main())
