"""`moot doctor`: which judges are usable here, and why not."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from moot.cli.output import check_format, emit, render_result


def _rows(judges_file: str | None) -> list[dict[str, Any]]:
    from moot.judges.providers import api_key_for, key_hint, resolve
    from moot.panel_file import load_panel_file
    from moot.protocols.evaluate import DEFAULT_JUDGES
    from moot.schemas.config import JudgeSpec

    specs: list[tuple[str, JudgeSpec]] = []
    if judges_file:
        panel = load_panel_file(judges_file)
        for s in panel.panel or []:
            specs.append(("judge", s))
        if panel.moderator:
            specs.append(("moderator", panel.moderator))
        if panel.proponent:
            specs.append(("proponent", panel.proponent))
        for s in panel.challengers or []:
            specs.append(("challenger", s))
    else:
        specs = [("judge", JudgeSpec.model_validate(d)) for d in DEFAULT_JUDGES]
    rows = []
    for role, spec in specs:
        row: dict[str, Any] = {"role": role, "judge": spec.label, "model": spec.model}
        if spec.replies is not None or spec.script:
            row.update(kind="scripted", vendor="scripted", credential="not needed", usable=True)
        elif spec.cli or spec.command:
            row.update(
                kind="agent-cli",
                vendor=spec.cli or "command",
                usable=None,
                note="checked by agent CLI support",
            )
        else:
            try:
                r = resolve(spec)
            except Exception as e:  # unknown provider
                row.update(kind="api", vendor="?", usable=False, note=str(e))
                rows.append(row)
                continue
            has_key = api_key_for(spec, r) is not None
            needs_key = not (r.provider.local or spec.api_base)
            row.update(
                kind="api",
                vendor=r.provider.name,
                endpoint=r.base_url or "(vendor default)",
                credential=("present" if has_key else f"missing: set {key_hint(spec, r)}")
                if needs_key
                else "not needed",
                usable=has_key or not needs_key,
            )
        rows.append(row)
    return rows


def doctor(
    judges: Annotated[str | None, typer.Option(help="Judges file to check (default: the seeds' lineup).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or yaml.")] = "text",
) -> None:
    """List every configured judge: its vendor, whether its credential is present, whether it is usable."""
    check_format(fmt)
    rows = _rows(judges)
    if fmt != "text":
        emit(render_result("doctor", {"judges": rows}, fmt))
        return
    for r in rows:
        mark = {True: "ok ", False: "NO ", None: "?  "}[r.get("usable")]
        detail = r.get("credential") or r.get("note") or ""
        emit(f"{mark} {r['role']:10} {r['judge']:32} {r.get('vendor', ''):10} {detail}\n")
