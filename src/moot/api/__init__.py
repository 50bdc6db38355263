"""The public Python API, one module per protocol over shared pieces (`common`).

Each debate function is async with a sync twin (`evaluate` / `evaluate_sync`). The CLI and the MCP
server are thin adapters over these functions.
"""

from moot.api.common import Panelist, make_seats, options_from_panel, resume, resume_sync
from moot.api.evaluate import build_evaluation_request, evaluate, evaluate_sync, run_evaluation

__all__ = [
    "Panelist",
    "build_evaluation_request",
    "evaluate",
    "evaluate_sync",
    "make_seats",
    "options_from_panel",
    "resume",
    "resume_sync",
    "run_evaluation",
]
