"""Model text -> validated reply, or an explicit failure with the reason (never a silent vote).

`extract` finds the structured block in a reply; one module per protocol validates it into typed models.
A `ReplyError` carries a message written to be sent back to the judge as a clarification request.
"""

from moot.parsing.extract import ReplyError, extract_mapping

__all__ = ["ReplyError", "extract_mapping"]
