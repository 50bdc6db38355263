"""How each agent CLI is run as a judge: its flags in safe mode and with `allow_tools`, per version range.

Every flag here was checked against the real binary (`--help`, and the tier in tests/test_agent_cli_real.py
that drives the pinned versions of tests/agent_clis/package.json against a scripted model). `allow_tools`
REPLACES the safe flags: two approval modes on one command line are an argument error in gemini and a
crash in qwen.

Safe means no tool that reaches outside the call. moot runs each CLI in an empty temporary folder of its
own (the CLI's workspace), and:

    claude   --tools ""                       no tool at all
    gemini   --approval-mode default          no shell, no writes (they need an approval nobody gives
                                              headless); its file tools refuse paths outside the workspace
    qwen     --exclude-tools=<every tool that reads, writes, runs or fetches>
                                              its read_file reads ANY path, and its memory-extraction
                                              helper agent runs a "read-only" shell: both are removed
    codex    --sandbox read-only --disable shell_tool ...
                                              the read-only sandbox still reads every file: the shell
                                              tool itself is removed
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_STDIN_NOTE = "Answer the request given on standard input. Reply with text only."

# qwen 0.24: every built-in that reads files, writes, runs commands, fetches, or starts a helper agent
QWEN_EXCLUDED = (
    "read_file,read_many_files,write_file,edit,run_shell_command,glob,grep_search,list_directory,web_fetch,"
    "web_search,agent,skill,tool_search,tool_call,save_memory,lsp,cron_create,cron_delete,enter_worktree,"
    "exit_worktree,loop_wakeup,read_mcp_resource,record_artifact,send_message,monitor"
)


@dataclass(frozen=True)
class CliFlags:
    """The command line of one CLI for versions from `since` on: head, flags (safe or tools), tail."""

    since: tuple[int, ...]  # the oldest version these flags were checked on
    head: tuple[str, ...]  # the command and its subcommand; the model flag follows it
    safe: tuple[str, ...]
    tools: tuple[str, ...]  # replaces `safe` with allow_tools
    tail: tuple[str, ...]  # after the flags: the prompt note or "-" (the prompt itself goes on stdin)


@dataclass(frozen=True)
class CliProfile:
    """How to run one agent CLI non-interactively, and what its safe mode confines."""

    name: str
    ranges: tuple[CliFlags, ...]  # newest first
    model_flag: str | None
    login_hint: str  # what to do when the tool has no credential
    safe_blocks: str  # what safe mode blocks, for `moot doctor` and the docs
    version_args: tuple[str, ...] = ("--version",)

    def flags_for(self, version: str = "") -> CliFlags:
        """The flags of the range that holds `version` (the newest range when it is unknown or newer)."""
        found = parse_version(version)
        if found is None:
            return self.ranges[0]
        for flags in self.ranges:
            if found >= flags.since:
                return flags
        return self.ranges[-1]

    @property
    def checked_since(self) -> str:
        return ".".join(map(str, self.ranges[-1].since))


# executable path -> its `--version` line, as preflight found it: the judge then runs that range's flags
KNOWN_VERSIONS: dict[str, str] = {}

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(text: str) -> tuple[int, ...] | None:
    """The first dotted version number in a `--version` line ("codex-cli 0.169.0" -> (0, 169, 0))."""
    m = _VERSION.search(text or "")
    return tuple(int(g or 0) for g in m.groups()) if m else None


PROFILES: dict[str, CliProfile] = {
    "gemini": CliProfile(
        "gemini",
        (
            CliFlags(
                (0, 61, 0),
                ("gemini",),
                ("--skip-trust", "--approval-mode", "default"),
                ("--skip-trust", "--approval-mode", "yolo"),
                ("-p", _STDIN_NOTE),
            ),
        ),
        "-m",
        "run gemini and sign in, or set GEMINI_API_KEY",
        "shell, writes, reads outside its empty per-call folder (its web search tool stays: it runs on "
        "the model's side)",
    ),
    "codex": CliProfile(
        "codex",
        (
            CliFlags(
                (0, 169, 0),
                ("codex", "exec"),
                (
                    "--sandbox",
                    "read-only",
                    "--skip-git-repo-check",
                    "--disable",
                    "shell_tool",
                    "--disable",
                    "view_image",
                    "--disable",
                    "multi_agent",
                ),
                ("--sandbox", "workspace-write", "--skip-git-repo-check"),
                ("-",),
            ),
        ),
        "-m",
        "codex login (or printenv OPENAI_API_KEY | codex login --with-api-key), or set CODEX_API_KEY",
        "shell (so reads outside, writes and network), image reads, helper agents",
    ),
    "qwen": CliProfile(
        "qwen",
        (
            CliFlags(
                (0, 24, 4),
                ("qwen",),
                ("--approval-mode", "default", f"--exclude-tools={QWEN_EXCLUDED}"),
                ("--approval-mode", "yolo"),
                (_STDIN_NOTE,),  # the positional prompt (-p is deprecated); the request itself on stdin
            ),
        ),
        "-m",
        "set OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL (all three), or set up ~/.qwen/settings.json",
        "file reads (anywhere), writes, shell, web fetch and search, helper agents (memory extraction included)",
    ),
    "claude": CliProfile(
        "claude",
        (
            CliFlags(
                (2, 1, 330),
                ("claude",),
                ("-p", "--output-format", "text", "--permission-mode", "plan", "--tools", ""),
                # not bypassPermissions: Claude Code refuses it as root
                (
                    "-p",
                    "--output-format",
                    "text",
                    "--permission-mode",
                    "acceptEdits",
                    "--allowedTools",
                    "Bash,Read,Write,Edit,Glob,Grep",
                ),
                (),
            ),
        ),
        "--model",
        "claude auth login, or set ANTHROPIC_API_KEY",
        'every tool (--tools ""): reads, writes, shell, web',
    ),
}
