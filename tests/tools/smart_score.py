"""Score nastui's SMART identity and verdicts on a folder of real smartctl text reports.

    .venv/bin/python -m tests.tools.smart_score tests/fixtures/smartctl/heldout [--misses N]
        [--strip-banner | --cut-attributes | --wrapped]

Each report listed in the folder's MANIFEST.tsv goes through `nastui smart explain`'s path
(`parse_capture`, default thresholds) and is compared with `smart_expected.expected`, an
independent reading by smartctl's labels. "Fully right" means model, serial, temperature,
power-on hours and the overall health all match (a report that does not parse is wrong on all).
`--strip-banner` scores the reports as pasted without smartctl's 3-line banner;
`--cut-attributes` cuts every ATA report before its attribute table and counts the verdicts;
`--wrapped` scores them hard-wrapped at 72 columns, as a mail client sends a pasted report, and
`--wrapped-a` with the attribute table first in `smartctl -a`'s wider layout (every row wraps).

Verdict noise: among drives an experienced operator would call healthy (`healthy` below, read
from the text, class from the collection's HDD/SSD/NVMe folder), how many get WARNING or worse,
per class and per reason key. Then, per rule of the issue: how recent self-test read failures
and recent UNC errors are judged. Run it on an older checkout (PYTHONPATH) for "before".
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from nastui.cli.cmd_smart import explained
from nastui.collectors.smart.collector import parse_capture
from nastui.collectors.smart.text import classic_attribute_lines
from nastui.model import Drive, Health, Thresholds
from nastui.model.errors import ParseError
from tests.tools.smart_expected import Expected, expected

FIELDS = ("model", "serial", "temperature", "hours", "health")
RECENT_HOURS = 720  # the default selftest_recent_hours and unc_recent_hours
LIMITS = {"HDD": 55, "SSD": 70, "NVMe": 75}
# Sample: # 1  Extended offline    Completed: read failure       90%     12345         123456
_TEST = re.compile(r"^#\s*\d+\s+(.*?)\s{2,}(.*?)\s{2,}(\d+)%\s+(\d+)")
# Sample: Error 3 [2] occurred at disk power-on lifetime: 12345 hours (514 days + 9 hours)
_ERROR = re.compile(r"^Error \d+ (?:\[\d+\] )?occurred at disk power-on lifetime: (\d+) hours")
# Sample:   5 Reallocated_Sector_Ct   PO--CK   100   100   010    -    0
_ROW = re.compile(r"^\s*(\d{1,3})\s+(\S+)\s+(\S+)\s+(\d+|---)\s+(\d+|---)\s+(\d+|---)\s+(.*)$")
_TABLE = ("SMART Attributes Data Structure", "Vendor Specific SMART Attributes")


@dataclass
class Tally:
    """Everything counted over one folder."""

    total: int = 0
    right: int = 0
    misses: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    healthy: Counter[str] = field(default_factory=Counter)
    warned: Counter[str] = field(default_factory=Counter)
    warn_keys: Counter[str] = field(default_factory=Counter)
    rules: Counter[str] = field(default_factory=Counter)


def actual(drive: Drive) -> dict[str, object]:
    """nastui's five fields, in the expected's types."""
    temp = drive.temperature
    return {
        "model": drive.identity.model,
        "serial": drive.identity.serial,
        "temperature": round(temp.celsius) if temp is not None else None,
        "hours": drive.power_on_hours,
        "health": drive.smart_passed,
    }


def _same(name: str, want: object, got: object, vendor: str | None) -> bool:
    if name == "model" and isinstance(want, str) and isinstance(got, str) and vendor:
        return got in (want, f"{vendor} {want}")
    return want == got


def _age(now: int | None, then: int) -> int:
    return (now or 0) - then


def recent_read_failure(text: str, hours: int | None) -> bool:
    """The newest self-test failed with a read failure within RECENT_HOURS."""
    for line in text.splitlines():
        test = _TEST.match(line)
        if test:
            status = test.group(2).lower()
            return "read failure" in status and _age(hours, int(test.group(4))) <= RECENT_HOURS
    return False


def _any_failed_test(text: str, hours: int | None) -> bool:
    for line in text.splitlines():
        test = _TEST.match(line)
        failed = test is not None and "fail" in test.group(2).lower()
        if test and failed and _age(hours, int(test.group(4))) <= RECENT_HOURS:
            return True
    return False


def recent_unc(text: str, hours: int | None) -> bool:
    """The ATA error log has a UNC entry within RECENT_HOURS."""
    when = None
    for line in text.splitlines():
        error = _ERROR.match(line)
        if error:
            when = int(error.group(1))
        elif when is not None and "Error: " in line and "UNC" in line:
            if _age(hours, when) <= RECENT_HOURS:
                return True
            when = None
    return False


def _attrs(text: str) -> dict[int, tuple[int | None, str, str]]:
    """id -> (normalized value, when failed, raw) from either table layout."""
    table: dict[int, tuple[int | None, str, str]] = {}
    inside = False
    for line in text.splitlines():
        if line.startswith("ID#") and "ATTRIBUTE_NAME" in line:
            inside = True
            continue
        match = _ROW.match(line) if inside else None
        if match is None:
            if inside:
                break
            continue
        rest = match.group(7).split()
        failed, raw = (
            (rest[2], rest[3:]) if match.group(3).startswith("0x") else (rest[0], rest[1:])
        )
        value = int(match.group(4)) if match.group(4).isdigit() else None
        table[int(match.group(1))] = (value, failed, " ".join(raw))
    return table


def healthy(text: str, kind: str, exp: Expected) -> bool:
    """What an experienced operator would dismiss: PASSED, no attribute failing or failed, no
    bad sectors on an HDD, SSD retired blocks with normalized >= 90, no NVMe critical warning
    or media errors, no self-test failure or UNC error in the last RECENT_HOURS, temperature
    within the class's rating (HDD < 55, SSD < 70, NVMe < 75 °C)."""
    if exp.health is not True or _any_failed_test(text, exp.hours) or recent_unc(text, exp.hours):
        return False
    attrs = _attrs(text)
    if any(failed not in ("-", "") for _, failed, _ in attrs.values()):
        return False
    for attr_id in (5, 197, 198) if kind == "HDD" else ():
        raw = attrs.get(attr_id, (None, "-", "0"))[2]
        if next((int(t) for t in raw.split() if t.isdigit()), 0):
            return False
    value = attrs.get(5, (None, "-", "0"))[0]
    if kind == "SSD" and value is not None and value < 90:
        return False
    for label in ("Critical Warning:", "Media and Data Integrity Errors:"):
        line = next((x for x in text.splitlines() if x.startswith(label)), "")
        if line and line.split(":", 1)[1].strip() not in ("0", "0x00"):
            return False
    return exp.temperature is None or exp.temperature < LIMITS[kind]


def mail_wrapped(text: str, width: int = 72) -> str:
    """`text` as a mail client sends it hard-wrapped at `width` columns: a longer line breaks
    at the last space before the limit, the rest going on the next line (words longer than a
    line are not broken)."""
    out: list[str] = []
    for line in text.splitlines():
        rest = line
        while len(rest) > width and " " in rest[1 : width + 1]:
            cut = rest.rindex(" ", 1, width + 1)
            out.append(rest[:cut].rstrip())
            rest = rest[cut:].lstrip()
        out.append(rest)
    return "\n".join(out) + "\n"


def strip_banner(text: str) -> str:
    """The report as pasted without smartctl's banner (its first 3 lines)."""
    lines = text.splitlines()
    return "\n".join(lines[3:] if lines and lines[0].startswith("smartctl ") else lines)


def cut_attributes(text: str) -> str | None:
    """The report cut just before its attribute table (None when it has none)."""
    spots = [text.find(marker) for marker in _TABLE if marker in text]
    return text[: min(spots)] if spots else None


def _identity(t: Tally, name: str, exp: Expected, drive: Drive) -> None:
    want = {f: getattr(exp, f) for f in FIELDS}
    got = actual(drive)
    wrong = [f for f in FIELDS if not _same(f, want[f], got[f], drive.identity.vendor)]
    t.right += not wrong
    for name_ in wrong:
        t.misses[name_] += 1
        t.examples.append(f"{name}: {name_} want {want[name_]!r} got {got[name_]!r}")


def _verdicts(t: Tally, text: str, kind: str, exp: Expected, drive: Drive) -> None:
    worse = drive.verdict.health in (Health.WARNING, Health.CRITICAL)
    if healthy(text, kind, exp):
        t.healthy[kind] += 1
        t.warned[kind] += worse
        for reason in drive.verdict.reasons:
            if worse and reason.health >= Health.WARNING:
                t.warn_keys[f"{kind} {reason.key}"] += 1
    if recent_read_failure(text, exp.hours):
        test = [r.health.name for r in drive.verdict.reasons if r.key == "selftest"]
        t.rules[f"recent self-test read failure: reason {test[0] if test else 'none'}"] += 1
    if recent_unc(text, exp.hours):
        t.rules[f"recent UNC in the error log: drive {drive.verdict.health.name}"] += 1


def score_one(t: Tally, path: Path, name: str, kind: str, mode: str) -> None:
    text = original = path.read_text(encoding="utf-8", errors="replace")
    if mode == "cut":
        cut = cut_attributes(text)
        if cut is None or expected(text).transport != "ata":
            return
        text = cut
    elif mode == "banner":
        text = strip_banner(text)
    elif mode == "wrapped":
        text = mail_wrapped(text)
    elif mode == "wrapped-a":  # as `smartctl -a` prints the table (87+ columns), then wrapped
        text = mail_wrapped("\n".join(classic_attribute_lines(text.splitlines())))
    t.total += 1
    exp = expected(original if mode.startswith("wrapped") else text)
    try:
        drive = explained(parse_capture(text, name), Thresholds(), time.time())
    except ParseError as exc:
        t.misses["parse"] += 1
        t.examples.append(f"{name}: does not parse: {exc}")
        return
    if mode == "cut":
        t.rules[f"cut before the attribute table: {drive.verdict.health.name}"] += 1
        return
    t.rules[f"verdicts ({mode}): {drive.verdict.health.name}"] += 1
    _identity(t, name, exp, drive)
    _verdicts(t, original if mode.startswith("wrapped") else text, kind, exp, drive)


def report(t: Tally, folder: Path, show: int) -> None:
    print(f"{folder}: {t.total} reports")
    if t.right or t.misses:
        print(f"  fully right {t.right} ({100 * t.right / t.total:.2f} %)")
        print(
            "  misses by field: " + (", ".join(f"{k} {v}" for k, v in t.misses.items()) or "none")
        )
    for kind in ("HDD", "SSD", "NVMe") if t.healthy else ():
        n = t.healthy[kind]
        share = 100 * t.warned[kind] / n if n else 0.0
        print(f"  healthy {kind}: {n}, WARNING or worse {t.warned[kind]} ({share:.1f} %)")
    if t.healthy:
        n, w = sum(t.healthy.values()), sum(t.warned.values())
        print(f"  healthy all: {n}, WARNING or worse {w} ({100 * w / n:.1f} %)")
        keys = ", ".join(f"{k} {v}" for k, v in t.warn_keys.most_common())
        print(f"  warning reasons on healthy drives: {keys or 'none'}")
    for rule, count in sorted(t.rules.items()):
        print(f"  {rule}: {count}")
    for line in t.examples[:show]:
        print("  " + line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--misses", type=int, default=0, help="print this many misses")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--strip-banner", action="store_true", help="score without the banner")
    how.add_argument("--cut-attributes", action="store_true", help="cut before the table")
    how.add_argument("--wrapped", action="store_true", help="hard-wrapped at 72 like a mail")
    how.add_argument("--wrapped-a", action="store_true", help="in the -a layout, then wrapped")
    args = parser.parse_args(argv)
    mode = "banner" if args.strip_banner else ("cut" if args.cut_attributes else "whole")
    mode = "wrapped" if args.wrapped else "wrapped-a" if args.wrapped_a else mode
    tally = Tally()
    for line in (args.folder / "MANIFEST.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, source = line.split("\t")
            score_one(tally, args.folder / name, name, source.split("/")[0], mode)
    report(tally, args.folder, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
