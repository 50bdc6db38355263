"""`moot demo` (evaluate, the default): three scripted judges and a moderator evaluate a small users API
over three rounds, with a critical finding, a majority and a minority; `--live` runs the seeds' lineup."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from moot.engine.demo import DemoSpec
from moot.protocols.evaluate.protocol import DEFAULT_JUDGES
from moot.schemas.config import Artifact

FOLDER = Path(__file__).resolve().parent / "demo"
TASK = "Implement REST API for user management"
CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
ARTIFACT = "src/api/users.ts"  # where the seed's judges expect it, so their replies read true
BUNDLED = "users-api/users.ts"  # where the package keeps it


def demo_arguments(judges: Any, reports_dir: str) -> dict[str, Any]:
    """The bundled artifact under the path the scripted judges quote, not where the package is installed
    (its reports are then named `users-api-DATE`, after the seed's solution)."""
    artifact = Artifact(path=ARTIFACT, text=(FOLDER / BUNDLED).read_text(encoding="utf-8"))
    return {"artifacts": [artifact], "task": TASK, "criteria": CRITERIA, "judges": judges, "reports_dir": reports_dir}


DEMO = DemoSpec(
    folder=FOLDER,
    argv=("evaluate", "-s", ARTIFACT, "--judges", "judges.yaml", "--task", TASK, "--criteria", CRITERIA),
    gate="--require PASS",
    extra={ARTIFACT: BUNDLED},
    live_judges=tuple(DEFAULT_JUDGES),
    arguments=demo_arguments,
    announce=f"moot demo: evaluating {ARTIFACT} with {{judges}} judges",
)
