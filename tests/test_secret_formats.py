"""Secrets screened everywhere text is sent: the key formats of the vendors moot calls and a few common ones
(Anthropic, Google, xAI, OpenAI project and service-account keys, Hugging Face, GitHub fine-grained tokens,
`*.env` files, `.pgpass`, Docker's `config.json` auths) are refused, every one at once, or redacted; the same
table redacts error messages; a host seat's reply and a judge's reply pass the same screen before they reach
another judge's prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import moot
from moot.cli.app import main
from moot.schemas.safe_text import redact
from moot.store import Store
from moot.testing import FakeLLMServer

from .replies import CRITERIA, round1, round2
from .test_mcp_confine import call_all, error_of

# fake keys of the right shapes, assembled at run time (no real key, and nothing a scanner flags in this file)
BODY = "k3J9xQ2mV8bN5cR7tY1uI4oP6aS0dF2gH8jL"  # 36 letters and digits
KEYS = {  # file -> (its text, the line of the key, the detector a refusal names)
    "anthropic.py": (f'KEY = "{"sk-ant-" + "api03-" + BODY + BODY + "AA"}"\n', 1, "Anthropic API Key"),
    "google.js": (f'const k = "{"AIza" + "SyD" + BODY[:32]}";\n', 1, "Google API Key"),
    "xai.sh": (f"echo ok\nexport XAI={'xai-' + BODY + BODY}\n", 2, "xAI API Key"),
    "openai_proj.py": (f'K = "{"sk-" + "proj-" + BODY + "_" + BODY}"\n', 1, "OpenAI API Key"),
    "openai_svc.py": (f'K = "{"sk-" + "svcacct-" + BODY + BODY}"\n', 1, "OpenAI API Key"),
    "hf.py": (f'TOKEN_HF = "{"hf" + "_" + BODY[:34]}"\n', 1, "Hugging Face Token"),
    "gh.yml": (f"token: {'github_' + 'pat_' + BODY[:22] + '_' + (BODY * 2)[:59]}\n", 1, "GitHub Fine-Grained Token"),
}
FILES = {  # credential files known by name, or by name and content
    "prod.env": ("DEBUG=0\n", "env"),
    "settings.env": ("DEBUG=0\n", "env"),
    ".pgpass": ("db:5432:app:app:" + "pw" + "-x\n", "pgpass"),
    ".docker/config.json": ('{"auths": {"r.example": {"auth": "' + "dXNlcjpw" + "YXNz" + '"}}}\n', "docker config"),
}


def values() -> list[str]:
    return [text.split('"')[1] if '"' in text else text.split("=")[-1].split()[-1] for text, _, _ in KEYS.values()]


def judges(folder: Path, server: FakeLLMServer) -> Path:
    path = folder / "judges.yaml"
    entries = [{"model": m, "stance": s, "api_base": server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]
    path.write_text(json.dumps({"debate_judges": entries}), encoding="utf-8")
    return path


@pytest.fixture
def keyed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "sol"
    for name, (text, _line, _detector) in KEYS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    for name, (text, _kind) in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "ok.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return folder


def test_every_format_is_refused_in_one_line_naming_every_hit(
    keyed: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["evaluate", "-s", "sol", "--judges", str(judges(tmp_path, llm_server)), "--no-reports"])
    err = capsys.readouterr().err
    assert code == 2 and llm_server.requests == []
    assert len(err.strip().splitlines()) == 1
    for name, (_text, line, detector) in KEYS.items():
        assert f"sol/{name}:{line} holds a secret ({detector})" in err
    for name, (_text, kind) in FILES.items():
        assert f"sol/{name} holds a secret (credential file: {kind})" in err
    assert "pass --redact-secrets" in err
    assert not any(v in err for v in values())


def test_with_redact_secrets_no_format_reaches_the_vendor(
    keyed: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0, 4))
    args = ["evaluate", "-s", "sol", "--criteria", CRITERIA, "--judges", str(judges(tmp_path, llm_server))]
    args += ["--no-reports", "--no-progress", "--max-rounds", "1", "--redact-secrets", "--format", "json"]
    assert main(args) == 0
    body = json.dumps([r.body for r in llm_server.requests])
    assert not any(v in body for v in values())
    assert "DEBUG=0" not in body and "dXNlcjpw" not in body and "pw-x" not in body
    kinds = {r["kind"] for r in json.loads(capsys.readouterr().out)["redactions"]}
    assert {"anthropic-api-key", "google-api-key", "xai-api-key", "openai-api-key"} <= kinds
    assert {"hugging-face-token", "github-fine-grained-token", "env-file", "pgpass-file", "docker-config-file"} <= kinds


def test_over_mcp_the_refusal_names_the_tools_own_argument(keyed: Path) -> None:
    [result] = call_all([("evaluate", {"solution": ["sol/hf.py", "sol/xai.sh"], "criteria": CRITERIA})])
    error = error_of(result)
    assert "sol/hf.py:1 holds a secret (Hugging Face Token); sol/xai.sh:2 holds a secret (xAI API Key)" in error
    assert "pass redact_secrets: true" in error and "--redact-secrets" not in error


def test_over_mcp_a_host_reply_holding_a_key_is_refused_naming_the_tools_argument(keyed: Path) -> None:
    import anyio
    from mcp import Client

    from moot.mcp import build_server

    seen: list[Any] = []

    async def run() -> None:
        async with Client(build_server()) as client:
            state = await client.call_tool(
                "evaluate", {"solution": ["sol/ok.py"], "criteria": CRITERIA, "judges": "host"}
            )
            debate = state.structured_content["debate_id"]
            reply = [{"seat": "judge-1", "reply": leaky_reply()}]
            seen.append(await client.call_tool("submit_replies", {"debate_id": debate, "replies": reply}))

    anyio.run(run)
    error = error_of(seen[0])
    assert "the reply of judge-1:" in error and "(Anthropic API Key)" in error and ANTHROPIC not in error
    assert "a debate started with redact_secrets: true" in error and "--redact-secrets" not in error


def test_from_python_the_refusal_names_the_functions_argument(keyed: Path) -> None:
    with pytest.raises(moot.errors.UsageError) as refused:
        moot.evaluate_sync("sol/hf.py", criteria=CRITERIA, judges="host", reports_dir=None)
    assert "sol/hf.py:1 holds a secret (Hugging Face Token)" in str(refused.value)
    assert "pass redact_secrets=True" in str(refused.value) and "--redact-secrets" not in str(refused.value)


def test_error_messages_are_redacted_by_the_same_table() -> None:
    for value in values():
        assert value not in redact(f"upstream said: invalid key {value} (request {value[:40]}...)")


def test_a_docker_config_without_auths_and_a_template_env_pass() -> None:
    from moot.secrets import credential_file_kind

    assert credential_file_kind(".docker/config.json", '{"credsStore": "desktop"}') is None
    assert credential_file_kind("prod.env.example") is None
    assert credential_file_kind("deploy/prod.env") == "env-file"


# host seats and judges' replies

HOST_KEY = "ghp_" + BODY  # a classic GitHub token
ANTHROPIC = "sk-ant-" + "api03-" + BODY + BODY + "AA"


def mixed_panel(folder: Path, server: FakeLLMServer) -> Path:
    """One host seat and two vendor judges on the stand-in, two rounds."""
    for model in ("m2", "m3"):
        server.script(model, round1(4.0, 4), round2(4.0))
    entries: list[dict[str, Any]] = [{"host": True, "stance": "neutral"}]
    entries += [{"model": m, "stance": s, "api_base": server.base_url} for m, s in (("m2", "for"), ("m3", "against"))]
    path = folder / "mixed.yaml"
    path.write_text(json.dumps({"debate_judges": entries}), encoding="utf-8")
    return path


def leaky_reply() -> str:
    return round1(2.0, 2, critical=[f"I tested it with {HOST_KEY}", f"and with the key {ANTHROPIC}"])


def test_a_host_reply_holding_keys_is_refused_whole_and_never_reaches_a_vendor(tmp_path: Path) -> None:
    (tmp_path / "plan.md").write_text("# Plan\n", encoding="utf-8")
    store = Store(tmp_path / "m.db")
    with FakeLLMServer() as server:
        panel = mixed_panel(tmp_path, server)
        state = moot.evaluate_sync(
            str(tmp_path / "plan.md"), criteria=CRITERIA, judges=str(panel), reports_dir=None, store=store
        )
        assert [r["seat"] for r in state.requests] == ["judge-1"]
        with pytest.raises(moot.errors.UsageError) as refused:
            moot.submit_replies_sync(state.debate_id, [{"seat": "judge-1", "reply": leaky_reply()}], store=store)
        message = str(refused.value)
        assert "the reply of judge-1:" in message and "(GitHub Token)" in message
        assert "remove them from the reply and give it again (a debate started with --redact-secrets" in message
        assert "(Anthropic API Key)" in message and HOST_KEY not in message and ANTHROPIC not in message
        assert store.require_debate(state.debate_id).status == "waiting"
        clean = round1(2.0, 2, critical=["no tests at all"])
        state = moot.submit_replies_sync(state.debate_id, [{"seat": "judge-1", "reply": clean}], store=store)
        body = json.dumps([r.body for r in server.requests])
    assert HOST_KEY not in body and ANTHROPIC not in body
    assert "no tests at all" in json.dumps([r.body for r in server.requests[2:]])  # round 2 quotes the host


def test_a_host_reply_is_redacted_in_a_debate_started_redacting(tmp_path: Path) -> None:
    (tmp_path / "plan.md").write_text("# Plan\n", encoding="utf-8")
    store = Store(tmp_path / "m.db")
    with FakeLLMServer() as server:
        panel = mixed_panel(tmp_path, server)
        state = moot.evaluate_sync(
            str(tmp_path / "plan.md"),
            criteria=CRITERIA,
            judges=str(panel),
            reports_dir=None,
            store=store,
            redact_secrets=True,
        )
        state = moot.submit_replies_sync(state.debate_id, [{"seat": "judge-1", "reply": leaky_reply()}], store=store)
        round_two = json.dumps([r.body for r in server.requests[2:]])
    assert round_two and "I tested it with" in round_two  # the host's words went on
    assert HOST_KEY not in round_two and ANTHROPIC not in round_two and "[REDACTED:" in round_two


def test_a_judges_reply_holding_a_key_is_redacted_before_other_judges_read_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = "Ship the billing service on Monday."
    (tmp_path / "plan.md").write_text(f"# Plan\n{plan}\n", encoding="utf-8")
    with FakeLLMServer() as server:  # a grounded finding (it quotes the plan): the other judge is shown it
        server.script("a", round1(3.0, 3, critical=[f"the file leaks {HOST_KEY}"], quote=plan), round2(3.0))
        server.script("b", round1(4.5, 5), round2(4.0, responses={"C1": "accept"}))
        args = ["evaluate", "-s", str(tmp_path / "plan.md"), "--criteria", CRITERIA]
        args += ["--judges", str(judges_for(tmp_path, server)), "--no-reports", "--no-progress", "--format", "json"]
        assert main([*args, "--max-rounds", "2"]) == 0
        later = json.dumps([r.body for r in server.requests[2:]])
    out = capsys.readouterr().out
    assert later and "the file leaks" in later and HOST_KEY not in later and HOST_KEY not in out


def judges_for(folder: Path, server: FakeLLMServer) -> Path:
    path = folder / "ab.yaml"
    entries = [{"model": m, "stance": s, "api_base": server.base_url} for m, s in (("a", "against"), ("b", "for"))]
    path.write_text(json.dumps({"debate_judges": entries}), encoding="utf-8")
    return path
