"""Judges: one small interface (`Judge`) and its implementations.

Protocol code only ever sees `Seat`s holding `Judge`s; it never knows whether a judge is a vendor API, an
OpenAI-compatible server, an agent CLI, a script or a Python function.
"""

from moot.judges.base import Judge, Seat
from moot.judges.function import FunctionJudge
from moot.judges.scripted import ScriptedJudge

__all__ = ["FunctionJudge", "Judge", "ScriptedJudge", "Seat"]
