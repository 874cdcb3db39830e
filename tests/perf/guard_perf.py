"""The bench guard's costs: `python -m tests.perf.guard_perf` (or `make perf`, which calls
`report`). Figures only, never assertions.

1. The custom fio job checker against the number of sections: the time must grow in proportion
   (the checker before issue 20 compared each section with every earlier one: 10,000 sections
   took 2.5 s on the development machine, 6.1 s in the issue; fio runs at most 4096 jobs, so
   a longer job is refused where it passes 4096).
2. One look at a device's footprint on this machine (every task's descriptors, directories and
   mappings, sysfs, mountinfo): the watch starts one every half second while a run writes, so
   this is also its share of a core. Real root only (it reads every process).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from nastui.bench.fiojob import check_custom_job
from nastui.collectors.blockstack import inspect
from nastui.collectors.procuse import devno

Row = Callable[..., None]
SECTIONS = (1000, 2000, 4096, 10000)


def job(sections: int) -> str:
    """A job file of `sections` sections, each a small random write."""
    return "".join(f"[j{i}]\nrw=randwrite\nbs=4k\nsize=1m\n" for i in range(sections))


def checker_seconds(sections: int, repeat: int = 5) -> tuple[float, str]:
    """The checker's median time on a job of `sections` sections, and its verdict."""
    text, times, verdict = job(sections), [], "accepted"
    for _ in range(repeat):
        began = time.perf_counter()
        try:
            check_custom_job(text)
        except ValueError as exc:
            verdict = f"refused: {exc}"
        times.append(time.perf_counter() - began)
    return statistics.median(times), verdict


def look_seconds(repeat: int = 10) -> tuple[float, float, int]:
    """Median and worst time of one footprint look at the root filesystem's device, and how
    many processes were looked at."""
    number = devno(Path("/").stat().st_dev)
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        inspect(Path("/"), number, real=True)
        times.append(time.perf_counter() - began)
    processes = sum(1 for p in Path("/proc").iterdir() if p.name.isdigit())
    return statistics.median(times), max(times), processes


def report(row: Row) -> None:
    """Print the figures as rows of the perf table."""
    print("bench guard (tests/perf/guard_perf.py)")
    base = None
    for sections in SECTIONS:
        took, verdict = checker_seconds(sections)
        base = base or took / sections
        note = f"{took / sections / base:.2f}x the per-section time at {SECTIONS[0]}; {verdict}"
        row(f"custom job checker, {sections} sections", f"{took * 1000:.1f} ms", "linear", note)
    if os.geteuid() != 0:
        row("footprint look", "not measured", "", "needs root (reads every process)")
        return
    median, worst, processes = look_seconds()
    share = f"{min(median / 0.5, 1.0) * 100:.0f} % of a core while a run writes"
    row(f"footprint look, {processes} processes", f"{median * 1000:.0f} ms", "< 500 ms", share)
    row(
        "footprint look, worst of 10",
        f"{worst * 1000:.0f} ms",
        "",
        f"load {os.getloadavg()[0]:.1f}",
    )


def _print_row(label: str, value: str, target: str = "", note: str = "") -> None:
    print(f"  {label:<44} {value:>14}  {target:<14} {note}")


if __name__ == "__main__":
    report(_print_row)
