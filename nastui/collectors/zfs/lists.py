"""`zpool list -Hp -o ...` (and the headed `zpool list -p`), and `zfs list -Hp -o
name,used,available -d 0`, as space figures per pool (pure).

`-p` prints exact bytes; fragmentation is "4" on current OpenZFS and "8%" on older builds, "-"
when unknown. Vdev rows of `-v` listings (indented, or named logs/cache/...) are skipped.
`zpool list` counts raw space (with raidz parity); `zfs list` the usable space of each pool's
root dataset, which is what `Pool.size_bytes` means (see `nastui.model.pool.Pool`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from nastui.collectors.pools_parse import numbered, parse_size
from nastui.model.errors import ParseError

WHAT = "zpool list"
COLUMNS = ("name", "size", "allocated", "fragmentation", "health")
_ALIASES = {
    "alloc": "allocated",
    "frag": "fragmentation",
    "cap": "capacity",
    "expandsz": "expandsize",
    "ckpoint": "checkpoint",
    "dedup": "dedupratio",
}
_GROUP_ROWS = frozenset({"log", "logs", "cache", "spare", "spares", "special", "dedup"})
# Sample: NAME    SIZE   ALLOC   FREE  EXPANDSZ   FRAG    CAP  DEDUP  HEALTH  ALTROOT
_HEADER = re.compile(r"^NAME\s+\S")
# Sample: 8%   4   -
_PERCENT = re.compile(r"^(?P<n>\d+(?:\.\d+)?)%?$")


@dataclass(frozen=True, slots=True)
class ListRow:
    """One pool's line of `zpool list`.

    Attributes:
        name: the pool.
        size_bytes: SIZE (raw, with raidz parity).
        allocated_bytes: ALLOC.
        fragmentation_percent: FRAG.
        health: HEALTH as printed.
    """

    name: str
    size_bytes: int | None
    allocated_bytes: int | None
    fragmentation_percent: int | None
    health: str | None


def _number(value: str | None) -> int | None:
    if value is None or value == "-":
        return None
    return parse_size(value)


def _percent(value: str | None) -> int | None:
    if value is None or value == "-":
        return None
    match = _PERCENT.match(value)
    if match is None:
        raise ValueError(f"not a percentage: {value!r}")
    return round(float(match["n"]))


def _row(fields: dict[str, str]) -> ListRow:
    return ListRow(
        name=fields["name"],
        size_bytes=_number(fields.get("size")),
        allocated_bytes=_number(fields.get("allocated")),
        fragmentation_percent=_percent(fields.get("fragmentation")),
        health=fields.get("health"),
    )


def parse_zpool_list(text: str, columns: Sequence[str] | None = COLUMNS) -> dict[str, ListRow]:
    """Pool name -> its row.

    Args:
        text: the output.
        columns: the `-o` list it was run with; None when the first line is a header
            (`zpool list -p` without `-H`).

    Raises:
        ParseError: a row with the wrong number of fields, or values that are not numbers.
    """
    rows: dict[str, ListRow] = {}
    names = [_ALIASES.get(c.lower(), c.lower()) for c in columns] if columns is not None else None
    for line_no, raw in numbered(text):
        line = raw.rstrip()
        if not line.strip():
            continue
        if names is None:
            if not _HEADER.match(line):
                raise ParseError(WHAT, "expected the NAME header", line_no, raw)
            names = [_ALIASES.get(c.lower(), c.lower()) for c in line.split()]
            continue
        values = line.split()
        if line[0].isspace() or (values[0] in _GROUP_ROWS and len(set(values[1:])) <= 1):
            continue  # a vdev row of `zpool list -v`
        if len(values) < len(names) - 1 or len(values) > len(names):
            raise ParseError(WHAT, f"{len(values)} fields, expected {len(names)}", line_no, raw)
        try:
            row = _row(dict(zip(names, values, strict=False)))
        except ValueError as exc:
            raise ParseError(WHAT, str(exc), line_no, raw) from exc
        rows[row.name] = row
    return rows


def parse_zfs_space(text: str) -> dict[str, tuple[int, int]]:
    """`zfs list -Hp -o name,used,available -d 0`: pool -> (used, available) bytes.

    Datasets below a pool's root ("tank/home") are skipped.

    Raises:
        ParseError: a row that is not three tab-separated fields with integer sizes.
    """
    space: dict[str, tuple[int, int]] = {}
    for line_no, raw in numbered(text):
        if not raw.strip():
            continue
        fields = raw.split()
        if len(fields) != 3 or not fields[1].isdigit() or not fields[2].isdigit():
            raise ParseError("zfs list", "expected name, used, available", line_no, raw)
        if "/" not in fields[0]:
            space[fields[0]] = (int(fields[1]), int(fields[2]))
    return space
