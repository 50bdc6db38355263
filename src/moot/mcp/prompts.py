"""MCP prompts: moot's slash commands in every client (`/mcp__moot__evaluate` in Claude Code and Gemini CLI).

A user who only registered the server (`moot setup`) gets the same procedures the plugin's skills give:
each prompt's text is a plugin skill (`plugins/moot/skills/*/SKILL.md`), copied into `skills/` beside this
module in the server's words (no plugin agent, no plugin command; a fallback where the client cannot start
sub-agents). `python -m tests.test_mcp_prompts` regenerates the copies and a test keeps them equal, so the
skills stay the one source.

- `evaluate`: judge a solution with the user's judges when two are usable, else with host seats;
- `judge-with-debate`: the same, the judges always host seats answered by the client's sub-agents;
- `decide`: a question and its options;
- `debate`: the client defends its own position (`challenge` with the host proponent).

A prompt's arguments are written into the skill where it says `$ARGUMENTS`, in the skill's own argument
form (`--solution PATH --task "..."`), so the procedure reads them as it reads the plugin's.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import Prompt, PromptArgument

SKILL_FOLDER = "skills"


@dataclass(frozen=True)
class PromptArg:
    """A prompt argument and how it is written among the skill's arguments."""

    name: str
    description: str
    required: bool = False
    flag: str | None = None  # "--task": written as `--task VALUE`; None: written as the value, quoted
    many: bool = False  # several values, separated by spaces (quote one with spaces) or new lines


@dataclass(frozen=True)
class Command:
    """A prompt: the skill file it reads and its arguments."""

    name: str
    skill: str
    args: tuple[PromptArg, ...]


def _arg(entry: str | dict[str, Any], shared: dict[str, Any]) -> PromptArg:
    spec = {"name": entry, **shared[entry]} if isinstance(entry, str) else entry
    required, many = bool(spec.get("required")), bool(spec.get("many"))
    return PromptArg(spec["name"], spec["description"], required, spec.get("flag"), many)


def load_commands() -> tuple[Command, ...]:
    """The prompts and their arguments, as `skills/prompts.yaml` declares them (one file beside the skills)."""
    data = yaml.safe_load(resources.files(__package__ or "moot.mcp").joinpath(SKILL_FOLDER, "prompts.yaml").read_text())
    shared = data["shared"]
    return tuple(Command(name, name, tuple(_arg(a, shared) for a in args)) for name, args in data["prompts"].items())


COMMANDS = load_commands()


def skill_text(name: str) -> tuple[dict[str, Any], str]:
    """A prompt's skill file (shipped beside this module): its frontmatter and its body."""
    text = resources.files(__package__ or "moot.mcp").joinpath(SKILL_FOLDER, f"{name}.md").read_text("utf-8")
    _, front, body = text.split("---\n", 2)
    meta = yaml.safe_load(front)
    return (meta if isinstance(meta, dict) else {}), body


def _values(arg: PromptArg, given: str) -> list[str]:
    if not arg.many:
        return [given.strip()]
    lines = [ln.strip() for ln in given.splitlines() if ln.strip()]
    if len(lines) > 1:
        return lines
    try:
        words = shlex.split(given)
    except ValueError:  # an unclosed quote: the words as given
        words = given.split()
    # one word with commas: a client that splits a command's arguments at spaces (Claude Code) gets a list so
    if len(words) == 1 and "," in words[0]:
        return [w for w in words[0].split(",") if w]
    return words


def arguments_line(command: Command, given: dict[str, Any]) -> str:
    """The arguments in the skill's own form: `"question" A=x B=y --context f`, quoted where needed."""
    parts: list[str] = []
    for arg in command.args:
        value = given.get(arg.name)
        if value is None or not str(value).strip():
            continue
        for v in _values(arg, str(value)):
            parts += [arg.flag, shlex.quote(v)] if arg.flag else [shlex.quote(v)]
    return " ".join(parts)


def render(command: Command, given: dict[str, Any]) -> str:
    """The prompt's text: its skill with the arguments where the skill reads them."""
    _, body = skill_text(command.skill)
    return body.strip().replace("$ARGUMENTS", arguments_line(command, given)) + "\n"


def _renderer(command: Command) -> Callable[..., str]:
    def fn(**given: Any) -> str:
        return render(command, given)

    return fn


def prompt(command: Command) -> Prompt:
    meta, _ = skill_text(command.skill)
    arguments = [PromptArgument(name=a.name, description=a.description, required=a.required) for a in command.args]
    return Prompt(
        name=command.name,
        title=f"moot {command.name}",
        description=str(meta.get("description", "")),
        arguments=arguments,
        fn=_renderer(command),
    )


def add_prompts(server: MCPServer, commands: Sequence[Command] = COMMANDS) -> None:
    for command in commands:
        server.add_prompt(prompt(command))
