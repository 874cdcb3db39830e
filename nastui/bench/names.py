"""Names that do not collide: a run's id and its fresh directory's name, then the same with
"-2", "-3"... (`numbered`), and the order that puts "-10" after "-9" (`natural`).

The demo's clock can stand still, so every run there is stamped the same second: the suffix,
not the time, is then what tells its runs apart.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

MAX_TRIES = 1000  # names tried before giving up (each one found taken on the disk)
_NUMBERS = re.compile(r"(\d+)")


def numbered(name: str, tries: int | None = None) -> Iterator[str]:
    """`name`, then `name-2`, `name-3`... (`tries` names in all; None: without end)."""
    yield name
    for n in itertools.count(2) if tries is None else range(2, tries + 1):
        yield f"{name}-{n}"


def natural(name: str) -> tuple[tuple[int, str], ...]:
    """A sort key comparing the runs of digits in `name` as numbers ("x-9" before "x-10")."""
    parts = _NUMBERS.split(name)  # text, digits, text, digits... (text may be "")
    return tuple((int(p), "") if i % 2 else (-1, p) for i, p in enumerate(parts))
