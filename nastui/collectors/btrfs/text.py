"""btrfs-progs text: `filesystem show`, `device stats` and `replace status -1` (pure); `scrub
status` in its three shapes is `nastui.collectors.btrfs.scrub`. btrfs-progs 6.2 has no JSON for
any of these. `filesystem show` and `device stats` degrade: a line they do not know is a note
(on the filesystem it appears in, or on the report) and the rest is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nastui.collectors.pools_parse import (
    note,
    numbered,
    parse_day_month,
    parse_size,
)
from nastui.model.errors import ParseError

# Sample: Label: 'rock-pool'  uuid: 924d9d64-4943-4eac-a52e-1918e963a34f
# Sample: Label: none  uuid: 924d9d64-4943-4eac-a52e-1918e963a34f
_LABEL = re.compile(r"^Label: (?:'(?P<label>.*)'|none)\s+uuid: (?P<uuid>[0-9a-f-]{36})$")
# Sample: Total devices 2 FS bytes used 409600
_TOTAL = re.compile(r"^Total devices (?P<n>\d+) FS bytes used (?P<used>\S+)$")
# Sample: devid    1 size 5368709120 used 2155872256 path /dev/vde
# Sample: devid    1 size 0 used 0 path  MISSING
# Sample: devid    1 size 0 used 0 path <missing disk> MISSING
# Sample: devid    2 size 5.00GiB used 848.00MiB path /dev/vde	*** Some devices missing
_DEVID = re.compile(
    r"^devid\s+(?P<devid>\d+) size (?P<size>\S+) used (?P<used>\S+) path\s*(?P<path>.*?)"
    r"(?P<missing>\s*\bMISSING)?(?P<some>\s+\*\*\* Some devices missing)?$"
)
_SOME_MISSING = "*** Some devices missing"
# Sample: warning, device 2 is missing
_WARNING = re.compile(r"^warning, device (?P<devid>\d+) is missing$")
# Sample: bytenr mismatch, want=20987904, have=0       ERROR: cannot read chunk root
_NOISE = re.compile(r"^(?:bytenr mismatch, |ERROR: |WARNING: |NOTE: )")
# Sample: [/dev/vdb].corruption_errs  5
_STAT = re.compile(r"^\[(?P<path>[^\]]+)\]\.(?P<name>\w+)\s+(?P<value>\d+)$")


@dataclass(frozen=True, slots=True)
class BtrfsDevice:
    """A device line of `btrfs filesystem show`.

    Attributes:
        devid: btrfs device id (0 is the target of a running replace).
        size, used: bytes on the device, and bytes allocated to chunks on it.
        path: the device path; None when missing.
        missing: the tool marked it MISSING (or it is a placeholder for a missing devid).
    """

    devid: int | None
    size: int | None
    used: int | None
    path: str | None
    missing: bool = False


@dataclass(slots=True)
class BtrfsFs:
    """One filesystem of `btrfs filesystem show`."""

    label: str | None
    uuid: str
    total_devices: int | None = None
    bytes_used: int | None = None
    devices: list[BtrfsDevice] = field(default_factory=list)
    some_missing: bool = False
    warned_missing: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def missing_count(self) -> int:
        """Devices the filesystem should have and does not (MISSING lines or absent ones)."""
        present = sum(1 for d in self.devices if not d.missing and d.devid != 0)
        listed_missing = sum(1 for d in self.devices if d.missing)
        absent = max(0, (self.total_devices or 0) - present - listed_missing)
        return listed_missing + (absent if self.some_missing else 0)


def _devid_line(fs: BtrfsFs, match: re.Match[str]) -> None:
    path = match["path"] or None
    if path is not None and path.startswith("<"):  # "<missing disk>"
        path = None
    fs.devices.append(
        BtrfsDevice(
            int(match["devid"]),
            parse_size(match["size"]),
            parse_size(match["used"]),
            path,
            bool(match["missing"]),
        )
    )
    if match["some"]:
        fs.some_missing = True


def _fs_line(fs: BtrfsFs, line: str) -> bool:
    """Apply a line inside a filesystem block; False if it is not one of those lines."""
    if (total := _TOTAL.match(line)) is not None:
        fs.total_devices, fs.bytes_used = int(total["n"]), parse_size(total["used"])
    elif (devid := _DEVID.match(line)) is not None:
        _devid_line(fs, devid)
    elif line == _SOME_MISSING:
        fs.some_missing = True
    else:
        return False
    return True


def parse_filesystem_show_report(text: str) -> tuple[list[BtrfsFs], list[str]]:
    """Every filesystem of `btrfs filesystem show [--raw]`, with "warning, device N is missing"
    lines (stderr, when captured together) attached to the filesystem that follows them, and
    notes for lines before any filesystem (lines inside one it does not know are its `notes`).
    Never raises."""
    found: list[BtrfsFs] = []
    warned: list[int] = []
    stray: list[str] = []
    for line_no, raw in numbered(text):
        line = raw.strip()
        if not line or _NOISE.match(line):
            continue
        try:
            if (label := _LABEL.match(line)) is not None:
                found.append(BtrfsFs(label["label"], label["uuid"], warned_missing=warned))
                warned = []
            elif (warning := _WARNING.match(line)) is not None:
                warned.append(int(warning["devid"]))
            elif not found or not _fs_line(found[-1], line):
                (found[-1].notes if found else stray).append(
                    note("btrfs filesystem show", "unexpected line", line_no, raw)
                )
        except ValueError as exc:
            (found[-1].notes if found else stray).append(
                note("btrfs filesystem show", str(exc), line_no, raw)
            )
    return found, stray


def parse_filesystem_show(text: str) -> list[BtrfsFs]:
    """Every filesystem of `btrfs filesystem show` (see `parse_filesystem_show_report`)."""
    return parse_filesystem_show_report(text)[0]


def parse_device_stats_report(text: str) -> tuple[dict[str, dict[str, int]], list[str]]:
    """`btrfs device stats`: device path -> counter name -> value, and a note per line that is
    not "[path].counter value". Never raises."""
    stats: dict[str, dict[str, int]] = {}
    notes: list[str] = []
    for line_no, raw in numbered(text):
        if not raw.strip():
            continue
        match = _STAT.match(raw.strip())
        if match is None:
            notes.append(note("btrfs device stats", "unexpected line", line_no, raw))
            continue
        stats.setdefault(match["path"], {})[match["name"]] = int(match["value"])
    return stats, notes


def parse_device_stats(text: str) -> dict[str, dict[str, int]]:
    """`btrfs device stats` (see `parse_device_stats_report`)."""
    return parse_device_stats_report(text)[0]


@dataclass(frozen=True, slots=True)
class BtrfsReplace:
    """`btrfs replace status -1`.

    Attributes:
        state: "never", "running", "finished", "canceled" or "suspended".
        percent: progress, while running (and where it stopped).
        started_at, stopped_at: Unix times, when printed.
        write_errors, read_errors: write errors and uncorrectable read errors.
    """

    state: str
    percent: float | None = None
    started_at: float | None = None
    stopped_at: float | None = None
    write_errors: int | None = None
    read_errors: int | None = None


# Sample: 12.9% done, 0 write errs, 0 uncorr. read errs
_REPLACE_RUNNING = re.compile(
    r"^(?P<pct>[\d.]+)% done, (?P<w>\d+) write errs, (?P<r>\d+) uncorr\. read errs$"
)
# Sample: Started on 21.Nov 08:22:30, finished on 21.Nov 08:22:45, 0 write errs, 0 uncorr. read errs
# Sample: Started on 21.Nov 08:22:30, canceled on 21.Nov 08:22:45 at 20.8%, 0 write errs, ...
_REPLACE_ENDED = re.compile(
    r"^Started on (?P<start>.+?), (?P<how>finished|canceled|suspended) on (?P<stop>.+?)"
    r"(?: at (?P<pct>[\d.]+)%)?, (?P<w>\d+) write errs, (?P<r>\d+) uncorr\. read errs$"
)


def parse_replace_status(text: str, now: float) -> BtrfsReplace:
    """`btrfs replace status -1 MNT`; `now` dates its year-less "21.Nov 08:22:30" stamps.

    Raises:
        ParseError: anything but the four shapes btrfs-progs prints.
    """
    line = text.strip().splitlines()[-1].strip() if text.strip() else ""
    if line == "Never started":
        return BtrfsReplace("never")
    if (m := _REPLACE_RUNNING.match(line)) is not None:
        return BtrfsReplace("running", float(m["pct"]), None, None, int(m["w"]), int(m["r"]))
    if (m := _REPLACE_ENDED.match(line)) is not None:
        try:
            start, stop = parse_day_month(m["start"], now), parse_day_month(m["stop"], now)
        except ValueError as exc:
            raise ParseError("btrfs replace status", str(exc), line=line) from exc
        pct = float(m["pct"]) if m["pct"] else (100.0 if m["how"] == "finished" else None)
        return BtrfsReplace(m["how"], pct, start, stop, int(m["w"]), int(m["r"]))
    raise ParseError("btrfs replace status", "unexpected output", line=line or "(empty)")
