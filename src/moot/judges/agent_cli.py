"""Coding-agent command-line tools as judges: `gemini`, `codex`, `qwen`, `claude`, or any command template.

The prompt goes in on standard input (or as an argument, or in a file, when a template says so) and the
tool's standard output is the reply. Safe by default: every built-in profile (`agent_cli_profiles`) runs
the tool non-interactively with no tool that reaches outside the call, in an empty temporary folder of its
own; `allow_tools: true` on a judge replaces those flags with the tool's own auto-approve mode.
A built-in CLI with no credential it would use (`agent_cli_login`) fails at once, before it starts.

A timeout kills the tool's whole process group (agents start helpers of their own). A tool that is
missing, not logged in, exits non-zero or prints nothing raises a `JudgeError` naming the judge: a failed
judge, never a failed run.

Command templates (`command:` in a judges file, a string or a list) may use the placeholders
`{prompt}` (the prompt as one argument), `{prompt_file}` (a temporary file holding it) and `{model}`;
with neither prompt placeholder, the prompt goes on standard input.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import tempfile
from pathlib import Path

from moot.errors import JudgeError, JudgeTimeout, UsageError
from moot.judges.agent_cli_login import check_login
from moot.judges.agent_cli_proc import kill_group, run_process
from moot.judges.agent_cli_profiles import KNOWN_VERSIONS, PROFILES, CliProfile
from moot.judges.child_env import child_env
from moot.judges.effort import codex_flags
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Completion, Prompt, Usage

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_AUTH_WORDS = re.compile(r"\b(log ?in|logged in|sign ?in|auth\w*|unauthori[sz]ed|api[ _-]?key|credential\w*)\b", re.I)
# a line that names the failure: clap's "error: unexpected argument", Node's "TypeError: ...", gemini's
# "Invalid approval mode", "not running in a trusted directory", ...
_WARNING = re.compile(r"\s*(warn(ing)?\b|\[warn)", re.I)
_ERROR_LINE = re.compile(
    r"(\berror\b|\w+Error\b|\bfatal\b|\binvalid\b|\bunexpected\b|\bunknown (argument|option)|not found\b|"
    r"\bdenied\b|unauthori[sz]ed|forbidden|\bfailed\b|\bcannot\b|\brefus\w*|\bnot (logged|running|trusted))",
    re.I,
)
_MAX_ERR = 300


def profile_for(spec: JudgeSpec) -> CliProfile | None:
    return PROFILES.get(spec.cli) if spec.cli else None


def command_template(spec: JudgeSpec, version: str = "") -> list[str]:
    """The argv template of a judge: its safe flags, or its tools flags instead when allowed, for the CLI's
    version range (the newest when not known). Raises UsageError if the CLI is unknown."""
    if spec.command:
        argv = shlex.split(spec.command) if isinstance(spec.command, str) else [str(a) for a in spec.command]
        if not argv:
            raise UsageError(f"judge '{spec.label}': 'command' is empty")
        return argv
    profile = profile_for(spec)
    if profile is None:
        raise UsageError(
            f"judge '{spec.label}': unknown agent CLI '{spec.cli}' (built in: {', '.join(PROFILES)}; "
            "or give a 'command:' template)"
        )
    flags = profile.flags_for(version)
    model = [profile.model_flag, spec.model] if spec.model and profile.model_flag else []
    effort = codex_flags(spec) if profile.name == "codex" else []
    return [*flags.head, *model, *effort, *(flags.tools if spec.allow_tools else flags.safe), *flags.tail]


def executable(spec: JudgeSpec) -> str:
    return command_template(spec)[0]


def which(name: str) -> str | None:
    """The executable's full path on PATH (or as given, when it is a path), or None."""
    if os.sep in name:
        return name if os.access(name, os.X_OK) and Path(name).is_file() else None
    return shutil.which(name)


def _lines(data: bytes) -> list[str]:
    text = _ANSI.sub("", data.decode("utf-8", errors="replace"))
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def error_line(err: bytes, out: bytes = b"") -> str:
    """The line that names a CLI's failure: the first that looks like an error (warnings aside; a heading
    such as "An unexpected critical error occurred:" joined to the line after it), else the head of stderr
    (then of stdout). Not the tail: a Node stack trace or a usage text ends far from the cause."""
    for lines in (_lines(err), _lines(out)):
        for i, line in enumerate(lines):
            if _ERROR_LINE.search(line) and not _WARNING.match(line):
                if line.endswith(":") and i + 1 < len(lines):
                    line = f"{line} {lines[i + 1]}"
                return line[:_MAX_ERR]
        if lines:
            return lines[0][:_MAX_ERR]
    return ""


class AgentCliJudge:
    """One agent CLI (a built-in profile or a command template) answering prompts."""

    provider = "cli"

    def __init__(self, spec: JudgeSpec, model: str = "") -> None:
        self.spec = spec
        self.argv = command_template(spec)
        self.name = spec.cli or Path(self.argv[0]).name
        self.model = model or spec.model or self.name
        self.profile = None if spec.command else profile_for(spec)

    def _argv(self, exe: str, prompt_text: str, prompt_file: str | None) -> tuple[list[str], bool]:
        template = command_template(self.spec, KNOWN_VERSIONS.get(exe, "")) if self.profile else self.argv
        uses_arg = any("{prompt}" in a or "{prompt_file}" in a for a in template)
        argv = [
            a.replace("{prompt_file}", prompt_file or "")
            .replace("{prompt}", prompt_text)
            .replace("{model}", self.spec.model)
            for a in template
        ]
        argv[0] = exe
        return argv, not uses_arg

    async def _exe(self) -> str:
        """The executable, after the CLI's own credential rule: one with no credential fails here, at once,
        instead of hanging offline until the timeout (codex) or failing after its start-up."""
        exe = which(self.argv[0])
        if exe is None:
            raise JudgeError(f"agent CLI '{self.name}': '{self.argv[0]}' not found on PATH")
        if self.profile is not None:
            login = await check_login(self.profile.name, exe)
            if login.ok is False:
                raise JudgeError(f"agent CLI '{self.name}' is not usable: {login.evidence}")
        return exe

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        text = prompt.as_text()
        exe = await self._exe()
        with tempfile.TemporaryDirectory(prefix="moot-cli-") as tmp:
            prompt_file = None
            if any("{prompt_file}" in a for a in self.argv):
                prompt_file = str(Path(tmp) / "prompt.txt")
                await asyncio.to_thread(Path(prompt_file).write_text, text, encoding="utf-8")
            argv, on_stdin = self._argv(exe, text, prompt_file)
            # a built-in CLI works in the empty folder: its workspace holds nothing to read or change
            cwd = tmp if self.profile is not None else None
            try:
                stdin = text.encode("utf-8") if on_stdin else None
                # its own credentials and what a program needs to run: never another vendor's key or a CI token
                code, out, err = await run_process(argv, stdin, timeout=timeout, cwd=cwd, env=child_env(self.spec))
            except TimeoutError:
                raise JudgeTimeout(
                    f"agent CLI '{self.name}' gave no reply within {timeout:g}s (its process group was killed)"
                ) from None
            except OSError as e:
                raise JudgeError(f"agent CLI '{self.name}' could not start: {e.strerror or e}") from None
        if code != 0:
            detail = error_line(err, out) or "no message"
            hint = ""
            if _AUTH_WORDS.search(detail) and self.profile is not None:
                hint = f" (not logged in? log in with: {self.profile.login_hint})"
            raise JudgeError(f"agent CLI '{self.name}' exited with code {code}: {detail}{hint}")
        reply = _ANSI.sub("", out.decode("utf-8", errors="replace")).strip()
        if not reply:
            raise JudgeError(f"agent CLI '{self.name}' printed nothing" + (f" ({error_line(err)})" if err else ""))
        return Completion(text=reply, usage=Usage(), model=self.model, provider=self.provider)

    async def aclose(self) -> None:
        return None


def build(spec: JudgeSpec, model: str) -> AgentCliJudge:
    """The factory's entry point (`WIRE_BUILDERS['cli']`)."""
    return AgentCliJudge(spec, model)


__all__ = ["PROFILES", "AgentCliJudge", "CliProfile", "build", "command_template", "error_line", "kill_group",
           "run_process", "which"]  # fmt: skip
