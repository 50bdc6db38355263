"""A vendor (a proxy, a self-hosted server) answers 400 with a body that echoes the API key: the key reaches
no file moot writes (moot.db's bytes included, RESULTS.jsonl, the reports) and no output of evaluate,
resume, show, list, batch or `doctor --ping`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.schemas.safe_text import redact
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1

# shaped like no token: only their values can find them
ENV_KEY = "proxy-key-7f3e9a2b1c5d4e"
INLINE_KEY = "inline-key-0c9d8e7f6a5b4c"
VENDOR_KEY = "vendor-var-key-1a2b3c4d5e"
KEYS = (ENV_KEY, INLINE_KEY, VENDOR_KEY)


def echo(key: str) -> Reply:
    """A 400 whose body quotes the key: raw, and the way a proxy dumps the request's headers."""
    message = f"invalid model for key {key}; request headers: Authorization: Bearer {key}"
    return Reply(status=400, raw_body=json.dumps({"error": {"message": message, "param": key}}))


def panel(server: FakeLLMServer, path: Path) -> Path:
    judges: list[dict[str, Any]] = [
        {"model": "judge-a", "stance": "neutral", "api_base": server.base_url, "api_key": INLINE_KEY},
        {"model": "judge-b", "stance": "for", "api_base": server.base_url, "api_key_env": "MY_PROXY_KEY"},
        {"model": "judge-c", "stance": "against", "api_base": server.base_url, "api_key_env": "OPENAI_API_KEY"},
    ]
    path.write_text(yaml.safe_dump({"debate_judges": judges, "retry": {"max_retries": 0}}), encoding="utf-8")
    return path


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_PROXY_KEY", ENV_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", VENDOR_KEY)


def everything_written(root: Path, *but: Path) -> bytes:
    """The bytes of every file under `root` except `but` (the user's own judges file holds the inline key)."""
    return b"\n".join(p.read_bytes() for p in root.rglob("*") if p.is_file() and p not in but)


def assert_no_key(blob: bytes | str) -> None:
    data = blob.encode("utf-8", "replace") if isinstance(blob, str) else blob
    for key in KEYS:
        assert key.encode() not in data, key
        assert key[:12].encode() not in data, key  # no prefix left by a cut either


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def test_an_echoed_key_is_in_no_file_and_no_output(
    keys: None,
    llm_server: FakeLLMServer,
    artifact: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    judges = panel(llm_server, tmp_path / "judges.yaml")
    reports = tmp_path / "reports"
    said: list[str] = []

    # two judges echo their keys: the debate cannot go on (exit 3), and says why on stderr
    llm_server.script("judge-a", echo(INLINE_KEY))
    llm_server.script("judge-b", echo(ENV_KEY))
    llm_server.script("judge-c", round1(4.0, 4))
    evaluate = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges)]
    code, out = run(capsys, *evaluate, "--format", "json", "--reports-dir", str(reports))
    assert code == 3 and "HTTP 400" in out and "[redacted]" in out
    said.append(out)
    debate_id = json.loads(run(capsys, "list", "--format", "json")[1])["debates"][0]["debate_id"]

    # resumed, they echo again
    llm_server.script("judge-a", echo(INLINE_KEY))
    llm_server.script("judge-b", echo(ENV_KEY))
    code, out = run(capsys, "resume", debate_id, "--judges", str(judges), "--format", "text")
    assert code == 3 and "[redacted]" in out
    said.append(out)

    # one judge echoes; the other two finish the debate, and the consensus report names the dropped judge
    llm_server.script("judge-a", round1(4.0, 4))
    llm_server.script("judge-b", round1(4.0, 4))
    llm_server.script("judge-c", echo(VENDOR_KEY))
    code, out = run(capsys, *evaluate, "--format", "text", "--reports-dir", str(reports))
    assert code == 0, out
    said.append(out)
    consensus = next(reports.glob("*.consensus.md")).read_text(encoding="utf-8")
    assert "HTTP 400" in consensus or "HTTP 400" in out

    for args in (["show", debate_id], ["show", debate_id, "--calls", "--format", "json"], ["list"]):
        said.append(run(capsys, *args)[1])

    # a batch whose judges echo: RESULTS.jsonl, the summary, its failures
    items = tmp_path / "items.jsonl"
    items.write_text(
        "\n".join(json.dumps({"id": f"i{n}", "artifact": "x = 1\n", "criteria": CRITERIA}) for n in range(2)) + "\n"
    )
    llm_server.responder = lambda model, body: echo({"judge-a": INLINE_KEY, "judge-b": ENV_KEY}.get(model, VENDOR_KEY))
    for fmt in ("json", "text"):
        code, out = run(capsys, "batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--format", fmt)
        assert code != 0 and "[redacted]" in out, out
        said.append(out)

    # doctor --ping, both formats
    for fmt in ("json", "text"):
        code, out = run(capsys, "doctor", "--judges", str(judges), "--ping", "--format", fmt)
        assert "[redacted]" in out, out
        said.append(out)

    # the other vendors' SDKs read the error body their own way: Anthropic's and Gemini's wires
    others = [
        {"model": "claude-haiku-4-5", "provider": "anthropic", "api_base": llm_server.root_url, "api_key": INLINE_KEY},
        {"model": "gemini-3-pro-preview", "provider": "gemini", "api_base": llm_server.root_url},
    ]
    others[1]["api_key_env"] = "MY_PROXY_KEY"
    vendors = tmp_path / "vendors.yaml"
    vendors.write_text(yaml.safe_dump({"debate_judges": others}), encoding="utf-8")
    llm_server.responder = lambda model, body: echo(INLINE_KEY if model.startswith("claude") else ENV_KEY)
    code, out = run(capsys, "doctor", "--judges", str(vendors), "--ping", "--format", "json")
    assert out.count("[redacted]") >= 2, out
    said.append(out)

    assert_no_key("\n".join(said))
    files = {p.name for p in tmp_path.rglob("*") if p.is_file()}
    assert {"moot.db", "items.results.jsonl"} <= files, files
    assert_no_key(everything_written(tmp_path, judges, vendors))  # moot.db (and its WAL), RESULTS.jsonl, the reports


def test_credential_shapes_are_redacted_without_being_known() -> None:
    text = redact(
        "Authorization: Bearer abc.def-ghi; key sk-proj-AbCdEf0123456789xyz, url https://h/v1?key=AIzaSyD-123456789"
        "0123456789012345&alt=sse, x-api-key: 'zz-top-secret'"
    )
    for leaked in ("abc.def-ghi", "AbCdEf0123456789xyz", "AIzaSyD", "zz-top-secret"):
        assert leaked not in text, text
    assert text.count("[redacted]") >= 4
