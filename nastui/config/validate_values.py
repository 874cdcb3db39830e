"""Words and tests for single values: dotted key names, values as shown in messages, number rules.

Dotted keys count `[[tables]]` and array items from 1 (`fan[2].zone` is the zone of the second
`[[fan]]`), as a reader counts them.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Collection, Iterable

from nastui.config.tomlpos import KeyPath

# Sample: serial_number
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def dotted(path: KeyPath) -> str:
    """A key path as the user reads it: `chassis.bay[4].serial`, `thresholds."odd key"`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part + 1}]"
        else:
            name = part if _BARE.fullmatch(part) else json.dumps(part, ensure_ascii=False)
            text += f".{name}" if text else name
    return text


# The largest integer any setting may hold: past it a number is refused before it reaches any
# arithmetic (a float conversion of 10**400 raises OverflowError).
MAX_MAGNITUDE = 2**63 - 1
YEAR_S = 366 * 86400.0  # the longest period in seconds a setting may name
MAX_TIMEOUT_S = 600.0  # the longest a network request may be given to answer
MAX_RETRIES = 10


def show(value: object) -> str:
    """A value as it appears after "got" in a message (a huge integer by its size)."""
    if isinstance(value, int) and is_integer(value) and abs(value) > MAX_MAGNITUDE:
        digits = int(value.bit_length() * 0.30103) + 1
        return f"an integer of about {digits} digits"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return number_text(value)
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__} ({value})"


def number_text(value: float) -> str:
    """A number without a pointless ".0": 55, 55.5."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def is_integer(value: object) -> bool:
    """An integer, and not a boolean (which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite float, or an integer (not a boolean) of at most `MAX_MAGNITUDE`."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and is_integer(value) and abs(value) <= MAX_MAGNITUDE


def describe(kind: str, low: float | None, high: float | None, positive: bool, unit: str) -> str:
    """The rule a number breaks, as words: "a positive integer", "a number from 0 to 100"."""
    suffix = f" of {unit}" if unit else ""
    article = "an" if kind == "integer" else "a"
    upto = f" up to {number_text(high)}" if high is not None else ""
    if positive:
        return f"a positive {kind}{suffix}{upto}"
    if low is not None and high is not None:
        return f"{article} {kind}{suffix} from {number_text(low)} to {number_text(high)}"
    if low == 0:
        return f"a non-negative {kind}{suffix}{upto}"
    if low is not None:
        return f"{article} {kind}{suffix} of at least {number_text(low)}"
    return f"{article} {kind}{suffix}{upto}"


def in_range(value: float, low: float | None, high: float | None, positive: bool) -> bool:
    """Whether `value` keeps the bounds (`positive`: strictly above 0)."""
    if positive and value <= 0:
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def suggest(key: str, known: Collection[str]) -> str | None:
    """The known key `key` most likely misspells: a close match, else the one it begins."""
    close = difflib.get_close_matches(key, list(known), n=1)
    if close:
        return close[0]
    starts = [k for k in known if k.startswith(key) or key.startswith(k)]
    return starts[0] if len(starts) == 1 else None


def one_of(values: Iterable[str]) -> str:
    """'one of "a", "b", "c"'."""
    return "one of " + ", ".join(f'"{v}"' for v in values)
