"""Benchmark: `moot bench`'s hardening suites (planted-findings, position, verbosity, bandwagon), with SmolLM2
as the judge under test when asked (`--local`, needs `moot[local]`).

The suites themselves live in `moot.bench.hardening` and run as `moot bench planted-findings,...`; this
script only starts the local model server and puts its judge in the seat under test, so that the figures in
docs/grounding.md can be remade with one command:

    python benchmarks/bench_hardening.py [--items 20] [--suites planted-findings,bandwagon,position,verbosity]
                                         [--local] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack

from moot.bench.hardening import SUITES, hardening_text, run_hardening
from moot.errors import UsageError

# the tested seat on the local model: room for a full reply, and patience for a CPU queue
LOCAL_JUDGE = {"model": "smollm2", "max_tokens": 768, "timeout": 1500, "structured": "json_object"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--suites", default=",".join(SUITES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--local", action="store_true", help="SmolLM2 in the seat under test (needs moot[local])")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    suites = [s.strip() for s in args.suites.split(",") if s.strip()]
    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        print(f"unknown suite(s): {', '.join(unknown)} (known: {', '.join(SUITES)})", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        tested, label = None, "scripted"
        if args.local:
            from moot.testing.local_server import llama_server

            tested = {**LOCAL_JUDGE, "api_base": stack.enter_context(llama_server())}
            label = "SmolLM2-135M-Instruct (llama-cpp-python, local)"
        try:
            result = run_hardening(suites, items=args.items, seed=args.seed, tested=tested, tested_label=label)
        except UsageError as e:
            print(e, file=sys.stderr)
            return 2
    print(json.dumps(result, indent=2) if args.json else hardening_text(result), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
