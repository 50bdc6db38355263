"""The `judgebench` suite: JudgeBench's 350 pairs of responses written by GPT-4o, each labelled by which
one is objectively right.

Tan et al., "JudgeBench: A Benchmark for Evaluating LLM-based Judges", arXiv:2410.12784 (2024). The pairs
come from MMLU-Pro, LiveBench and LiveCodeBench; the label is checked against the question's known
answer, not voted by people, so a judge cannot be right by agreeing with the crowd.

The file is pinned by commit and sha256: a run is comparable with another only if both judged the very
same pairs. It is downloaded once into `$MOOT_HOME/bench/`; `--data PATH` uses a local copy instead,
checked the same way.
"""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from pathlib import Path

from pydantic import ValidationError

from moot.bench.cache import bench_dir, write_atomic
from moot.errors import UsageError
from moot.inputs import validation_message
from moot.schemas.bench import PairwiseItem

REPO = "ScalerLab/JudgeBench"
COMMIT = "e2c52c284e735e139b3daa61c206ee208f36c461"
FILE = "data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
URL = f"https://raw.githubusercontent.com/{REPO}/{COMMIT}/{FILE}"
SHA256 = "d5106306b38dead1b2e964ecf5534a3e7b2fc4b8d3b8da327599edfcebd76042"
CACHE_NAME = "judgebench-gpt-4o-2024-05-13.jsonl"
ABOUT = f"JudgeBench (arXiv:2410.12784), GPT-4o pairs, {REPO}@{COMMIT[:12]}"


def judgebench_items(
    data: Path | None = None, *, url: str | None = None, sha256: str | None = None
) -> list[PairwiseItem]:
    """The pairs, from `data` when given, else from the cache, downloading them on first use.

    `url` and `sha256` default to the module's pin, read at call time so that a test can pin a file of its
    own (served from 127.0.0.1) and run the very same download, check and cache code as a user does.
    """
    url = url or URL
    sha256 = sha256 or SHA256
    if data is not None:
        body = _read(data)
        _check(body, sha256, str(data), after="use the file from the pinned commit")
    else:
        body = cached_download(url, sha256, bench_dir() / CACHE_NAME)
    return parse_judgebench(body.decode("utf-8"), where=str(data or url))


def cached_download(url: str, sha256: str, dest: Path, *, timeout: float = 60.0) -> bytes:
    """The file at `dest` if it matches `sha256`; else `url`'s bytes, checked, then cached at `dest`.

    A download that does not match is refused and nothing is cached.
    """
    if dest.is_file():
        body = dest.read_bytes()
        if hashlib.sha256(body).hexdigest() == sha256:
            return body
    body = download(url, timeout=timeout)
    _check(body, sha256, url, after="nothing was cached")
    write_atomic(dest, body)
    return body


def download(url: str, *, timeout: float = 60.0) -> bytes:
    """`url`'s bytes (https, or file:// and http on this machine in tests)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 (the pinned URL, or a test's)
            body: bytes = resp.read()
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        raise UsageError(f"could not download {url}: {reason}; pass --data PATH to use a local copy") from e
    return body


def parse_judgebench(text: str, *, where: str) -> list[PairwiseItem]:
    """JudgeBench's rows (pair_id, source, question, response_A, response_B, label, ...) as pairwise items.

    `source` keeps the benchmark's group (mmlu, livebench, livecodebench) for the per-source breakdown.
    """
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            items.append(
                PairwiseItem(
                    id=row["pair_id"],
                    question=row["question"],
                    response_A=row["response_A"],
                    response_B=row["response_B"],
                    label=row["label"],
                    source=str(row.get("source") or "").split("-")[0] or None,
                )
            )
        except (ValueError, KeyError, TypeError) as e:
            detail = validation_message(e, f"{where}:{n}") if isinstance(e, ValidationError) else f"{where}:{n}: {e!r}"
            raise UsageError(f"not a JudgeBench row: {detail}") from e
    return items


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from e


def _check(body: bytes, sha256: str, what: str, *, after: str) -> None:
    got = hashlib.sha256(body).hexdigest()
    if got != sha256:
        raise UsageError(f"{what} is not the pinned file (sha256 {got[:16]}..., expected {sha256[:16]}...); {after}")
