"""The JudgeBench-format sample shipped in tests/data, pinned in place of the real file.

The real file (350 pairs, pinned by commit and sha256 in moot.bench.judgebench) is not in the repository.
`pin_sample` points the module's pin at the sample's own sha256 (and, when given, at a URL on
127.0.0.1), so the code under test is the user's: read or download, check the sha256, cache, parse.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import moot.bench.judgebench as judgebench

SAMPLE = Path(__file__).resolve().parent / "data" / "judgebench-sample.jsonl"
SAMPLE_SHA256 = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
# a copy of the real file, when a machine has one beside the clone (CI's does; a fresh clone does not)
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "judgebench" / "gpt-4o-2024-05-13.jsonl"


def pin_sample(monkeypatch: pytest.MonkeyPatch, url: str | None = None) -> Path:
    """Pin the sample (its sha256, and `url` as where to download it); the sample's path."""
    monkeypatch.setattr(judgebench, "SHA256", SAMPLE_SHA256)
    if url is not None:
        monkeypatch.setattr(judgebench, "URL", url)
    return SAMPLE
