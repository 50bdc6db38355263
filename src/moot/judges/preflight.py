"""Which judges are usable here, checked before a debate starts (seed 004's phase 0) and by `moot doctor`.

    scripted judges       always usable
    API judges            usable when their provider is known, its SDK is installed (the pip extra is
                          named when not) and their credential is present (local endpoints and
                          `api_base` endpoints need none)
    agent CLIs            usable when the executable is on PATH, answers a cheap probe (`--version`) and
                          has a credential it really uses (`agent_cli_login`: `codex login status`,
                          `claude auth status`, the environment rules of gemini and qwen)

No check sends a prompt to a model. Probe results of agent CLIs are cached for a short time under
MOOT_HOME (as the seed's available-challengers file is), keyed by the executable's path and modification
time, so that a reinstalled tool is probed again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from moot.errors import UsageError
from moot.judges.agent_cli import command_template, profile_for, run_process, which
from moot.judges.agent_cli_login import check_login
from moot.judges.agent_cli_profiles import KNOWN_VERSIONS, CliProfile, parse_version
from moot.judges.providers import api_key_for, key_hint, resolve, sdk_missing
from moot.schemas.config import JudgeSpec
from moot.store.connection import moot_home

CACHE_TTL_S = 300.0
PROBE_TIMEOUT_S = 30.0  # gemini loads its whole bundle to print its version: 2.4 s idle, over 10 s on a busy machine


@dataclass
class Availability:
    usable: bool
    kind: str  # "scripted" | "api" | "agent-cli"
    vendor: str
    detail: str  # why (not) usable, in a few words
    executable: str = ""
    version: str = ""
    login: str = ""  # agent CLIs: the credential evidence found, or a hint
    tools: str = ""  # agent CLIs: "read-only" | "ALLOWED (allow_tools)"
    blocks: str = ""  # agent CLIs in safe mode: what their safe flags block (and so what they do not)
    endpoint: str = ""
    credential: str = ""  # API judges: "present" | "missing: set X" | "not needed" (never the value)
    cached: bool = False


def cache_path() -> Path:
    return moot_home() / "cache" / "available-challengers.json"


def _load_cache() -> dict[str, dict[str, object]]:
    try:
        data = json.loads(cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_cache(entries: dict[str, dict[str, object]]) -> None:
    path = cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(entries, indent=1), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a cache that cannot be written only costs a probe next time


def _cache_key(exe: str, probe: Sequence[str]) -> str:
    try:
        mtime = Path(exe).stat().st_mtime_ns
    except OSError:
        mtime = 0
    return hashlib.sha256(json.dumps([exe, mtime, list(probe)]).encode()).hexdigest()[:24]


async def _probe(exe: str, args: Sequence[str]) -> tuple[bool, str]:
    try:
        code, out, err = await run_process([exe, *args], None, timeout=PROBE_TIMEOUT_S)
    except TimeoutError:
        return False, f"'{Path(exe).name} {' '.join(args)}' did not answer within {PROBE_TIMEOUT_S:g}s"
    except OSError as e:
        return False, f"cannot run {exe}: {e.strerror or e}"
    text = (out or err).decode("utf-8", errors="replace").strip()
    first = text.splitlines()[0][:120] if text else ""
    if code != 0:
        return False, f"'{Path(exe).name} {' '.join(args)}' exited with code {code}" + (f": {first}" if first else "")
    return True, first


def _tools(spec: JudgeSpec, profile: CliProfile | None) -> str:
    if spec.allow_tools:
        return "ALLOWED (allow_tools)"
    return "read-only" if profile else "as configured"


async def _version(exe: str, profile: CliProfile, use_cache: bool) -> tuple[bool, str, bool]:
    """(answers, its version line or why not, from the cache)."""
    key = _cache_key(exe, profile.version_args)
    entries = _load_cache() if use_cache else {}
    hit = entries.get(key)
    now = time.time()
    if hit and now - float(hit.get("at", 0)) < CACHE_TTL_S:  # type: ignore[arg-type]
        return bool(hit.get("ok")), str(hit.get("version", "")), True
    ok, version = await _probe(exe, profile.version_args)
    entries = _load_cache()
    entries = {k: v for k, v in entries.items() if now - float(v.get("at", 0)) < CACHE_TTL_S}  # type: ignore[arg-type]
    entries[key] = {"ok": ok, "version": version, "at": now, "exe": exe}
    _save_cache(entries)
    return ok, version, False


def _too_old(version: str, profile: CliProfile) -> str:
    found = parse_version(version)
    if found is not None and found < profile.ranges[-1].since:
        return f"; older than {profile.checked_since}, the oldest version moot's flags were checked on: update it"
    return ""


async def check_cli(spec: JudgeSpec, *, use_cache: bool = True) -> Availability:
    profile = None if spec.command else profile_for(spec)
    vendor = spec.cli or "command"
    tools = _tools(spec, profile)
    try:
        argv = command_template(spec)
    except UsageError as e:
        return Availability(False, "agent-cli", vendor, str(e), tools=tools)
    exe = which(argv[0])
    if exe is None:
        hint = f"not checked (to log in: {profile.login_hint})" if profile else "not checked (command template)"
        return Availability(False, "agent-cli", vendor, f"'{argv[0]}' not found on PATH", login=hint, tools=tools)
    if profile is None:
        # a command template may not know --version: being there and executable is what can be checked
        unchecked = "not checked (command template)"
        return Availability(True, "agent-cli", vendor, "on PATH", executable=exe, login=unchecked, tools=tools)
    ok, version, cached = await _version(exe, profile, use_cache)
    blocks = "" if spec.allow_tools else profile.safe_blocks
    found = Availability(ok, "agent-cli", vendor, version, executable=exe, tools=tools, blocks=blocks, cached=cached)
    if not ok:
        return found
    KNOWN_VERSIONS[exe] = version
    login = await check_login(profile.name, exe)
    finding, _, hint = login.evidence.partition("; log in with: ")
    found.version, found.login = version, finding
    if login.ok is False:
        found.usable, found.detail = False, f"not usable: log in with: {hint}"
    else:
        found.detail = "on PATH, answers --version" + _too_old(version, profile)
    return found


def check_api(spec: JudgeSpec, aliases: dict[str, str] | None = None) -> Availability:
    try:
        r = resolve(spec, aliases)
    except UsageError as e:
        return Availability(False, "api", "?", str(e))
    endpoint = r.base_url or "(vendor default)"
    missing_sdk = sdk_missing(r.provider.wire)
    if missing_sdk:
        return Availability(False, "api", r.provider.name, missing_sdk, endpoint=endpoint)
    if r.provider.local or spec.api_base:
        return Availability(
            True, "api", r.provider.name, "no credential needed", endpoint=endpoint, credential="not needed"
        )
    if api_key_for(spec, r) is None:
        missing = f"missing: set {key_hint(spec, r)}"
        return Availability(
            False, "api", r.provider.name, f"credential {missing}", endpoint=endpoint, credential=missing
        )
    return Availability(True, "api", r.provider.name, "credential present", endpoint=endpoint, credential="present")


async def check(spec: JudgeSpec, *, use_cache: bool = True, aliases: dict[str, str] | None = None) -> Availability:
    """Whether one judge can be used here, without calling a model."""
    if spec.replies is not None or spec.script:
        return Availability(True, "scripted", "scripted", "scripted replies")
    if spec.host:
        return Availability(True, "host", "host", "the caller answers (submit_replies, moot reply)")
    if spec.cli or spec.command:
        return await check_cli(spec, use_cache=use_cache)
    return check_api(spec, aliases)


async def check_all(specs: Sequence[JudgeSpec], *, use_cache: bool = True) -> list[Availability]:
    """Every judge checked at once (probes run concurrently)."""
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(check(s, use_cache=use_cache)) for s in specs]
    return [t.result() for t in tasks]


def as_dict(a: Availability) -> dict[str, object]:
    return {k: v for k, v in asdict(a).items() if v not in ("", None)}
