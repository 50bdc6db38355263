"""`moot demo bench`: the bench end to end with no API key: a small bundled gold file judged by a scripted panel.

The three judges answer over real HTTP from a local server on 127.0.0.1 (`moot.testing.FakeLLMServer`,
the one the tests use), through the same SDK, batch, store and figures as a bench of real models. Each
reads its request as a judge would (the question, options A and B, the round) and answers by a fixed
temperament, drawn per question from a stable hash so that every run gives the same figures:

    careful   right on about 9 questions in 10, and keeps its answer
    hasty     right on about 6 in 10 in round 1; in round 2 it takes the others' check and is right
    stubborn  right on about 7 in 10 in round 1, and keeps its answer whatever it reads

To know which response is right they read the gold file's right responses; the bench itself sees only
the judges file. The run lives in a temporary MOOT_HOME, so the demo leaves nothing in the user's store.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from moot.testing import FakeLLMServer, Reply

GOLD = Path(__file__).resolve().parent.parent / "demo" / "bench" / "gold.jsonl"
JUDGES = ("careful", "hasty", "stubborn")
_OPTION = re.compile(r'<option id="([^"]+)">\n(.*?)\n</option>', re.DOTALL)
_QUESTION = re.compile(r"<question [^>]*>\n(.*?)\n</question>", re.DOTALL)
_OTHERS = re.compile(r"The judges whose positions you challenge: ([^\n]*?)\.\n")
_PREVIOUS = re.compile(r"YOUR PREVIOUS RECOMMENDATION: (\S+)")
_FIRST_ROUND_RIGHT = {"careful": 9, "hasty": 6, "stubborn": 7}  # of every 10 questions
# made-up prices (USD per million tokens), so that the cost columns show what each strategy would cost
PRICES = {"careful": (3.0, 15.0), "hasty": (0.25, 1.25), "stubborn": (1.0, 5.0)}
PRICES_NOTE = (
    "moot demo bench: scripted judges on 127.0.0.1; the costs below are at made-up demo prices (USD per million "
    "tokens in/out: " + ", ".join(f"{j} {i:g}/{o:g}" for j, (i, o) in PRICES.items()) + "): nothing is sent out "
    "or paid for"
)


def right_in_round_1(judge: str, question: str) -> bool:
    """Whether `judge` is right on `question` in round 1 (a stable draw: the same on every run and order)."""
    return zlib.crc32(f"{judge}:{question}".encode()) % 10 < _FIRST_ROUND_RIGHT[judge]


class ScriptedBenchPanel:
    """The local server's responder: each model name is one judge of `JUDGES`."""

    def __init__(self, right_texts: set[str]) -> None:
        self.right_texts = right_texts

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        options = dict(_OPTION.findall(text))
        question = _QUESTION.search(text)
        asked = question.group(1) if question else text[:200]
        right = next((o for o, t in options.items() if t in self.right_texts), "A")
        wrong = next((o for o in options if o != right), "B")
        choice = right if right_in_round_1(model, asked) else wrong
        previous = _PREVIOUS.search(text)
        if previous is None:
            return Reply(text=_reply({"round": 1, "recommendation": choice, "perspective": "checked both answers"}))
        before = previous.group(1)
        now = right if model == "hasty" else before
        others = _OTHERS.search(text)
        named = others.group(1).split(",") if others else []
        data: dict[str, Any] = {
            "round": 2,
            "challenges": [{"judge": o.strip(), "counter_argument": "its check skips a step"} for o in named],
            "recommendation": now,
            "perspective": "after reading the others' checks",
        }
        if now != before:
            data.update(changed=True, change_reason="the others worked the question out and I had not")
        return Reply(text=_reply(data))


def _reply(data: dict[str, Any]) -> str:
    return "```yaml\n" + yaml.safe_dump({"judge": "x", **data}, sort_keys=False) + "```"


def right_texts(gold: Path) -> set[str]:
    rows = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["response_A"] if r["label"] == "A>B" else r["response_B"] for r in rows}


@contextmanager
def scripted_bench() -> Iterator[Path]:
    """A temporary MOOT_HOME and the scripted panel's judges file, its server up, for one demo run."""
    with tempfile.TemporaryDirectory(prefix="moot-demo-bench-") as tmp, FakeLLMServer() as server:
        server.responder = ScriptedBenchPanel(right_texts(GOLD))
        judges = Path(tmp) / "judges.yaml"
        entries = [{"model": name, "name": f"{name} (scripted)", "api_base": server.base_url} for name in JUDGES]
        pricing = {m: {"input_per_mtok": i, "output_per_mtok": o} for m, (i, o) in PRICES.items()}
        panel = {"debate_judges": entries, "pricing": pricing}
        judges.write_text(yaml.safe_dump(panel, sort_keys=False), encoding="utf-8")
        before = os.environ.get("MOOT_HOME")
        os.environ["MOOT_HOME"] = str(Path(tmp) / "home")
        try:
            yield judges
        finally:
            if before is None:
                os.environ.pop("MOOT_HOME", None)
            else:
                os.environ["MOOT_HOME"] = before


def demo_bench(fmt: str, progress: bool | None) -> int:
    """Run `moot bench` on the bundled gold file with the scripted panel (every strategy, both orders)."""
    import sys

    from moot.cli.bench_cmd import bench

    # said first, on stdout with the text (on stderr with JSON, which alone goes to stdout)
    (sys.stderr if fmt == "json" else sys.stdout).write(PRICES_NOTE + "\n")
    (sys.stderr if fmt == "json" else sys.stdout).flush()
    with scripted_bench() as judges:
        return bench(str(GOLD), judges=str(judges), fmt="json" if fmt == "json" else "text", progress=progress)
