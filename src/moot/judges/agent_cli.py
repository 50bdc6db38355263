"""Coding-agent command-line tools as judges: `gemini`, `codex`, `qwen`, `claude`, or any command template.

The prompt goes in on standard input (or as an argument, or in a file, when a template says so) and the
tool's standard output is the reply. Safe by default: every built-in profile runs the tool
non-interactively in its read-only / no-tools mode; the tool may run tools or change files (the seeds'
`--yolo` / `--full-auto`) only when the judges file sets `allow_tools: true` for that judge.

A timeout kills the tool's whole process group (agents start helpers of their own). A tool that is
missing, not logged in, exits non-zero or prints nothing raises a `JudgeError` naming the judge: a failed
judge, never a failed run.

Command templates (`command:` in a judges file, a string or a list) may use the placeholders
`{prompt}` (the prompt as one argument), `{prompt_file}` (a temporary file holding it) and `{model}`;
with neither prompt placeholder, the prompt goes on standard input.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from moot.errors import JudgeError, JudgeTimeout, UsageError
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Completion, Prompt, Usage


@dataclass(frozen=True)
class CliProfile:
    """How to run one agent CLI non-interactively."""

    name: str
    argv: tuple[str, ...]  # the command, safe mode; "{prompt}" / "{prompt_file}" placeholders allowed
    tools_flags: tuple[str, ...]  # added only with allow_tools: the agent may run tools / edit files
    model_flag: str | None  # how to pass a model, when the judge names one
    login_hint: str  # what to run when the tool is not logged in
    credential_envs: tuple[str, ...] = ()
    credential_files: tuple[str, ...] = ()  # relative to the home folder
    version_args: tuple[str, ...] = ("--version",)


_STDIN_NOTE = "Answer the request given on standard input. Reply with text only."

PROFILES: dict[str, CliProfile] = {
    # Gemini CLI: headless with -p; stdin is prepended to the prompt. Without --yolo, tools that change
    # anything need an approval nobody can give, so they do not run.
    "gemini": CliProfile(
        "gemini",
        ("gemini", "--approval-mode", "default", "-p", _STDIN_NOTE),
        ("--approval-mode", "yolo"),
        "-m",
        "gemini (then sign in), or set GEMINI_API_KEY",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"),
        (".gemini/oauth_creds.json",),
    ),
    # Codex CLI: `codex exec -` reads the prompt from stdin; the read-only sandbox forbids writes and network.
    "codex": CliProfile(
        "codex",
        ("codex", "exec", "--sandbox", "read-only", "--skip-git-repo-check", "-"),
        ("--full-auto",),
        "-m",
        "codex login, or set OPENAI_API_KEY",
        ("OPENAI_API_KEY", "CODEX_API_KEY"),
        (".codex/auth.json",),
    ),
    # Qwen Code, a Gemini CLI fork: same flags.
    "qwen": CliProfile(
        "qwen",
        ("qwen", "--approval-mode", "default", "-p", _STDIN_NOTE),
        ("--approval-mode", "yolo"),
        "-m",
        "qwen (then sign in), or set DASHSCOPE_API_KEY / OPENAI_API_KEY",
        ("DASHSCOPE_API_KEY", "OPENAI_API_KEY"),
        (".qwen/oauth_creds.json",),
    ),
    # Claude Code: print mode reads stdin; plan mode is read-only.
    "claude": CliProfile(
        "claude",
        ("claude", "-p", "--output-format", "text", "--permission-mode", "plan"),
        ("--permission-mode", "bypassPermissions"),
        "--model",
        "claude (then /login), or set ANTHROPIC_API_KEY",
        ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"),
        (".claude/.credentials.json", ".claude.json"),
    ),
}

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_AUTH_WORDS = re.compile(r"\b(log ?in|logged in|sign ?in|auth\w*|unauthori[sz]ed|api[ _-]?key|credential\w*)\b", re.I)
_KILL_GRACE = 2.0
_MAX_ERR = 300


def profile_for(spec: JudgeSpec) -> CliProfile | None:
    return PROFILES.get(spec.cli) if spec.cli else None


def command_template(spec: JudgeSpec) -> list[str]:
    """The argv template of a judge, tool flags included when allowed. Raises UsageError if unknown."""
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
    argv = list(profile.argv)
    if spec.model and profile.model_flag:
        argv[1:1] = [profile.model_flag, spec.model]
    if spec.allow_tools:
        argv += list(profile.tools_flags)
    return argv


def executable(spec: JudgeSpec) -> str:
    return command_template(spec)[0]


def which(name: str) -> str | None:
    """The executable's full path on PATH (or as given, when it is a path), or None."""
    if os.sep in name:
        return name if os.access(name, os.X_OK) and Path(name).is_file() else None
    return shutil.which(name)


def kill_group(proc: asyncio.subprocess.Process, sig: int = signal.SIGKILL) -> None:
    """Signal the process and everything it started (it leads its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


async def run_process(
    argv: list[str], stdin: bytes | None, *, timeout: float, cwd: str | None = None
) -> tuple[int, bytes, bytes]:
    """Run argv in its own process group; on timeout or cancellation, kill the whole group and reap it."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        cwd=cwd,
    )
    try:
        async with asyncio.timeout(timeout):
            out, err = await proc.communicate(stdin)
    except BaseException:  # timeout or cancellation: nothing of the tool may outlive the call
        kill_group(proc, signal.SIGTERM)
        try:
            async with asyncio.timeout(_KILL_GRACE):
                await asyncio.shield(proc.wait())
        except (TimeoutError, asyncio.CancelledError):
            pass
        kill_group(proc, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        raise
    # the tool is done; helpers it left behind in its group go with it
    kill_group(proc, signal.SIGKILL)
    return proc.returncode if proc.returncode is not None else -1, out, err


def _last_lines(data: bytes) -> str:
    text = _ANSI.sub("", data.decode("utf-8", errors="replace")).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    tail = " | ".join(lines[-3:])
    return tail[-_MAX_ERR:]


class AgentCliJudge:
    """One agent CLI (a built-in profile or a command template) answering prompts."""

    provider = "cli"

    def __init__(self, spec: JudgeSpec, model: str = "") -> None:
        self.spec = spec
        self.argv = command_template(spec)
        self.name = spec.cli or Path(self.argv[0]).name
        self.model = model or spec.model or self.name
        profile = profile_for(spec)
        self.login_hint = profile.login_hint if profile and not spec.command else ""

    def _argv(self, prompt_text: str, prompt_file: str | None) -> tuple[list[str], bool]:
        uses_arg = any("{prompt}" in a or "{prompt_file}" in a for a in self.argv)
        argv = [
            a.replace("{prompt_file}", prompt_file or "")
            .replace("{prompt}", prompt_text)
            .replace("{model}", self.spec.model)
            for a in self.argv
        ]
        return argv, not uses_arg

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        text = prompt.as_text()
        exe = which(self.argv[0])
        if exe is None:
            raise JudgeError(f"agent CLI '{self.name}': '{self.argv[0]}' not found on PATH")
        with tempfile.TemporaryDirectory(prefix="moot-cli-") as tmp:
            prompt_file = None
            if any("{prompt_file}" in a for a in self.argv):
                prompt_file = str(Path(tmp) / "prompt.txt")
                await asyncio.to_thread(Path(prompt_file).write_text, text, encoding="utf-8")
            argv, on_stdin = self._argv(text, prompt_file)
            argv[0] = exe
            try:
                code, out, err = await run_process(argv, text.encode("utf-8") if on_stdin else None, timeout=timeout)
            except TimeoutError:
                raise JudgeTimeout(
                    f"agent CLI '{self.name}' gave no reply within {timeout:g}s (its process group was killed)"
                ) from None
            except OSError as e:
                raise JudgeError(f"agent CLI '{self.name}' could not start: {e.strerror or e}") from None
        if code != 0:
            detail = _last_lines(err) or _last_lines(out) or "no message"
            hint = ""
            if _AUTH_WORDS.search(detail) and self.login_hint:
                hint = f" (not logged in? run: {self.login_hint})"
            raise JudgeError(f"agent CLI '{self.name}' exited with code {code}: {detail}{hint}")
        reply = _ANSI.sub("", out.decode("utf-8", errors="replace")).strip()
        if not reply:
            raise JudgeError(f"agent CLI '{self.name}' printed nothing" + (f" ({_last_lines(err)})" if err else ""))
        return Completion(text=reply, usage=Usage(), model=self.model, provider=self.provider)

    async def aclose(self) -> None:
        return None


def build(spec: JudgeSpec, model: str) -> AgentCliJudge:
    """The factory's entry point (`WIRE_BUILDERS['cli']`)."""
    return AgentCliJudge(spec, model)
