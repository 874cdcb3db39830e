"""`ascii_driver`: the last guard of the serial-console promise.

In ASCII mode every widget already draws with `+ - |` and plain text (see app.tcss and
`TextPanel`); this wraps Textual's driver so that whatever slips through anyway (a glyph in a
library widget, a character in a drive's model string) leaves as ASCII of the same width, and
the picture on the terminal keeps its columns. A test that renders the screens checks that the
guard has nothing to do.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.driver import Driver

# One ASCII character for each one-cell character Textual and nastui draw with.
SAME_WIDTH = {
    **dict.fromkeys("─━═╌╍┄┅▔▁", "-"),
    **dict.fromkeys("│┃║╎╏┆┇▊▎▌▐", "|"),
    **dict.fromkeys("┌┐└┘├┤┬┴┼╭╮╰╯┏┓┗┛┣┫┳┻╋╔╗╚╝╠╣╦╩╬", "+"),
    **dict.fromkeys("█▇▆▅▄▃▂▉▋▍▏", "#"),
    "░": ".",
    "▒": ":",
    "▓": "#",
    "…": "~",
    "°": "'",
    "↑": "^",
    "↓": "v",
    "→": ">",
    "←": "<",
    "×": "x",
    "•": "*",
    "·": ".",
    "µ": "u",
}


class _Table(dict[int, str]):
    """`str.translate` table: known glyphs to their stand-in, anything else to `?` per cell."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        value = char if code < 128 else SAME_WIDTH.get(char) or "?" * max(1, cell_len(char))
        self[code] = value
        return value


TABLE = _Table()


def wire_ascii(data: str) -> str:
    """`data` (text and escape sequences) with every non-ASCII character replaced in place."""
    return data if data.isascii() else data.translate(TABLE)


def ascii_driver(base: type[Driver]) -> type[Driver]:
    """A subclass of `base` that writes only ASCII."""

    class AsciiDriver(base):  # type: ignore[valid-type, misc]
        def write(self, data: str) -> None:
            super().write(wire_ascii(data))

    AsciiDriver.__name__ = f"Ascii{base.__name__}"
    return AsciiDriver
