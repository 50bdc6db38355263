"""Plain data: what flows between judges, rules, protocols, the store and the reports.

Nothing in this package does I/O. Every other layer may import it; it imports none of them.
"""
