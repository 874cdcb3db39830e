"""Score nastui's SMART identity and verdicts on a folder of real smartctl text reports.

    .venv/bin/python -m tests.tools.smart_score tests/fixtures/smartctl/heldout [--misses N]

Each report listed in the folder's MANIFEST.tsv goes through `nastui smart explain`'s path
(`parse_capture`, default thresholds) and is compared with `smart_expected.expected`, an
independent reading by smartctl's labels. "Fully right" means model, serial, temperature,
power-on hours and the overall health all match (a report that does not parse is wrong on all).

Verdict noise: among drives an experienced operator would call healthy (`healthy` below, read
from the text, class from the collection's HDD/SSD/NVMe folder), how many get WARNING or worse,
per class and per reason key.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

from nastui.cli.cmd_smart import explained
from nastui.collectors.smart.collector import parse_capture
from nastui.model import Drive, Health, Thresholds
from nastui.model.errors import ParseError
from tests.tools.smart_expected import Expected, expected

FIELDS = ("model", "serial", "temperature", "hours", "health")
RECENT_HOURS = 1000
# Sample: # 1  Extended offline    Completed: read failure       90%     12345         123456
_TEST = re.compile(r"^#\s*\d+\s+(.*?)\s{2,}(.*?)\s{2,}(\d+)%\s+(\d+)")
# Sample: Error 3 [2] occurred at disk power-on lifetime: 12345 hours (514 days + 9 hours)
_ERROR = re.compile(r"^Error \d+ (?:\[\d+\] )?occurred at disk power-on lifetime: (\d+) hours")
_ROW = re.compile(r"^\s*(\d{1,3})\s+(\S+)\s+(\S+)\s+(\d+|---)\s+(\d+|---)\s+(\d+|---)\s+(.*)$")


def actual(drive: Drive) -> dict[str, object]:
    """nastui's five fields, in the expected's types."""
    ident = drive.identity
    temp = drive.temperature
    return {
        "model": ident.model,
        "serial": ident.serial,
        "temperature": round(temp.celsius) if temp is not None else None,
        "hours": drive.power_on_hours,
        "health": drive.smart_passed,
    }


def _want(exp: Expected) -> dict[str, object]:
    return {f: getattr(exp, f) for f in FIELDS}


def _same(field: str, want: object, got: object, vendor: str | None) -> bool:
    if field == "model" and isinstance(want, str) and isinstance(got, str) and vendor:
        return got in (want, f"{vendor} {want}")
    return want == got


def _recent_problem(text: str, hours: int | None) -> str | None:
    """A self-test failure or UNC error in the last RECENT_HOURS, from the text alone."""
    now = hours or 0
    for line in text.splitlines():
        test = _TEST.match(line)
        failed = test and re.search(r"fail", test.group(2), re.I)
        if test and failed and now - int(test.group(4)) <= RECENT_HOURS:
            return "selftest"
    when = None
    for line in text.splitlines():
        error = _ERROR.match(line)
        if error:
            when = int(error.group(1))
        elif when is not None and "Error: " in line and "UNC" in line and now - when <= 1000:
            return "unc"
    return None


def _attrs(text: str) -> dict[int, list[str]]:
    table: dict[int, list[str]] = {}
    inside = False
    for line in text.splitlines():
        if line.startswith("ID#") and "ATTRIBUTE_NAME" in line:
            inside = True
            continue
        if inside:
            match = _ROW.match(line)
            if not match:
                break
            table[int(match.group(1))] = [*match.groups()[1:6], match.group(7)]
    return table


def healthy(text: str, kind: str, exp: Expected) -> bool:
    """What an experienced operator would dismiss: PASSED, nothing failing or failed, no bad
    sectors on an HDD, SSD retired blocks with normalized >= 90, no NVMe critical warning or
    media errors, no recent self-test failure or UNC error, temperature within the class's
    rating (HDD < 55, SSD < 70, NVMe < 75 °C)."""
    if exp.health is not True or _recent_problem(text, exp.hours):
        return False
    attrs = _attrs(text)
    for row in attrs.values():
        if row[-1].split()[1:2] in (["FAILING_NOW"], ["In_the_past"]) or "FAILING_NOW" in row[-1]:
            return False
    if kind == "HDD":
        for attr_id in (5, 197, 198):
            raw = attrs.get(attr_id, ["", "", "0", "", "", "- 0"])[-1].split()
            value = next((int(t) for t in raw if t.isdigit()), 0)
            if value:
                return False
    if kind == "SSD" and 5 in attrs and attrs[5][2].isdigit() and int(attrs[5][2]) < 90:
        return False
    if kind == "NVMe":
        for label in ("Critical Warning:", "Media and Data Integrity Errors:"):
            line = next((x for x in text.splitlines() if x.startswith(label)), "")
            if line and line.split(":", 1)[1].strip() not in ("0", "0x00"):
                return False
    limit = {"HDD": 55, "SSD": 70, "NVMe": 75}[kind]
    return exp.temperature is None or exp.temperature < limit


def score(folder: Path, show: int) -> int:
    rows = [
        line.split("\t")
        for line in (folder / "MANIFEST.tsv").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    right = 0
    misses: Counter[str] = Counter()
    examples: list[str] = []
    healthy_count: Counter[str] = Counter()
    warned: Counter[str] = Counter()
    warn_keys: Counter[str] = Counter()
    for name, path in rows:
        text = (folder / name).read_text(encoding="utf-8", errors="replace")
        kind = path.split("/")[0]
        exp = expected(text)
        want = _want(exp)
        try:
            drive = explained(parse_capture(text, name), Thresholds(), time.time())
        except ParseError as exc:
            misses["parse"] += 1
            examples.append(f"{name}: does not parse: {exc}")
            continue
        got = actual(drive)
        wrong = [f for f in FIELDS if not _same(f, want[f], got[f], drive.identity.vendor)]
        if not wrong:
            right += 1
        for field in wrong:
            misses[field] += 1
            examples.append(f"{name}: {field} want {want[field]!r} got {got[field]!r}")
        if healthy(text, kind, exp):
            healthy_count[kind] += 1
            if drive.verdict.health in (Health.WARNING, Health.CRITICAL):
                warned[kind] += 1
                for reason in drive.verdict.reasons:
                    if reason.health >= Health.WARNING:
                        warn_keys[f"{kind} {reason.key}"] += 1
    total = len(rows)
    print(f"{folder}: {total} reports, fully right {right} ({100 * right / total:.2f} %)")
    print("  misses by field: " + (", ".join(f"{k} {v}" for k, v in misses.items()) or "none"))
    for kind in ("HDD", "SSD", "NVMe"):
        n = healthy_count[kind]
        share = 100 * warned[kind] / n if n else 0.0
        print(f"  healthy {kind}: {n}, WARNING or worse {warned[kind]} ({share:.1f} %)")
    n, w = sum(healthy_count.values()), sum(warned.values())
    print(f"  healthy all: {n}, WARNING or worse {w} ({100 * w / n if n else 0:.1f} %)")
    print(
        "  warning reasons on healthy drives: "
        + ", ".join(f"{k} {v}" for k, v in warn_keys.most_common())
    )
    for line in examples[:show]:
        print("  " + line)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--misses", type=int, default=0, help="print this many misses")
    args = parser.parse_args(argv)
    return score(args.folder, args.misses)


if __name__ == "__main__":
    sys.exit(main())
