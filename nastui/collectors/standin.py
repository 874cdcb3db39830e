"""The seam in the one subprocess runner: something that answers instead of the machine.

`nastui.collectors.runner` asks the stand-in installed here before it starts a program, and
shows it every result it returns. The session installs one under `--root DIR`, so nastui never
runs this machine's programs against another tree (`nastui.collectors.replay`):
- DIR is a capture bundle: the programs' outputs it recorded answer, by argument list;
- DIR is any other tree: every program is refused, "not run under --root", in one line;
- DIR is this machine's root (or `NASTUI_ROOT_TOOLS=path` asks for it): nothing is installed.
`nastui capture` installs a recorder (`nastui.capture.record`).

One per process: the session that opened the machine decides for every program run after it
(collectors, scrubs, fans, swaps, self-tests, benchmarks, notifier hooks).
"""

from __future__ import annotations

import dataclasses
import shutil
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from nastui.collectors.runner import CommandResult, LineHandler


class StandIn(Protocol):
    """What answers for the machine's programs while installed."""

    def answer(self, argv: tuple[str, ...]) -> CommandResult | None:
        """The result to return instead of running `argv`; None: run it."""
        ...

    def seen(self, result: CommandResult) -> None:
        """Told of every result the runner returns, answered or run."""
        ...

    def installed(self, tool: str) -> bool | None:
        """Whether `tool` counts as installed; None: as PATH says."""
        ...

    def absent(self, tool: str) -> str | None:
        """Why `tool` is not there, in a few words ("zpool not run under --root"); None: say
        what one says of a program that is not installed."""
        ...


_installed: StandIn | None = None


def use(stand_in: StandIn | None) -> StandIn | None:
    """Put `stand_in` in front of every program run from now on in this process (None: run
    the machine's programs again); returns the one it replaces."""
    global _installed
    previous, _installed = _installed, stand_in
    return previous


def current() -> StandIn | None:
    """The stand-in installed, if any."""
    return _installed


def answer(argv: tuple[str, ...]) -> CommandResult | None:
    """The stand-in's answer for `argv` (the runner's first question); None: run it."""
    return _installed.answer(argv) if _installed is not None else None


def answer_lines(
    argv: tuple[str, ...], on_stdout: LineHandler | None, on_stderr: LineHandler | None
) -> CommandResult | None:
    """`answer` for a streamed program: the answer's lines go to the handlers, as a run's
    would, and a stream with a handler is not kept in the result (as `runner.stream` does)."""
    result = answer(argv)
    if result is None:
        return None
    for text, handler in ((result.stdout, on_stdout), (result.stderr, on_stderr)):
        if handler is not None:
            for line in filter(None, text.splitlines()):
                handler(line)
    return dataclasses.replace(
        result,
        stdout="" if on_stdout is not None else result.stdout,
        stderr="" if on_stderr is not None else result.stderr,
    )


def seen(result: CommandResult) -> None:
    """Show `result` to the stand-in (the runner's last step)."""
    if _installed is not None:
        _installed.seen(result)


def installed(tool: str) -> bool:
    """Whether `tool` can be run: as the stand-in says, else whether it is on PATH."""
    said = _installed.installed(tool) if _installed is not None else None
    return shutil.which(tool) is not None if said is None else said


def absent(tool: str, words: str) -> str:
    """Why `tool` is missing: the stand-in's words, else `words` ("no zpool")."""
    said = _installed.absent(tool) if _installed is not None else None
    return said or words
