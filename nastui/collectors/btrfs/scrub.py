"""`btrfs scrub status` in all its shapes, btrfs-progs 4.0 to 6.x, as one `BtrfsScrub` (pure).

Formats by version (from btrfs-progs' cmds-scrub.c / cmds/scrub.c at each tag):

- 5.2+: "UUID:", "Scrub started:" (or "Scrub resumed:"), "Status: running|finished|aborted|
  interrupted", "Duration:", while running "Time left:", "ETA:", "Total to scrub:", "Bytes
  scrubbed: X" (5.2-5.9) or "Bytes scrubbed: X  (9.53%)" (5.10+), then "Rate: X/s" (6.x adds
  "(limit ...)"), "Error summary: csum=10688" then "Corrected:", "Uncorrectable:",
  "Unverified:"; `--raw` prints the same with exact byte counts.
- raw counters (`-R`): the header lines, then "\tdata_bytes_scrubbed: N" and the rest.
- 4.0-5.1: "scrub status for UUID", "\tscrub started at DATE and finished after 00:00:16" (4.0:
  "after 58380 seconds"; or ", running for", ", interrupted after ..., not running", "and was
  aborted after"), "\ttotal bytes scrubbed: 2.72GiB with 0 errors", then error details.
- `-d`: one block per device, "Scrub device /dev/sda (id 1) history" (4.x: "scrub device ..."),
  added up here into one record for the filesystem.
- "no stats available": never scrubbed (or stats not yet written, in the first 5 s of one).

Degrade, never drop: a line no version prints (or a value that does not read) becomes a note
naming it; everything else on the page is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nastui.collectors.pools_parse import (
    note,
    numbered,
    parse_ctime,
    parse_duration,
    parse_size,
)

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
# Sample: scrub started at Tue Mar 10 09:00:01 2015 and finished after 58380 seconds
_LEGACY_STARTED = re.compile(
    r"^scrub (?:started|resumed) at (?P<when>.+?)(?: and (?P<fin>finished|was aborted) after|"
    r", (?P<run>running|interrupted) (?:for|after)) (?P<took>\S+)(?P<secs> seconds)?"
    r"(?:, not running)?$"
)
# Sample: Scrub device /dev/sds1 (id 25) history       scrub device /dev/sdb (id 2) done
_DEVICE = re.compile(r"^[Ss]crub device (?P<path>.+) \(id (?P<devid>\d+)\)(?: (?P<what>.*))?$")
# Sample: Starting scrub on devid 1   scrub done for 44cb181f-faf6-48c2-a462-904cfe493576
# Sample: scrub started on /mnt, fsid 68738030-40f8-463a-a763-b9afd99daee9 (pid=5820)
_START_OUTPUT = re.compile(
    r"^(?:Starting scrub on devid \d+|scrub (?:done|started|resumed|canceled) (?:for|on) .*)$"
)
# Sample: ERROR: there are 1 uncorrectable errors    WARNING: errors detected during scrubbing
# Sample: *** WARNING: memory allocation failed while scrubbing. results may be inaccurate
_MESSAGE = re.compile(r"^(?:\*\*\* )?(?:ERROR|WARNING): ")
# Sample: total bytes scrubbed: 2.72GiB with 0 errors
_LEGACY_TOTAL = re.compile(r"^total bytes scrubbed: (?P<done>\S+) with (?P<errors>\d+) errors$")
# Sample: error details: read=1 csum=2
_DETAILS = re.compile(r"^error details:(?P<items>(?: \w+=\d+)+)$")
# Sample: corrected errors: 3, uncorrectable errors: 0, unverified errors: 0
_LEGACY_CORRECTED = re.compile(
    r"^corrected errors: (?P<c>\d+), uncorrectable errors: (?P<u>\d+), "
    r"unverified errors: (?P<v>\d+)$"
)
# Sample: 404.88MiB  (9.53%)     26.86GiB    (5.2-5.9 print no percentage)
_SCRUBBED = re.compile(r"^(?P<done>\S+)(?:\s+\((?P<pct>[\d.]+)%\))?$")
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
        total_errors: the error total of the 4.x "total bytes scrubbed: X with N errors".
        notes: lines that were not understood, one each, naming the line.
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
    total_errors: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int | None:
        """read + csum + verify + super errors, as btrfs-progs totals them."""
        if not any(k in self.counters for k in ERROR_COUNTERS):
            return self.total_errors
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
        scrub.bytes_done = parse_size(m["done"])
        scrub.percent = float(m["pct"]) if m["pct"] else None
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
        scrub.started_at = parse_ctime(m["when"])
        scrub.duration_s = int(m["took"]) if m["secs"] else parse_duration(m["took"])
        how = m["fin"] or m["run"]
        scrub.state = {"was aborted": "canceled"}.get(how, how)
    elif (m := _LEGACY_TOTAL.match(line)) is not None:
        scrub.bytes_done, scrub.total_errors = parse_size(m["done"]), int(m["errors"])
    elif (m := _DETAILS.match(line)) is not None:
        for item in _ITEMS.finditer(m["items"]):
            scrub.counters[f"{item['name']}_errors"] = int(item["value"])
    elif (m := _LEGACY_CORRECTED.match(line)) is not None:
        scrub.counters["corrected_errors"] = int(m["c"])
        scrub.counters["uncorrectable_errors"] = int(m["u"])
        scrub.counters["unverified_errors"] = int(m["v"])
    else:
        return (
            _LEGACY_HEAD.match(line) is not None
            or line == "no stats available"
            or _START_OUTPUT.match(line) is not None
        )
    return True


def _line(scrub: BtrfsScrub, line: str) -> bool:
    if (counter := _COUNTER.match(line)) is not None:
        scrub.counters[counter["key"]] = int(counter["value"])
        return True
    if (fld := _FIELD.match(line)) is not None and _field(scrub, fld["key"], fld["value"].strip()):
        return True
    return _legacy(scrub, line)


_STATE_ORDER = ("running", "interrupted", "canceled", "finished", "never")


def _sum(values: list[int | None]) -> int | None:
    return sum(v for v in values if v is not None) if any(v is not None for v in values) else None


def _combine(devices: list[BtrfsScrub]) -> BtrfsScrub:
    """One filesystem's record from `-d`'s per-device blocks: the busiest state, the earliest
    start, the longest duration and time left, and sizes, rates and counters added up."""
    total = BtrfsScrub(state=min((d.state for d in devices), key=_STATE_ORDER.index))
    starts = [d.started_at for d in devices if d.started_at is not None]
    total.started_at = min(starts) if starts else None
    total.duration_s = max(
        (d.duration_s for d in devices if d.duration_s is not None), default=None
    )
    total.time_left_s = max(
        (d.time_left_s for d in devices if d.time_left_s is not None), default=None
    )
    total.bytes_total = _sum([d.bytes_total for d in devices])
    total.bytes_done = _sum([d.bytes_done for d in devices])
    rates = [d.rate for d in devices if d.rate is not None]
    total.rate = sum(rates) if rates else None
    for device in devices:
        for key, value in device.counters.items():
            total.counters[key] = total.counters.get(key, 0) + value
    total.total_errors = _sum([d.total_errors for d in devices])
    if total.bytes_total and total.bytes_done is not None:
        total.percent = 100.0 * total.bytes_done / total.bytes_total
    return total


# Sample: scrub started at Mon Aug  7 15:29:52 2017 and was aborted    (the rest wrapped)
_LEGACY_OPENING = re.compile(r"^scrub (?:started|resumed) at ")


def _unwrapped(text: str) -> list[tuple[int, str]]:
    """The numbered lines with a legacy "scrub started at ... after 00:04:56" line that a
    mail client or a web page broke in two (or three) joined again."""
    lines = list(numbered(text))
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        line_no, raw = lines[i]
        used = 0
        if _LEGACY_OPENING.match(raw.strip()) and not _LEGACY_STARTED.match(raw.strip()):
            joined = raw.strip()
            for extra in range(1, 3):
                if i + extra >= len(lines) or not lines[i + extra][1].strip():
                    break
                joined = f"{joined} {lines[i + extra][1].strip()}"
                if _LEGACY_STARTED.match(joined):
                    raw, used = joined, extra
                    break
        out.append((line_no, raw))
        i += 1 + used
    return out


def _parse_lines(text: str) -> tuple[BtrfsScrub, list[BtrfsScrub], list[str]]:
    """The filesystem-wide record, the `-d` per-device ones, and the notes."""
    whole, devices, notes = BtrfsScrub(), [], []
    for line_no, raw in _unwrapped(text):
        line = raw.strip()
        if not line:
            continue
        if _DEVICE.match(line) is not None:
            devices.append(BtrfsScrub())
            continue
        if _MESSAGE.match(line):
            notes.append(note(WHAT, "message from btrfs-progs", line_no, raw))
            continue
        target = devices[-1] if devices else whole
        try:
            if not _line(target, line):
                notes.append(note(WHAT, "unexpected line", line_no, raw))
        except (ValueError, KeyError) as exc:
            notes.append(note(WHAT, f"unreadable value ({exc})", line_no, raw))
    return whole, devices, notes


def parse_scrub_status(text: str) -> BtrfsScrub:
    """One filesystem's `btrfs scrub status [-d] [-R] [--raw]` (every btrfs-progs format since
    4.0); lines it does not know are in `notes`. Never raises."""
    whole, devices, notes = _parse_lines(text)
    scrub = _combine(devices) if devices and whole.state == "never" else whole
    scrub.notes = notes
    if "data_bytes_scrubbed" in scrub.counters:
        scrub.bytes_done = scrub.counters["data_bytes_scrubbed"] + scrub.counters.get(
            "tree_bytes_scrubbed", 0
        )
    if scrub.percent is None and scrub.bytes_total and scrub.bytes_done is not None:
        scrub.percent = 100.0 * scrub.bytes_done / scrub.bytes_total
    return scrub
