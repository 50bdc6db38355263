"""Consensus and verdict rules: pure functions on plain data, one module per protocol.

No rule here calls a model or reads prose for agreement: agreement is decided from scores, explicit
responses and votes, so that every outcome can be tested and reproduced.
"""
