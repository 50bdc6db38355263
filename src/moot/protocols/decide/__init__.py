"""Options debated by Risk, Value and Effort judges (seed 002): a 2/3 threshold, CONTESTED outcomes handed
to a person, and anti-sycophancy rules for every change of mind.

The package holds the whole protocol: its request and result (`schemas`), its reply parser (`parsing`), its
pure rules (`rules`), its steps and state, its renderings and its prompt templates; `SPEC` is all the rest
of moot sees of it (see `moot.protocol.spec`).
"""

from moot.protocols.decide.api import SPEC

__all__ = ["SPEC"]
