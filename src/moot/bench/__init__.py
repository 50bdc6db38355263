"""`moot bench`: how often a panel's verdict is right on gold-labelled items, by strategy (issue 11).

`suites` loads the gold items (`judgebench`, `humaneval-bugs` or a JSONL file), `metrics` turns answers
into figures, and the result's shape is `moot.schemas.bench.BenchResult`. Runs go through `moot.batch`.
"""
