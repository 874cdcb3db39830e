"""Sizes as fio writes them ("4k", "1M", "70G": binary multiples) and short labels for them."""

from __future__ import annotations

import re

# Sample: 4k   4K   1M   70G   1.5T   512   16m   1GiB   100%
_SIZE = re.compile(r"^(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[kKmMgGtTpP]?)(?:i?[bB])?$")
_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


def parse_size(text: str) -> int:
    """Bytes from "4k", "1M", "70G", "1.5T", "512" (binary multiples, as fio reads them).

    Raises:
        ValueError: not a size, or zero.
    """
    match = _SIZE.match(text.strip())
    if match is None:
        raise ValueError(f"not a size: {text!r} (use e.g. 4k, 1M, 70G)")
    value: int = round(float(match["num"]) * 1024 ** _POWER[str(match["unit"]).lower()])
    if value <= 0:
        raise ValueError(f"a size must be positive: {text!r}")
    return value


def size_label(n: int) -> str:
    """The shortest exact fio size: 4096 -> "4K", 1048576 -> "1M", 1000 -> "1000"."""
    for unit, power in (("P", 5), ("T", 4), ("G", 3), ("M", 2), ("K", 1)):
        step = 1024**power
        if n >= step and n % step == 0:
            return f"{n // step}{unit}"
    return str(n)
