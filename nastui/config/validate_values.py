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


def show(value: object) -> str:
    """A value as it appears after "got" in a message."""
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
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


def is_integer(value: object) -> bool:
    """An integer, and not a boolean (which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite integer or float, and not a boolean."""
    if isinstance(value, float):
        return math.isfinite(value)
    return is_integer(value)


def describe(kind: str, low: float | None, high: float | None, positive: bool, unit: str) -> str:
    """The rule a number breaks, as words: "a positive integer", "a number from 0 to 100"."""
    suffix = f" of {unit}" if unit else ""
    if positive:
        return f"a positive {kind}{suffix}"
    if low is not None and high is not None:
        return f"{'an' if kind == 'integer' else 'a'} {kind}{suffix} from {low:g} to {high:g}"
    if low == 0:
        return f"a non-negative {kind}{suffix}"
    if low is not None:
        return f"{'an' if kind == 'integer' else 'a'} {kind}{suffix} of at least {low:g}"
    return f"{'an' if kind == 'integer' else 'a'} {kind}{suffix}"


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
