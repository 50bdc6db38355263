"""Small fake agent CLIs, written as real executables on PATH, for tests of agent-CLI judges.

Each fake (`gemini`, `codex`, ...) answers `--version` (unless told not to) and, for every other
invocation, plays the next step of its script: answer a text, hang (with a child process of its own),
fail with an exit code and a message, print garbage, or print nothing. Every invocation is logged
(argv and stdin) so tests can assert on the flags and the prompt the judge really received.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

_SCRIPT = r"""#!{python}
import json, os, subprocess, sys, time
from pathlib import Path

HERE = Path({state!r})
NAME = {name!r}
conf = json.loads((HERE / (NAME + ".json")).read_text())
args = sys.argv[1:]
stdin = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
with open(HERE / (NAME + ".log"), "a") as log:
    log.write(json.dumps({{"argv": args, "stdin": stdin}}) + "\n")
if args in (["login", "status"], ["auth", "status"]):  # codex's and claude's login checks
    print("Logged in" if conf.get("logged_in", True) else "Not logged in")
    sys.exit(0 if conf.get("logged_in", True) else 1)
if args == ["--version"]:
    if conf.get("version") is None:
        sys.stderr.write("fatal: broken install\n")
        sys.exit(3)
    print(conf["version"])
    sys.exit(0)
counter = HERE / (NAME + ".count")
n = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(n + 1))
steps = conf["steps"]
step = steps[n] if n < len(steps) else conf.get("default", {{"mode": "fail", "code": 9, "stderr": "script ran out"}})
mode = step["mode"]
if mode == "answer":
    sys.stdout.write(step["text"])
elif mode == "hang":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    (HERE / (NAME + ".child")).write_text(str(child.pid))
    time.sleep(step.get("seconds", 60))
    sys.stdout.write(step.get("text", ""))
elif mode == "fail":
    sys.stderr.write(step.get("stderr", "error") + "\n")
    sys.exit(step.get("code", 1))
elif mode == "garbage":
    sys.stdout.write("\x1b[31m%%%% not what you asked for ~~~ [[[\x1b[0m\n")
elif mode == "empty":
    pass
"""


class FakeAgents:
    """A folder of fake agent executables; put `bin_dir` first on PATH."""

    def __init__(self, root: Path) -> None:
        self.bin_dir = root / "bin"
        self.state = root / "state"
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        self.state.mkdir(parents=True, exist_ok=True)

    def add(
        self, name: str, *steps: dict[str, Any] | str, version: str | None = "1.0.0", logged_in: bool = True
    ) -> Path:
        """An executable `name` playing `steps` in order (a bare string is an answer); `login status` /
        `auth status` answer as `logged_in` says."""
        script = [s if isinstance(s, dict) else {"mode": "answer", "text": s} for s in steps]
        conf = {"version": version, "steps": script, "logged_in": logged_in}
        (self.state / f"{name}.json").write_text(json.dumps(conf))
        path = self.bin_dir / name
        path.write_text(_SCRIPT.format(python=sys.executable, state=str(self.state), name=name))
        path.chmod(0o755)
        return path

    def calls(self, name: str, *, probes: bool = False) -> list[dict[str, Any]]:
        """Logged invocations (without the `--version` probes unless asked)."""
        log = self.state / f"{name}.log"
        if not log.exists():
            return []
        entries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        checks = (["--version"], ["login", "status"], ["auth", "status"])
        return [e for e in entries if probes or e["argv"] not in checks]

    def probes(self, name: str) -> int:
        return sum(1 for e in self.calls(name, probes=True) if e["argv"] == ["--version"])

    def child_pid(self, name: str) -> int | None:
        f = self.state / f"{name}.child"
        return int(f.read_text()) if f.exists() else None


def alive(pid: int) -> bool:
    """Whether a process still runs (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        return stat.read_text().split(")")[-1].split()[0] != "Z"
    return True
