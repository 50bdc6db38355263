"""A position challenged in parallel (seed 004): a proponent forms and defends it, challengers (models or
agent CLIs) confront it, it is answered, and the debate ends in CONSENSUS or a TRADEOFF document with the
assumptions behind the disagreement.

The package holds the whole protocol: its request and result (`schemas`), its reply parser (`parsing`), its
pure rules (`rules`), its steps and state, its renderings and its prompt templates; `SPEC` is all the rest
of moot sees of it (see `moot.protocol.spec`).
"""

from moot.protocols.challenge.api import SPEC

__all__ = ["SPEC"]
