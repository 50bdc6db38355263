"""Running an agent CLI as a child process: its own process group, killed whole on timeout or cancellation
(agents start helpers of their own: Node workers, sandboxes, language servers)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

_KILL_GRACE = 2.0


def kill_group(proc: asyncio.subprocess.Process, sig: int = signal.SIGKILL) -> None:
    """Signal the process and everything it started (it leads its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


async def _reap(proc: asyncio.subprocess.Process) -> None:
    """Wait (briefly) until the killed group has let go of the pipes, so that nothing of the child process is
    left for the event loop to clean up after it has closed."""

    async def drain(stream: asyncio.StreamReader | None) -> None:
        if stream is not None:
            while await stream.read(65536):
                pass

    with contextlib.suppress(TimeoutError, asyncio.CancelledError, OSError, ValueError):
        async with asyncio.timeout(_KILL_GRACE):
            await asyncio.shield(asyncio.gather(proc.wait(), drain(proc.stdout), drain(proc.stderr)))


async def run_process(
    argv: list[str], stdin: bytes | None, *, timeout: float, cwd: str | None = None, env: dict[str, str] | None = None
) -> tuple[int, bytes, bytes]:
    """Run argv in its own process group (with `env`, else moot's environment); on timeout or cancellation,
    kill the whole group and reap it."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        cwd=cwd,
        env=env,
    )
    try:
        async with asyncio.timeout(timeout):
            out, err = await proc.communicate(stdin)
    except BaseException:  # timeout or cancellation: nothing of the tool may outlive the call
        kill_group(proc, signal.SIGTERM)
        try:
            async with asyncio.timeout(_KILL_GRACE):
                await asyncio.shield(proc.wait())
        except (TimeoutError, asyncio.CancelledError):
            pass
        kill_group(proc, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await _reap(proc)
        raise
    # the tool is done; helpers it left behind in its group go with it
    kill_group(proc, signal.SIGKILL)
    return proc.returncode if proc.returncode is not None else -1, out, err
