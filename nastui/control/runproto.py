"""The subprocess runner as the control layer sees it.

Control sits beside the collectors (import-linter keeps the two apart), so it cannot import
`nastui.collectors.runner`; the front ends hand that runner in, and these protocols say what
control relies on from it. One place, for scrubs, swaps and self-tests alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Protocol


class RunResult(Protocol):
    """What the runner returns (`nastui.collectors.runner.CommandResult`)."""

    @property
    def returncode(self) -> int | None: ...
    @property
    def stdout(self) -> str: ...
    @property
    def stderr(self) -> str: ...
    @property
    def ok(self) -> bool: ...
    @property
    def not_found(self) -> bool: ...
    def describe(self) -> str: ...


class Runner(Protocol):
    """`nastui.collectors.runner.run`: an argument list, a timeout, never a shell."""

    def __call__(
        self, argv: Sequence[str], *, timeout: float, leaves_child: bool = False
    ) -> Awaitable[RunResult]: ...
