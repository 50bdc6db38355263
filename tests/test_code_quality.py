"""The gates a contributor meets: ruff and mypy (strict) are clean, as configured in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_is_clean() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests", "release"], cwd=ROOT, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict_is_clean() -> None:
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_help_imports_no_vendor_sdk() -> None:
    code = "import sys; from moot.cli.app import main; main(['--help']); print(sorted(m for m in ('openai', 'anthropic', 'google.genai', 'genai_prices', 'mcp') if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"
