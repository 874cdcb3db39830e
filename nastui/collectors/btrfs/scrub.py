"""`btrfs scrub status` in all its shapes as one `BtrfsScrub` record (pure).

- current (btrfs-progs 5.1+): "UUID:", "Scrub started:", "Status: running|finished|aborted|
  interrupted", "Duration:", "Time left:", "Total to scrub:", "Bytes scrubbed: X  (9.53%)",
  "Rate:", "Error summary: csum=10688" then "Corrected:", "Uncorrectable:", "Unverified:";
  `--raw` prints the same with exact byte counts.
- raw counters (`-R`): the header lines, then "\tdata_bytes_scrubbed: N" and the rest.
- legacy (before 5.1): "scrub status for UUID", "\tscrub started at DATE and finished after
  00:00:16" (or ", running for", ", interrupted after ..., not running", "and was aborted
  after"), "\ttotal bytes scrubbed: 2.72GiB with 0 errors", then error details.
- "no stats available": never scrubbed (or stats not yet written, in the first 5 s of one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nastui.collectors.pools_parse import (
    numbered,
    parse_ctime,
    parse_duration,
    parse_size,
)
from nastui.model.errors import ParseError

WHAT = "btrfs scrub status"
_STATES = {
    "running": "running",
    "finished": "finished",
    "aborted": "canceled",
    "interrupted": "interrupted",
}
ERROR_COUNTERS = ("read_errors", "csum_errors", "verify_errors", "super_errors")

# Sample: Scrub started:    Fri Feb 10 11:16:30 2023
# Sample: Bytes scrubbed:   404.88MiB  (9.53%)
# Sample: Rate:             40.58MiB/s (limit 20.00MiB/s)
_FIELD = re.compile(r"^(?P<key>[A-Z][A-Za-z ]+):\s+(?P<value>.*)$")
# Sample: 	data_bytes_scrubbed: 4384448512
_COUNTER = re.compile(r"^(?P<key>[a-z_]+): (?P<value>\d+)$")
# Sample: scrub status for 8adf7f0b-65ec-4e00-83cc-7f5855201185
_LEGACY_HEAD = re.compile(r"^scrub status for (?P<uuid>[0-9a-f-]{36})$")
# Sample: scrub started at Sun Aug  6 16:39:43 2017 and finished after 00:00:16
# Sample: scrub started at Sun Aug  6 15:08:37 2017, running for 00:00:05
# Sample: scrub started at Sun Aug  6 12:18:39 2017, interrupted after 00:00:09, not running
# Sample: scrub started at Mon Aug  7 15:29:52 2017 and was aborted after 00:04:56
_LEGACY_STARTED = re.compile(
    r"^scrub (?:started|resumed) at (?P<when>.+?)(?: and (?P<fin>finished|was aborted) after|"
    r", (?P<run>running|interrupted) (?:for|after)) (?P<took>\S+)(?:, not running)?$"
)
# Sample: total bytes scrubbed: 2.72GiB with 0 errors
_LEGACY_TOTAL = re.compile(r"^total bytes scrubbed: (?P<done>\S+) with (?P<errors>\d+) errors$")
# Sample: error details: read=1 csum=2
_DETAILS = re.compile(r"^error details:(?P<items>(?: \w+=\d+)+)$")
# Sample: corrected errors: 3, uncorrectable errors: 0, unverified errors: 0
_LEGACY_CORRECTED = re.compile(
    r"^corrected errors: (?P<c>\d+), uncorrectable errors: (?P<u>\d+), "
    r"unverified errors: (?P<v>\d+)$"
)
# Sample: 404.88MiB  (9.53%)
_SCRUBBED = re.compile(r"^(?P<done>\S+)\s+\((?P<pct>[\d.]+)%\)$")
# Sample: 42552524/s (limit 20971520/s)     40.58MiB/s (some device limits set)
_RATE = re.compile(r"^(?P<rate>\S+)/s(?: \(.*\))?$")
# Sample: csum=10688     read=1 super=2
_ITEMS = re.compile(r"(?P<name>\w+)=(?P<value>\d+)")


@dataclass(slots=True)
class BtrfsScrub:
    """What `btrfs scrub status` says.

    Attributes:
        state: "never", "running", "finished", "canceled" or "interrupted".
        started_at: Unix time it started (or was last resumed).
        duration_s: seconds it has run.
        time_left_s: btrfs-progs' estimate, while running.
        bytes_total: "Total to scrub".
        bytes_done: data + tree bytes scrubbed ("Bytes scrubbed", or the raw counters).
        rate: bytes/s as the tool computes it (average since start).
        counters: the raw kernel counters (read_errors, csum_errors, corrected_errors...).
    """

    state: str = "never"
    started_at: float | None = None
    duration_s: float | None = None
    time_left_s: float | None = None
    bytes_total: int | None = None
    bytes_done: int | None = None
    percent: float | None = None
    rate: float | None = None
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> int | None:
        """read + csum + verify + super errors, as btrfs-progs totals them."""
        if not any(k in self.counters for k in ERROR_COUNTERS):
            return None
        return sum(self.counters.get(k, 0) for k in ERROR_COUNTERS)


def _error_summary(scrub: BtrfsScrub, value: str) -> None:
    if value == "no errors found":
        for key in (*ERROR_COUNTERS, "corrected_errors", "uncorrectable_errors"):
            scrub.counters.setdefault(key, 0)
        return
    for item in _ITEMS.finditer(value):
        scrub.counters.setdefault(f"{item['name']}_errors", int(item["value"]))


def _field(scrub: BtrfsScrub, key: str, value: str) -> bool:
    """Apply a "Key:   value" line; False if the key is not one btrfs-progs prints."""
    if key in ("Scrub started", "Scrub resumed"):
        scrub.started_at = parse_ctime(value)
    elif key == "Status":
        scrub.state = _STATES[value]
    elif key == "Duration":
        scrub.duration_s = parse_duration(value)
    elif key == "Time left":
        scrub.time_left_s = parse_duration(value)
    elif key == "Total to scrub":
        scrub.bytes_total = parse_size(value)
    elif key == "Bytes scrubbed" and (m := _SCRUBBED.match(value)) is not None:
        scrub.bytes_done, scrub.percent = parse_size(m["done"]), float(m["pct"])
    elif key == "Rate" and (m := _RATE.match(value)) is not None:
        scrub.rate = float(parse_size(m["rate"]))
    elif key == "Error summary":
        _error_summary(scrub, value)
    elif key in ("Corrected", "Uncorrectable", "Unverified"):
        scrub.counters[f"{key.lower()}_errors"] = int(value)
    else:
        return key in ("UUID", "ETA")
    return True


def _legacy(scrub: BtrfsScrub, line: str) -> bool:
    if (m := _LEGACY_STARTED.match(line)) is not None:
        scrub.started_at, scrub.duration_s = parse_ctime(m["when"]), parse_duration(m["took"])
        how = m["fin"] or m["run"]
        scrub.state = {"was aborted": "canceled"}.get(how, how)
    elif (m := _LEGACY_TOTAL.match(line)) is not None:
        scrub.bytes_done = parse_size(m["done"])
    elif (m := _DETAILS.match(line)) is not None:
        for item in _ITEMS.finditer(m["items"]):
            scrub.counters[f"{item['name']}_errors"] = int(item["value"])
    elif (m := _LEGACY_CORRECTED.match(line)) is not None:
        scrub.counters["corrected_errors"] = int(m["c"])
        scrub.counters["uncorrectable_errors"] = int(m["u"])
        scrub.counters["unverified_errors"] = int(m["v"])
    else:
        return _LEGACY_HEAD.match(line) is not None or line == "no stats available"
    return True


def _line(scrub: BtrfsScrub, line: str) -> bool:
    if (counter := _COUNTER.match(line)) is not None:
        scrub.counters[counter["key"]] = int(counter["value"])
        return True
    if (fld := _FIELD.match(line)) is not None and _field(scrub, fld["key"], fld["value"].strip()):
        return True
    return _legacy(scrub, line)


def parse_scrub_status(text: str) -> BtrfsScrub:
    """One filesystem's `btrfs scrub status [-R] [--raw]` (legacy formats too).

    Raises:
        ParseError: a line no btrfs-progs version prints, naming it.
    """
    scrub = BtrfsScrub()
    for line_no, raw in numbered(text):
        line = raw.strip()
        if not line:
            continue
        try:
            known = _line(scrub, line)
        except (ValueError, KeyError) as exc:
            raise ParseError(WHAT, f"unreadable value ({exc})", line_no, raw) from exc
        if not known:
            raise ParseError(WHAT, "unexpected line", line_no, raw)
    if "data_bytes_scrubbed" in scrub.counters:
        scrub.bytes_done = scrub.counters["data_bytes_scrubbed"] + scrub.counters.get(
            "tree_bytes_scrubbed", 0
        )
    return scrub
