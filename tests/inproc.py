"""`nastui` run in the test's own process, as `python -m nastui` runs in a child.

A child costs ~0.55 s of CPU before it does anything (an interpreter, then nastui's imports);
most CLI tests run a command a few times. `run_nastui(argv, env=, cwd=, input=)` calls
`nastui.entry.main(argv)` here instead and answers what `subprocess.run([*NASTUI, *argv],
capture_output=True, ...)` answers (a `CompletedProcess` with the exit code, stdout, stderr),
with what a fresh process would start from and leave behind:
- the environment is exactly `env` (or this process's), the working directory `cwd`, the time
  zone the environment names;
- stdin, stdout and stderr are text streams on descriptors of their own (files: stdin holds
  `input`, else nothing), never terminals; UTF-8 unless PYTHONIOENCODING says otherwise (a C
  locale is coerced to UTF-8, as Python does). A program nastui runs with its output left
  alone writes to this process's descriptors, not to the captured ones;
- argparse's and `sys.exit`'s SystemExit become the exit code; an exception escaping `main`
  (NASTUI_DEBUG) is a traceback on stderr and exit 1, as the interpreter makes it;
- what the run leaves in the process is taken away: the runner's stand-in
  (`nastui.collectors.standin`), log handlers and levels, signal handlers, the objects frozen
  for the garbage collector (`nastui.entry` freezes what it loads); nastui's `atexit`
  callbacks run at the end of the run and the threads it started are waited for, as at exit
  (a library's thread pool for the process excepted). A daemon thread still running a moment
  after is an error naming it: that test needs a real process (`@pytest.mark.subprocess`).

`run_like_subprocess` takes `subprocess.run`'s arguments: a `python -m nastui` argv runs here,
anything else runs as a child. tests/cli/conftest.py puts it in place of `subprocess.run` for
the CLI tests, so a test written with `subprocess.run([*nastui_cmd, ...])` runs in process.
Signals, terminals and daemons that outlive a command need a real process: `subprocess.Popen`,
a pty or tmux, which this never replaces.
"""

from __future__ import annotations

import atexit
import concurrent.futures.thread
import contextlib
import gc
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from nastui.collectors import standin
from tests.waiting import DEADLINE_S

NASTUI = (sys.executable, "-m", "nastui")
THREAD_GRACE_S = 2.0  # a daemon thread a command started has this long to end after it
REAL_RUN = subprocess.run
# subprocess.run's arguments an in-process run answers (timeout: pytest-timeout's, per test)
ANSWERED = frozenset(
    {"capture_output", "text", "universal_newlines", "env", "cwd", "input", "timeout", "check"}
)


class NotInProcess(AssertionError):
    """The command left something behind that only a real process's exit would end."""


def child_encoding(env: Mapping[str, str]) -> str:
    """The encoding of a child interpreter's std streams on pipes: PYTHONIOENCODING, else
    UTF-8 (Debian's locales are UTF-8 ones; Python coerces the C locale to C.UTF-8)."""
    forced = env.get("PYTHONIOENCODING", "").partition(":")[0]
    return forced or "utf-8"


@contextlib.contextmanager
def _environment(env: Mapping[str, str], cwd: str | Path | None) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), Path.cwd()
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    try:
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        time.tzset()


@contextlib.contextmanager
def _streams(encoding: str, stdin: bytes) -> Iterator[Callable[[], tuple[bytes, bytes]]]:
    """stdin, stdout and stderr on files of their own (real descriptors, as a child's pipes
    are; never terminals); yields what reads what stdout and stderr received."""
    with (
        tempfile.TemporaryFile() as given,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        given.write(stdin)
        given.flush()
        given.seek(0)
        saved = sys.stdin, sys.stdout, sys.stderr
        sys.stdin = os.fdopen(os.dup(given.fileno()), encoding=encoding)
        sys.stdout = os.fdopen(os.dup(out.fileno()), "w", encoding=encoding)
        sys.stderr = os.fdopen(
            os.dup(err.fileno()), "w", encoding=encoding, errors="backslashreplace"
        )

        def received() -> tuple[bytes, bytes]:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(ValueError):  # closed by the command
                    stream.flush()
            out.seek(0)
            err.seek(0)
            return out.read(), err.read()

        try:
            yield received
        finally:
            for stream in (sys.stdin, sys.stdout, sys.stderr):
                with contextlib.suppress(ValueError, OSError):
                    stream.close()
            sys.stdin, sys.stdout, sys.stderr = saved


@contextlib.contextmanager
def _logging_kept() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {
        name: logger.level
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    try:
        yield
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        for name, logger in logging.Logger.manager.loggerDict.items():
            if isinstance(logger, logging.Logger):
                logger.setLevel(levels.get(name, logging.NOTSET))


@contextlib.contextmanager
def _signals_kept() -> Iterator[None]:
    kept = {}
    for number in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError):
            kept[number] = signal.getsignal(number)
    try:
        yield
    finally:
        for number, handler in kept.items():
            if handler is not None and signal.getsignal(number) is not handler:
                signal.signal(number, handler)


@contextlib.contextmanager
def _exit_handlers() -> Iterator[list[Callable[[], object]]]:
    """nastui's `atexit` callbacks of the run, collected to run at its end (a library's stay
    registered for this process's own exit)."""
    collected: list[Callable[[], object]] = []
    real = atexit.register

    def register(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        if getattr(func, "__module__", "").startswith("nastui"):
            collected.append(lambda: func(*args, **kwargs))
            return func
        return real(func, *args, **kwargs)

    atexit.register = register  # type: ignore[assignment]
    try:
        yield collected
    finally:
        atexit.register = real


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _main(argv: list[str]) -> int:
    from nastui.entry import main

    try:
        return main(argv)
    except SystemExit as exc:
        return _exit_code(exc)
    except Exception:
        traceback.print_exc()
        return 1


@contextlib.contextmanager
def _threads_started() -> Iterator[list[threading.Thread]]:
    """The threads the command starts (from this thread, or from one of its own): not those a
    test's server starts meanwhile."""
    started: list[threading.Thread] = []
    real = threading.Thread.start
    owner = threading.current_thread()

    def start(thread: threading.Thread) -> None:
        if threading.current_thread() in (owner, *started):
            started.append(thread)
        real(thread)

    threading.Thread.start = start  # type: ignore[method-assign,assignment]
    try:
        yield started
    finally:
        threading.Thread.start = real  # type: ignore[method-assign]


def _pool_worker(thread: threading.Thread) -> bool:
    """A `concurrent.futures` pool's worker: a library's pool for the process (apprise keeps
    one) outlives the command and is woken at the interpreter's exit, not the command's."""
    return getattr(thread, "_target", None) is concurrent.futures.thread._worker


def _wait_for(started: list[threading.Thread], argv: Sequence[str]) -> None:
    """The command's threads end as at exit: non-daemon ones are waited for (up to
    `DEADLINE_S`), daemon ones get `THREAD_GRACE_S`; one still running is an error."""
    threads = [thread for thread in started if not _pool_worker(thread)]
    deadline = time.monotonic() + DEADLINE_S
    for thread in threads:
        if not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    deadline = time.monotonic() + THREAD_GRACE_S
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    alive = [t.name for t in threads if t.is_alive()]
    if alive:
        raise NotInProcess(
            f"`nastui {' '.join(argv)}` left thread(s) {alive} running: a process's exit would "
            "end them; run this test as a subprocess (@pytest.mark.subprocess)"
        )


def run_nastui(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    input: str | bytes | None = None,
    text: bool = True,
) -> subprocess.CompletedProcess[Any]:
    """`nastui ARGV` run in this process, answered as `subprocess.run([*NASTUI, *argv],
    capture_output=True, env=env, cwd=cwd, input=input, text=text)` answers."""
    words = [str(word) for word in argv]
    environ = dict(os.environ if env is None else env)
    encoding = child_encoding(environ)
    stdin = input.encode(encoding) if isinstance(input, str) else (input or b"")
    stand_in = standin.use(None)
    try:
        with (
            _environment(environ, cwd),
            _logging_kept(),
            _signals_kept(),
            _exit_handlers() as at_exit,
            _threads_started() as threads,
            _streams(encoding, stdin) as received,
        ):
            code = _main(words)
            for callback in reversed(at_exit):
                callback()
            _wait_for(threads, words)
            stdout, stderr = received()
    finally:
        standin.use(stand_in)
        gc.unfreeze()  # what the run froze is collected again, as a process's exit frees it
    if not text:
        return subprocess.CompletedProcess([*NASTUI, *words], code, stdout, stderr)
    return subprocess.CompletedProcess(
        [*NASTUI, *words], code, _universal(stdout, encoding), _universal(stderr, encoding)
    )


def _universal(data: bytes, encoding: str) -> str:
    """What `subprocess.run(..., text=True)` makes of a pipe's bytes."""
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def nastui_argv(args: object) -> list[str] | None:
    """The arguments after `python -m nastui` in a command line, if it is one."""
    if not isinstance(args, list | tuple) or len(args) < len(NASTUI):
        return None
    head = tuple(str(word) for word in args[: len(NASTUI)])
    return [str(word) for word in args[len(NASTUI) :]] if head == NASTUI else None


def run_like_subprocess(args: Any, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run`, with `python -m nastui ...` run in this process (see the module)."""
    argv = nastui_argv(args)
    if argv is None or not kwargs.get("capture_output") or set(kwargs) - ANSWERED:
        return REAL_RUN(args, **kwargs)
    text = bool(kwargs.get("text") or kwargs.get("universal_newlines"))
    done = run_nastui(
        argv, env=kwargs.get("env"), cwd=kwargs.get("cwd"), input=kwargs.get("input"), text=text
    )
    if kwargs.get("check"):
        done.check_returncode()
    return done
