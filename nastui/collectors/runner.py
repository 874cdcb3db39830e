"""The one way nastui runs a program: `run(argv, timeout=...) -> CommandResult`.

Every subprocess goes through here, so every one of them
- takes an argument list (never a shell string),
- has a timeout, after which its whole process group is killed,
- runs with `LC_ALL=C` so the output we parse is not translated,
- gets a minimal environment (`command_env`): PATH, TZ and TMPDIR from ours (an allowlist),
  the C locale, and what its caller passes for it (ipmitool's password, the exec hook's
  NASTUI_* variables); nothing else of ours, so an SMTP password or an apprise URL an operator
  exported for nastui never reaches smartctl, zpool or a hook,
- never raises on a non-zero exit: smartctl's exit status is a bitmask of findings, `zpool`
  exits 1 for "no pools"; the caller decides what a status means.
A program that cannot be started (not installed, not executable) is a result too, with
`returncode` 127 or 126 and `error` saying so, so callers have one path to handle.

A process stuck in uninterruptible sleep (a smartctl on a dying disk) ignores SIGKILL until its
I/O returns; `run` waits `kill_grace` seconds for it and then returns anyway, leaving the reaping
to asyncio, so a hung tool never stalls the caller past `timeout + kill_grace`.

A stand-in (`nastui.collectors.standin`) may answer instead of the machine's programs: the
outputs a capture bundle recorded, or a refusal under `--root` (nastui never runs this
machine's programs against another tree); every result returned is shown to it.

`stream` is `run` for long jobs whose output is read as it comes (fio's status dumps, dd's
progress): each line goes to a callback as soon as it arrives, the program also gets the
parent-death signal (SIGKILL when the thread that started it ends, so a benchmark never outlives
nastui), and setting its `stop` event sends SIGINT to the group (fio then prints its final
result) and SIGKILL `stop_grace` seconds later.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import re
import shlex
import signal
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from nastui.collectors import standin

DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024
KILL_GRACE_S = 2.0
_log = logging.getLogger(__name__)
STOP_GRACE_S = 5.0
_CHUNK = 65536
_PR_SET_PDEATHSIG = 1
# Sample: "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 2 s, 537 MB/s\r" (dd), "}\n" (fio)
_LINE_END = re.compile(rb"\r\n|\r|\n")
LineHandler = Callable[[str], None]


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


# What a child gets of our environment: where programs are, the time zone, where temporary
# files go. An allowlist: anything else (secrets included) stays with nastui.
PASSED_ENV = ("PATH", "TZ", "TMPDIR")
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def command_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every command runs with: PASSED_ENV of ours (PATH defaulted), the C
    locale, and `extra` (what this one program needs)."""
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    env.setdefault("PATH", DEFAULT_PATH)
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
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


async def _pump(
    stream: asyncio.StreamReader | None, limit: int, handler: LineHandler | None
) -> tuple[bytes, bool]:
    """Hand each line (ended by \\n, \\r or both; empty lines skipped) to `handler` as it
    arrives; without a handler, drain and keep the output as `_drain` does."""
    if handler is None or stream is None:
        return await _drain(stream, limit)
    pending = b""
    while chunk := await stream.read(_CHUNK):
        *lines, pending = _LINE_END.split(pending + chunk)
        for line in lines:
            if line:
                handler(line.decode("utf-8", "replace"))
    if pending:
        handler(pending.decode("utf-8", "replace"))
    return b"", False


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL to the program's process group (it leads its own session), else to it alone.

    Never `proc.kill()`: `Popen.send_signal` polls first, and that `waitpid` can reap the
    killed child before asyncio's child watcher does, which then reports exit 255 instead of
    -9 (seen in 1 of 40 runs).
    """
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    except PermissionError:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(proc.pid, signal.SIGKILL)


def _start_failure(argv: tuple[str, ...], exc: OSError, started: float) -> CommandResult:
    name = argv[0] if argv else "?"
    if isinstance(exc, FileNotFoundError):
        code, why = 127, f"{name} not found (is it installed and on PATH?)"
    elif isinstance(exc, PermissionError):
        code, why = 126, f"{name} is not executable by this user"
    else:
        code, why = 126, f"{name} could not be started: {exc.strerror or exc}"
    return CommandResult(argv, code, "", "", time.monotonic() - started, error=why)


def _checked(argv: Sequence[str], timeout: float) -> tuple[str, ...]:
    """The argument list as strings; a positive timeout and a program are required."""
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    args = tuple(str(a) for a in argv)
    if not args:
        raise ValueError("argv must not be empty")
    return args


async def _spawn(
    args: tuple[str, ...],
    *,
    stdin: bool,
    env: Mapping[str, str] | None,
    cwd: Path | None,
    preexec: Callable[[], None] | None = None,
    output: tuple[IO[bytes], IO[bytes]] | None = None,
) -> asyncio.subprocess.Process:
    """Start `args` with piped output (or into the `output` files), stdin piped or /dev/null,
    in the C locale.

    Raises:
        OSError: it could not be started.
    """
    return await asyncio.create_subprocess_exec(
        *args,
        stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
        stdout=output[0] if output else asyncio.subprocess.PIPE,
        stderr=output[1] if output else asyncio.subprocess.PIPE,
        env=command_env(env),
        cwd=cwd,
        start_new_session=True,  # its own process group, so a timeout kills its children too
        preexec_fn=preexec,
    )


async def run(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    kill_grace: float = KILL_GRACE_S,
    leaves_child: bool = False,
    delivery: bool = False,
) -> CommandResult:
    """Run `argv` and collect its output; see the module docstring for the guarantees.

    Args:
        argv: program and arguments; argv[0] is looked up on PATH.
        timeout: seconds before the process group is killed. Required: nothing runs unbounded.
        env: what this program needs in its environment, on top of `command_env`'s.
        stdin: bytes to feed on standard input; otherwise stdin is /dev/null.
        cwd: working directory.
        max_output: bytes kept per stream; the rest is read and discarded.
        kill_grace: seconds to wait for a killed process before abandoning it.
        leaves_child: the program starts a background child that keeps its output open
            (`btrfs scrub start`): output goes to unlinked temporary files instead of pipes,
            and the result comes when the program itself exits, leaving the child running.
        delivery: the program delivers a notice (an alert exec hook) and reads nothing of
            the machine: no stand-in answers for it, it runs under any `--root`.
    """
    args = _checked(argv, timeout)
    if not delivery and (answer := standin.answer(args)) is not None:
        return _logged(answer)
    started = time.monotonic()
    if leaves_child:
        result = await _run_leaving_child(
            args, started=started, timeout=timeout, env=env, cwd=cwd, max_output=max_output
        )
        return _logged(result)
    try:
        proc = await _spawn(args, stdin=stdin is not None, env=env, cwd=cwd)
    except OSError as exc:
        return _logged(_start_failure(args, exc, started))
    result = await _supervise(
        proc,
        args,
        started=started,
        timeout=timeout,
        stdin=stdin,
        max_output=max_output,
        kill_grace=kill_grace,
    )
    return _logged(result)


def _logged(result: CommandResult) -> CommandResult:
    """`result`, after one debug line (`nastui --debug`): argv, exit status, time taken."""
    if _log.isEnabledFor(logging.DEBUG):
        how = result.error or ("timed out" if result.timed_out else f"exit {result.returncode}")
        _log.debug("%s: %s in %.2f s", shlex.join(result.argv), how, result.duration)
    standin.seen(result)
    return result


async def _run_leaving_child(
    args: tuple[str, ...],
    *,
    started: float,
    timeout: float,
    env: Mapping[str, str] | None,
    cwd: Path | None,
    max_output: int,
) -> CommandResult:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = await _spawn(args, stdin=False, env=env, cwd=cwd, output=(out, err))
        except OSError as exc:
            return _start_failure(args, exc, started)
        timed_out = False
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            timed_out = True
            _kill_group(proc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), KILL_GRACE_S)
        texts = []
        for stream in (out, err):
            stream.seek(0)
            texts.append(stream.read(max_output + 1))
    return CommandResult(
        argv=args,
        returncode=proc.returncode,
        stdout=texts[0][:max_output].decode("utf-8", "replace"),
        stderr=texts[1][:max_output].decode("utf-8", "replace"),
        duration=time.monotonic() - started,
        timed_out=timed_out,
        truncated=any(len(t) > max_output for t in texts),
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
    on_stdout: LineHandler | None = None,
    on_stderr: LineHandler | None = None,
) -> CommandResult:
    out_task = asyncio.ensure_future(_pump(proc.stdout, max_output, on_stdout))
    err_task = asyncio.ensure_future(_pump(proc.stderr, max_output, on_stderr))
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
        await _reap(proc, (out_task, err_task), everything, kill_grace)
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


async def _reap(
    proc: asyncio.subprocess.Process,
    readers: tuple[asyncio.Future[tuple[bytes, bool]], ...],
    everything: asyncio.Future[Any],
    grace: float,
) -> None:
    """After a cancellation: give the killed process `grace` seconds to be reaped, then stop
    the readers, so no transport or task is left behind."""
    with contextlib.suppress(BaseException):
        await asyncio.wait_for(asyncio.shield(proc.wait()), grace)
    for task in readers:
        task.cancel()
    everything.cancel()
    with contextlib.suppress(BaseException):
        await everything


def run_sync(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    delivery: bool = False,
) -> CommandResult:
    """`run` for synchronous callers (the CLI): runs its own event loop."""
    return asyncio.run(run(argv, timeout=timeout, env=env, stdin=stdin, cwd=cwd, delivery=delivery))


def _dies_with_parent() -> Callable[[], None]:
    """A `preexec_fn` giving the child SIGKILL when the thread that started it ends.

    `prctl` is looked up here, in the parent: nothing but a plain C call runs after the fork.
    If the parent is already gone by the time the child asks, the child exits at once.
    """
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


async def _interrupt_when(
    stop: asyncio.Event, proc: asyncio.subprocess.Process, grace: float
) -> None:
    """On `stop`: SIGINT to the group, then SIGKILL after `grace` seconds."""
    await stop.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGINT)
    await asyncio.sleep(grace)
    _kill_group(proc)


async def stream(
    argv: Sequence[str],
    *,
    timeout: float,
    on_stdout: LineHandler | None = None,
    on_stderr: LineHandler | None = None,
    stop: asyncio.Event | None = None,
    stop_grace: float = STOP_GRACE_S,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    kill_grace: float = KILL_GRACE_S,
) -> CommandResult:
    """Run `argv`, handing its output to callbacks line by line as it comes.

    The guarantees of `run` hold (argument list, LC_ALL=C, own process group and session,
    killed at `timeout` and when the awaiting task is cancelled, never raises for an exit
    status); the program also dies with the thread that started it (parent-death signal).

    Args:
        argv: program and arguments; argv[0] is looked up on PATH.
        timeout: seconds before the process group is killed.
        on_stdout, on_stderr: called with each line (without its end) as it arrives; a stream
            without a handler is collected into the result as `run` does.
        stop: when set, the group gets SIGINT, and SIGKILL `stop_grace` seconds later; the
            output printed meanwhile (fio's final result) still reaches the handlers.
        stop_grace: seconds between SIGINT and SIGKILL after `stop`.
        env: what this program needs in its environment, on top of `command_env`'s.
        cwd: working directory.
        max_output: bytes kept per collected stream.
        kill_grace: seconds to wait for a killed process before abandoning it.
    """
    args = _checked(argv, timeout)
    if (answer := standin.answer_lines(args, on_stdout, on_stderr)) is not None:
        return _logged(answer)
    started = time.monotonic()
    try:
        proc = await _spawn(args, stdin=False, env=env, cwd=cwd, preexec=_dies_with_parent())
    except OSError as exc:
        return _logged(_start_failure(args, exc, started))
    watcher = asyncio.ensure_future(_interrupt_when(stop, proc, stop_grace)) if stop else None
    try:
        result = await _supervise(
            proc,
            args,
            started=started,
            timeout=timeout,
            stdin=None,
            max_output=max_output,
            kill_grace=kill_grace,
            on_stdout=on_stdout,
            on_stderr=on_stderr,
        )
    finally:
        if watcher is not None:
            watcher.cancel()
    return _logged(result)
