"""`python -m tests.stuckfand STICK ARGS...`: `nastui ARGS...` whose fan loop is made to hang,
for the watchdog test: once the file STICK exists, the next control step creates STICK.stuck
and blocks for good on the loop's own thread (as a read or write that never returns would),
and only the watchdog can act."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

from nastui.entry import main
from nastui.fans.flow import loop
from nastui.fans.flow.reads import Stall
from nastui.model import HostSnapshot


def _sticking(stick: Path) -> None:
    step = loop.FanDaemon.step

    def stick_if_asked() -> None:
        """Block the event loop's thread for good (on purpose): nothing else runs on it."""
        if stick.exists():
            stick.with_suffix(".stuck").touch()
            threading.Event().wait()

    async def stuck_step(
        self: loop.FanDaemon, stop: asyncio.Event | None = None
    ) -> HostSnapshot | Stall:
        stick_if_asked()
        return await step(self, stop)

    loop.FanDaemon.step = stuck_step  # type: ignore[method-assign]


if __name__ == "__main__":
    _sticking(Path(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
