"""The HTML report in a real browser: headless Debian chromium loads it, draws it to a PNG, and shows
that it raises no console error, draws one chart line per judge, and runs no script a judge slipped in.

The `chromium` fixture installs the browser with apt-get when it is missing (as root); it skips, saying
why, only when that is impossible. MOOT_UPDATE_DOCS_IMAGES=1 copies the demo's PNGs to docs/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from moot.api.report import load_record, render_html
from moot.cli.app import main
from moot.store import Store

from .scripted_panels import (
    challenge_args,
    challenge_panel,
    converging_panel,
    decide_args,
    decide_panel,
    evaluate_args,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1500)]

DOCS = Path(__file__).resolve().parent.parent / "docs"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
]


@pytest.fixture(scope="session")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("chromium is not installed, and installing it needs root and apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = [
        ["apt-get", "update", "-q"],
        ["apt-get", "install", "-y", "-q", "-o", "DPkg::Lock::Timeout=600", "chromium"],
    ]
    for step in steps:
        r = subprocess.run(step, env=env, capture_output=True, text=True, timeout=1200)
        if r.returncode != 0:
            pytest.skip(f"could not install chromium ({' '.join(step)}): {(r.stderr or r.stdout).strip()[-300:]}")
    found = shutil.which("chromium")
    if not found:
        pytest.skip("apt-get installed chromium but no 'chromium' command is on PATH")
    return found


@dataclass
class Rendered:
    dom: str
    console: list[str]
    png: Path


def console_lines(stderr: str) -> list[str]:
    """Messages the page wrote to its console (errors, CSP violations), from chromium's own log."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def render(chromium: str, page: Path, tmp_path: Path, png: Path) -> Rendered:
    url = page.resolve().as_uri()
    profile = tmp_path / f"profile-{page.stem}"
    dump = subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dump.returncode == 0, dump.stderr[-2000:]
    shot = subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}-shot", "--window-size=1100,1500", f"--screenshot={png}", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    return Rendered(dump.stdout, console_lines(dump.stderr) + console_lines(shot.stderr), png)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_checks_can_fail(chromium: str, tmp_path: Path) -> None:
    """A page that logs an error and runs a script is caught by the very checks used below."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!DOCTYPE html><html><head><title>t</title></head><body>"
        "<script>console.error('boom'); document.title='pwned'</script></body></html>",
        encoding="utf-8",
    )
    out = render(chromium, bad, tmp_path, tmp_path / "bad.png")
    assert any("boom" in line for line in out.console)
    assert "<title>pwned</title>" in out.dom


def evaluate_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, int]:
    code = main(
        evaluate_args(tmp_path, converging_panel(tmp_path, inject=True), "--format", "json", "--task", "<i>x</i>")
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    page = tmp_path / "evaluate.html"
    page.write_text(render_html(load_record(Store.open_default(), result["debate_id"])), encoding="utf-8")
    return page, len(result["judges"])


def demo_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, int]:
    """The bundled demo (three rounds, a critical finding, a minority): the picture in the docs."""
    assert main(["demo", "--format", "json", "--reports-dir", str(tmp_path / "reports")]) == 0
    result = json.loads(capsys.readouterr().out)
    page = tmp_path / "demo.html"
    page.write_text(render_html(load_record(Store.open_default(), result["debate_id"])), encoding="utf-8")
    return page, len(result["judges"])


def decide_report(tmp_path: Path, capsys: pytest.CaptureFixture[str], *, inject: bool = True) -> tuple[Path, int]:
    assert main(decide_args(decide_panel(tmp_path, inject=inject), "--format", "json")) == 0
    result = json.loads(capsys.readouterr().out)
    page = tmp_path / "decide.html"
    page.write_text(render_html(load_record(Store.open_default(), result["debate_id"])), encoding="utf-8")
    return page, len(result["judges"])


def decide_docs_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, int]:
    return decide_report(tmp_path, capsys, inject=False)


def challenge_report(tmp_path: Path, capsys: pytest.CaptureFixture[str], *, inject: bool = True) -> tuple[Path, int]:
    assert main(challenge_args(challenge_panel(tmp_path, inject=inject), "--format", "json")) == 0
    result = json.loads(capsys.readouterr().out)
    page = tmp_path / "challenge.html"
    page.write_text(render_html(load_record(Store.open_default(), result["debate_id"])), encoding="utf-8")
    return page, len(result["challengers"])


def challenge_docs_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, int]:
    return challenge_report(tmp_path, capsys, inject=False)


REPORTS = {"evaluate": evaluate_report, "decide": decide_report, "challenge": challenge_report}
UPDATE_DOCS = os.environ.get("MOOT_UPDATE_DOCS_IMAGES") == "1"
# the demo always (it is what the README shows); the others only when the pictures are being redone, since
# REPORTS above already renders the same debates
DOCS_IMAGES = (
    {"evaluate": demo_report, "decide": decide_docs_report, "challenge": challenge_docs_report}
    if UPDATE_DOCS
    else {"evaluate": demo_report}
)


@pytest.mark.parametrize("protocol", sorted(REPORTS))
def test_report_renders_in_chromium(
    protocol: str, chromium: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page, judges = REPORTS[protocol](tmp_path, capsys)
    png = tmp_path / f"report-{protocol}.png"
    out = render(chromium, page, tmp_path, png)

    assert out.console == [], out.console  # no errors, no blocked loads, nothing logged
    assert len(re.findall(r'<polyline class="series"', out.dom)) == judges
    title = re.search(r"<title>(.*?)</title>", out.dom)
    assert title is not None and title.group(1).startswith(f"moot {protocol}: ")
    assert "pwned" not in title.group(1)
    assert 'id="injected"' not in out.dom  # injected markup stayed text
    assert "document.title='pwned'" in out.dom  # ... and is shown as text
    assert png_size(png) == (1100, 1500)
    assert png.stat().st_size > 20_000  # a drawn page, not a blank one


@pytest.mark.parametrize("protocol", sorted(DOCS_IMAGES))
def test_docs_image_renders_cleanly(
    protocol: str, chromium: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page, judges = DOCS_IMAGES[protocol](tmp_path, capsys)
    png = tmp_path / f"report-{protocol}.png"
    out = render(chromium, page, tmp_path, png)
    assert out.console == [], out.console
    assert len(re.findall(r'<polyline class="series"', out.dom)) == judges
    assert png_size(png) == (1100, 1500)
    if UPDATE_DOCS:
        DOCS.mkdir(exist_ok=True)
        shutil.copyfile(png, DOCS / png.name)
