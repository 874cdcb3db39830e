"""The bench guard's costs: `python -m tests.perf.guard_perf` (or `make perf`, which calls
`report`). Figures only, never assertions.

1. The custom fio job checker against the number of sections: the time must grow in proportion
   (the checker before issue 20 compared each section with every earlier one: 10,000 sections
   took 2.5 s on the development machine, 6.1 s in the issue; fio runs at most 4096 jobs, so
   a longer job is refused where it passes 4096).
2. One look at a device's footprint on this machine (every task's descriptors, directories and
   mappings, sysfs, mountinfo). Real root only (it reads every process).
3. The watch itself: a loop device held O_EXCL as a run holds it, `LocalBenchHost.uses_now`
   every `WATCH_S` for a few seconds as the runner's watch calls it; its share of a core is the
   CPU time the process spent (the look's thread included) over the wall time. The baseline,
   measured in the same run: the bare walk a look cannot do without (every task's descriptor
   directory listed and each descriptor stat'ed, nothing else); a look's cost is printed as a
   ratio to it, which holds across loads and machines better than milliseconds do. Measured
   here (2 cores, 73-83 processes of which about 60 kernel threads, load 1.4-2.0), this
   script run against main and then against the tree that cut the watch's cost, twice: the
   watch 8.5-8.8 % of a core -> 2.9 %, a look in the watch 42-44 ms -> 14.5 ms of CPU
   (45-55x the walk -> 12-13x; the walk 0.8-1.2 ms). Busier (85-95 processes, load 2-4)
   the watch took 3.3-3.6 % against main's 9.4-10.8 %. Naming the processes /proc refuses
   even to root (`UnseenProcess`: noted where the refusal ends the reading, named from the
   stat already read) left it as it was: seven runs each, alternated, 79-84 processes, load
   0.8-1.6: the watch 2.5-3.6 % of a core (median 3.1 %) against 2.7-3.4 % (3.0 %), a look
   in the watch 11.4-15.1x the walk (12.2x) against 10.9-14.9x (12.3x); strace of one look,
   83 processes: 2291 system calls against 2407 (labels no longer read /proc/PID/comm).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from nastui.bench.fiojob import check_custom_job
from nastui.bench.guard import ExclusiveHold
from nastui.bench.runner import watch_footprint
from nastui.collectors.blockstack import inspect
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.collectors.procuse import devno
from nastui.model import BenchTarget
from tests.blocklab import attached, image

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


def bare_walk() -> int:
    """The baseline: every process's descriptor directory listed and each descriptor stat'ed
    once, nothing built; how many were stat'ed."""
    count = 0
    for pid in os.listdir("/proc"):  # noqa: PTH208
        if not pid.isdigit():
            continue
        try:
            with os.scandir(f"/proc/{pid}/fd") as found:
                for entry in found:
                    try:
                        entry.stat()
                    except PermissionError:
                        break  # refused for the whole process, as the scan knows
                    except OSError:
                        continue
                    count += 1
        except OSError:
            continue
    return count


def cpu_ms(work: Callable[[], object], repeat: int = 20) -> float:
    """Median CPU milliseconds of `work` (this process, every thread)."""
    work()
    times = []
    for _ in range(repeat):
        began = time.process_time()
        work()
        times.append(time.process_time() - began)
    return statistics.median(times) * 1000


class _Counting(LocalBenchHost):
    """The machine's bench host, counting the watch's looks."""

    looks = 0

    async def uses_now(self, target: BenchTarget) -> tuple[str, ...]:
        self.looks += 1
        return await super().uses_now(target)


async def _watching(target: BenchTarget, seconds: float) -> tuple[int, float, float]:
    """The runner's watch (`watch_footprint`) on `target` for `seconds`: (looks, CPU s,
    wall s)."""
    host, stop = _Counting(), asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, stop.set)
    cpu, wall = time.process_time(), time.monotonic()
    await watch_footprint(host, target, stop)
    return host.looks, time.process_time() - cpu, time.monotonic() - wall


def watch_figures(seconds: float = 10.0) -> tuple[int, float, float, float, float]:
    """The watch on a held 64 MiB loop device: (looks, share of a core, CPU ms a look, the
    bare walk's CPU ms, CPU ms of one look taken alone)."""
    with tempfile.TemporaryDirectory() as tmp, attached(str(image(Path(tmp) / "t.img", 64))) as dev:
        target = asyncio.run(inspect_target(dev))
        number = target.devno or ""
        with ExclusiveHold(dev, number):
            looks, cpu, wall = asyncio.run(_watching(target, seconds))
            alone = cpu_ms(lambda: inspect(Path("/"), number, real=True))
        walk = cpu_ms(bare_walk)
    return looks, cpu / wall, cpu / looks * 1000, walk, alone


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
    note = "the root filesystem's disk: every file on it counts"
    row(f"footprint look, {processes} processes", f"{median * 1000:.0f} ms", "< 500 ms", note)
    row(
        "footprint look, worst of 10",
        f"{worst * 1000:.0f} ms",
        "",
        f"load {os.getloadavg()[0]:.1f}",
    )
    try:
        looks, watch_share, per_look, walk, alone = watch_figures()
    except Exception as exc:  # no losetup, no loop module: say so, measure the rest
        row("the watch on a loop device", "not measured", "", str(exc))
        return
    row(f"the watch, {looks} looks in 10 s", f"{watch_share * 100:.1f} % of a core", "< 3 %")
    row("  CPU a look (in the watch)", f"{per_look:.1f} ms", "", f"{per_look / walk:.1f}x the walk")
    row("  CPU a look (alone)", f"{alone:.1f} ms", "", f"{alone / walk:.1f}x the walk")
    row("  baseline: the bare walk of every descriptor", f"{walk:.1f} ms", "", "in the same run")


def _print_row(label: str, value: str, target: str = "", note: str = "") -> None:
    print(f"  {label:<44} {value:>14}  {target:<14} {note}")


if __name__ == "__main__":
    report(_print_row)
