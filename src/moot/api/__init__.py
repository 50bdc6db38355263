"""The public Python API, one module per protocol over shared pieces (`common`).

Each debate function is async with a sync twin (`evaluate` / `evaluate_sync`). The CLI and the MCP
server are thin adapters over these functions.
"""

from moot.api.challenge import (
    build_challenge_request,
    challenge,
    challenge_sync,
    prepared_challenge,
    run_challenge,
)
from moot.api.common import Panelist, apply_max_cost, make_seats, options_from_panel
from moot.api.decide import (
    build_decision_request,
    decide,
    decide_sync,
    prepared_decision,
    record_choice,
    run_decision,
)
from moot.api.evaluate import (
    build_evaluation_request,
    evaluate,
    evaluate_sync,
    prepared_evaluation,
    run_evaluation,
)
from moot.api.gate import gate_failure
from moot.api.prepared import Prepared, estimate_prepared, run_prepared
from moot.api.resume import resume, resume_sync
from moot.api.specs import SPECS, ProtocolSpec, estimate, estimate_sync, spec_for

__all__ = [
    "SPECS",
    "Panelist",
    "Prepared",
    "ProtocolSpec",
    "apply_max_cost",
    "build_challenge_request",
    "build_decision_request",
    "build_evaluation_request",
    "challenge",
    "challenge_sync",
    "decide",
    "decide_sync",
    "estimate",
    "estimate_prepared",
    "estimate_sync",
    "evaluate",
    "evaluate_sync",
    "gate_failure",
    "make_seats",
    "options_from_panel",
    "prepared_challenge",
    "prepared_decision",
    "prepared_evaluation",
    "record_choice",
    "resume",
    "resume_sync",
    "run_challenge",
    "run_decision",
    "run_evaluation",
    "run_prepared",
    "spec_for",
]
