"""`vote`: a toy protocol registered as a plugin (tests only): judges answer a yes/no question with a reason,
and read each other once when they split. `SPEC` is all moot sees of it."""

from moot_toy.api import SPEC

__all__ = ["SPEC"]
