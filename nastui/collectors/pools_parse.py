"""What the pool parsers share: `ParseError` and `note` (a line they did not understand), and
the numbers, durations and dates the storage tools print (ZFS's "1.63T", btrfs's "404.88MiB",
"00:06:53", "1 days 02:03:04", "15h2m", ctime dates).

Pure functions; dates are read in the local time zone, as the tools print them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

from nastui.model.errors import ParseError

_BINARY_UNITS = {u: 1 << (10 * i) for i, u in enumerate(("", "K", "M", "G", "T", "P", "E", "Z"))}
_SI_UNITS = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15, "EB": 10**18}

# Sample: 1.63T   845G   0B   404.88MiB   4.15GiB   58.5K   1.00P   630112256   2.00 MB
_SIZE = re.compile(r"^(?P<num>\d+(?:\.\d+)?)\s?(?P<unit>[KMGTPEZ]?i?B?|[kKMGTPE]B)$")
# Sample: 00:06:53   1 days 02:03:04   0 days 00:00:00   0:00:14   15h2m   0h0m
_HMS = re.compile(r"^(?:(?P<days>\d+) days? )?(?P<h>\d+):(?P<m>\d{2}):(?P<s>\d{2})$")
_HM = re.compile(r"^(?P<h>\d+)h(?P<m>\d+)m$")


# Sample: 1,73T   9,02%   (a zpool run under a locale with a decimal comma)
_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")


def decimal_points(lines: list[str]) -> list[str]:
    """`lines` with decimal commas made points ("resilvered 1,73T" -> "1.73T"): OpenZFS
    before 2.3 prints sizes and percentages in the user's locale. Its sizes never group
    thousands, and no other comma in a scan line sits between two digits."""
    return [_DECIMAL_COMMA.sub(".", line) for line in lines]


def numbered(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its newline), tabs expanded to 8 columns."""
    for number, line in enumerate(text.splitlines(), start=1):
        yield number, line.expandtabs(8).rstrip()


def parse_size(text: str) -> int:
    """Bytes from "1.63T" (ZFS, binary), "404.88MiB" (btrfs), "2.00MB" (btrfs --si), "123".

    Raises:
        ValueError: not a size.
    """
    match = _SIZE.match(text.strip())
    if match is None:
        raise ValueError(f"not a size: {text!r}")
    number = float(match["num"])
    unit = match["unit"]
    if unit.upper() in _SI_UNITS and "i" not in unit:
        return round(number * _SI_UNITS[unit.upper()])
    return round(number * _BINARY_UNITS[unit.replace("i", "").replace("B", "")])


def parse_count(text: str) -> int:
    """An error counter: "0", "12", or ZFS's rounded "4.11K" (1024-based).

    Raises:
        ValueError: not a count.
    """
    return parse_size(text)


def parse_duration(text: str) -> int:
    """Seconds from "00:06:53", "1 days 02:03:04", "0:00:14" or the old "15h2m".

    Raises:
        ValueError: not a duration.
    """
    text = text.strip()
    match = _HMS.match(text)
    if match is not None:
        days = int(match["days"] or 0)
        return ((days * 24 + int(match["h"])) * 60 + int(match["m"])) * 60 + int(match["s"])
    match = _HM.match(text)
    if match is not None:
        return (int(match["h"]) * 60 + int(match["m"])) * 60
    raise ValueError(f"not a duration: {text!r}")


def parse_ctime(text: str) -> float:
    """Unix time from a ctime()/%c date in local time: "Sat Apr  9 21:18:09 2022".

    Raises:
        ValueError: not such a date.
    """
    return time.mktime(time.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y"))


def parse_day_month(text: str, now: float) -> float:
    """Unix time from btrfs replace's "21.Nov 08:22:30" (no year): the latest such moment that
    is not after `now` (plus a day of slack for clock skew).

    Raises:
        ValueError: not such a date.
    """
    parsed = time.strptime(" ".join(text.split()), "%d.%b %H:%M:%S")
    year = time.localtime(now).tm_year
    for candidate in (year, year - 1):
        stamp = time.mktime((candidate, *parsed[1:6], 0, 0, -1))
        if stamp <= now + 86400:
            return stamp
    return stamp


def percent_of(total: int | None, percent: float | None) -> int | None:
    """`percent` % of `total`, rounded; None when either is unknown."""
    if total is None or percent is None:
        return None
    return round(total * percent / 100.0)


def note(what: str, reason: str, line_no: int | None = None, line: str = "") -> str:
    """One line for something a parser did not understand: "/proc/mdstat line 3: unexpected
    line: 'Event: 8'" (the text a `ParseError` would carry)."""
    return str(ParseError(what, reason, line_no, line))
