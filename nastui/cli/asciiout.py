"""`AsciiStream`: a text stream that writes only ASCII, for `--ascii` and serial consoles.

Commands draw with `glyphs_of(args)` already; this is the guard over everything they print
that comes from elsewhere (an alert's "45 °C", a model string, a rich table), so the ASCII
choice holds on every output path.
"""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from nastui.core.glyphs import choose_ascii, to_ascii


class AsciiStream:
    """Writes to `out` with every non-ASCII character replaced (see `to_ascii`); tells rich,
    which asks the file's encoding, to stay in ASCII."""

    encoding = "ascii"

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def write(self, text: str) -> int:
        return self._out.write(to_ascii(text))

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._out.flush()

    def isatty(self) -> bool:
        return self._out.isatty()

    def fileno(self) -> int:
        return self._out.fileno()

    @property
    def inner(self) -> TextIO:
        """The stream written to."""
        return self._out


def ascii_wanted(args: argparse.Namespace) -> bool:
    """ASCII output? `--ascii`, else the terminal and locale (the configuration's `ui.ascii`
    is read by the commands that open one, through `glyphs_of`)."""
    return choose_ascii(os.environ, forced=True if getattr(args, "ascii", False) else None)
