"""The scored debate over an artifact (seeds 000, 001, 003): neutral, for and against judges score weighted
criteria over up to three rounds (independent analysis, rebuttal, final positions), consensus is checked after
each, and a majority verdict documents the minority; a moderator may synthesise.

The package holds the whole protocol: its request and result (`schemas`), its reply parser (`parsing`), its
pure rules (`rules`), its steps and state, its renderings and its prompt templates; `SPEC` is all the rest
of moot sees of it (see `moot.protocol.spec`).
"""

from moot.protocols.evaluate.api import SPEC

__all__ = ["SPEC"]
