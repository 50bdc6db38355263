"""Run a Python program's own tests out of process: a fresh interpreter (isolated mode, no site), in an
empty temporary folder, with no input, a wall-clock timeout and, where the OS has them, limits on memory,
CPU time and file writes. moot never executes code it is given inside its own process."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

# prepended to every program: the limits apply before any of its code runs
_LIMITS = """\
try:
    import resource as _r
    _r.setrlimit(_r.RLIMIT_AS, ({memory}, {memory}))
    _r.setrlimit(_r.RLIMIT_CPU, ({cpu}, {cpu}))
    _r.setrlimit(_r.RLIMIT_FSIZE, (0, 0))
except (ImportError, ValueError, OSError):
    pass
"""
MEMORY = 1 << 30  # bytes of address space
_SYSTEM = {k: os.environ[k] for k in ("SYSTEMROOT",) if k in os.environ}  # Windows' Python needs it to start


def passes(program: str, *, timeout: float = 5.0) -> bool:
    """Whether `program` exits 0 (its asserts hold) within `timeout` seconds."""
    prelude = _LIMITS.format(memory=MEMORY, cpu=int(timeout) + 1)
    with tempfile.TemporaryDirectory(prefix="moot-bench-") as tmp:
        script = Path(tmp) / "check.py"
        script.write_text(prelude + program, encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", str(script)],
                cwd=tmp,
                env={"PATH": "", "HOME": tmp, "PYTHONHASHSEED": "0", **_SYSTEM},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return False
    return done.returncode == 0
