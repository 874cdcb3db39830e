"""The one way nastui runs a program: `run(argv, timeout=...) -> CommandResult`.

Every subprocess goes through here, so every one of them
- takes an argument list (never a shell string),
- has a timeout, after which its whole process group is killed,
- runs with `LC_ALL=C` so the output we parse is not translated,
- never raises on a non-zero exit: smartctl's exit status is a bitmask of findings, `zpool`
  exits 1 for "no pools"; the caller decides what a status means.
A program that cannot be started (not installed, not executable) is a result too, with
`returncode` 127 or 126 and `error` saying so, so callers have one path to handle.

A process stuck in uninterruptible sleep (a smartctl on a dying disk) ignores SIGKILL until its
I/O returns; `run` waits `kill_grace` seconds for it and then returns anyway, leaving the reaping
to asyncio, so a hung tool never stalls the caller past `timeout + kill_grace`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024
KILL_GRACE_S = 2.0
_CHUNK = 65536


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a program did.

    Attributes:
        argv: the argument list as run.
        returncode: exit status; negative for a signal (as in subprocess); 127 not found,
            126 not executable; None when it had to be abandoned after the timeout.
        stdout, stderr: decoded output (UTF-8, undecodable bytes replaced).
        duration: wall-clock seconds from start to exit (or to giving up).
        timed_out: it ran past its timeout and was killed.
        truncated: output past `max_output` bytes was discarded.
        error: why it could not be started, if it could not.
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    truncated: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Started, finished in time and exited 0."""
        return self.returncode == 0 and not self.timed_out and self.error is None

    @property
    def not_found(self) -> bool:
        """The program is not installed (or not on PATH)."""
        return self.returncode == 127 and self.error is not None

    def describe(self) -> str:
        """One line for logs and `snapshot.errors`: what ran and how it ended."""
        name = Path(self.argv[0]).name if self.argv else "?"
        if self.error:
            return self.error
        if self.timed_out:
            return f"{name} timed out after {self.duration:.1f}s"
        tail = (self.stderr.strip().splitlines() or [""])[-1][:200]
        return f"{name} exited {self.returncode}" + (f": {tail}" if tail else "")


def command_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every command runs with: ours, in the C locale, plus `extra`."""
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    env.pop("LANGUAGE", None)
    if extra:
        env.update(extra)
    return env


async def _drain(stream: asyncio.StreamReader | None, limit: int) -> tuple[bytes, bool]:
    """Read a pipe to its end, keeping at most `limit` bytes."""
    if stream is None:
        return b"", False
    kept = bytearray()
    truncated = False
    while chunk := await stream.read(_CHUNK):
        room = limit - len(kept)
        if room > 0:
            kept += chunk[:room]
        if len(chunk) > room:
            truncated = True
    return bytes(kept), truncated


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def _start_failure(argv: tuple[str, ...], exc: OSError, started: float) -> CommandResult:
    name = argv[0] if argv else "?"
    if isinstance(exc, FileNotFoundError):
        code, why = 127, f"{name} not found (is it installed and on PATH?)"
    elif isinstance(exc, PermissionError):
        code, why = 126, f"{name} is not executable by this user"
    else:
        code, why = 126, f"{name} could not be started: {exc.strerror or exc}"
    return CommandResult(argv, code, "", "", time.monotonic() - started, error=why)


async def run(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    kill_grace: float = KILL_GRACE_S,
) -> CommandResult:
    """Run `argv` and collect its output; see the module docstring for the guarantees.

    Args:
        argv: program and arguments; argv[0] is looked up on PATH.
        timeout: seconds before the process group is killed. Required: nothing runs unbounded.
        env: extra environment variables (on top of ours and LC_ALL=C).
        stdin: bytes to feed on standard input; otherwise stdin is /dev/null.
        cwd: working directory.
        max_output: bytes kept per stream; the rest is read and discarded.
        kill_grace: seconds to wait for a killed process before abandoning it.
    """
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    args = tuple(str(a) for a in argv)
    if not args:
        raise ValueError("argv must not be empty")
    started = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=command_env(env),
            cwd=cwd,
            start_new_session=True,  # its own process group, so a timeout kills its children too
        )
    except OSError as exc:
        return _start_failure(args, exc, started)
    return await _supervise(
        proc,
        args,
        started=started,
        timeout=timeout,
        stdin=stdin,
        max_output=max_output,
        kill_grace=kill_grace,
    )


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    if proc.stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    proc.stdin.close()


async def _supervise(
    proc: asyncio.subprocess.Process,
    args: tuple[str, ...],
    *,
    started: float,
    timeout: float,
    stdin: bytes | None,
    max_output: int,
    kill_grace: float,
) -> CommandResult:
    out_task = asyncio.ensure_future(_drain(proc.stdout, max_output))
    err_task = asyncio.ensure_future(_drain(proc.stderr, max_output))
    feed_task = asyncio.ensure_future(_feed(proc, stdin)) if stdin is not None else None
    everything = asyncio.gather(proc.wait(), out_task, err_task)
    timed_out = False
    abandoned = False
    try:
        await asyncio.wait_for(asyncio.shield(everything), timeout)
    except TimeoutError:
        timed_out = True
        _kill_group(proc)
        try:
            await asyncio.wait_for(asyncio.shield(everything), kill_grace)
        except TimeoutError:
            abandoned = True
    except asyncio.CancelledError:
        _kill_group(proc)
        raise
    finally:
        if feed_task is not None and not feed_task.done():
            feed_task.cancel()
    duration = time.monotonic() - started
    if abandoned:
        for task in (out_task, err_task):
            task.cancel()
        everything.cancel()
        with contextlib.suppress(BaseException):
            await everything
    out, out_cut = (
        out_task.result() if out_task.done() and not out_task.cancelled() else (b"", False)
    )
    err, err_cut = (
        err_task.result() if err_task.done() and not err_task.cancelled() else (b"", False)
    )
    return CommandResult(
        argv=args,
        returncode=None if abandoned else proc.returncode,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        duration=duration,
        timed_out=timed_out,
        truncated=out_cut or err_cut,
    )


def run_sync(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    cwd: Path | None = None,
) -> CommandResult:
    """`run` for synchronous callers (the CLI): runs its own event loop."""
    return asyncio.run(run(argv, timeout=timeout, env=env, stdin=stdin, cwd=cwd))
