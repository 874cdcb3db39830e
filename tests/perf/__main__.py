"""`make perf`: nastui's interface and CLI measured against baselines in the same run.

Prints figures, the issue's targets and ratios; asserts nothing (timings belong here, never in
the test suite). PERF_SECONDS shortens the steady-state window (default 60, as the targets say).
"""

from __future__ import annotations

import os
import statistics
import sys

from tests.conftest import REPO
from tests.perf import (
    bench_perf,
    drives_perf,
    fand_perf,
    fleet_perf,
    guard_perf,
    screens_perf,
    startup_perf,
)
from tests.perf.grid_update import measure, summary
from tests.perf.harness import (
    PtyFigures,
    ptybytes,
    steady_cpu_percent,
    time_to_full_frame,
    wall_ratios,
)

WINDOW = float(os.environ.get("PERF_SECONDS", "60"))
SHORT = 6.0
PY = sys.executable
NASTUI = [PY, "-m", "nastui"]


def _row(label: str, value: str, target: str = "", note: str = "") -> None:
    print(f"  {label:<44} {value:>14}  {target:<14} {note}")


def _pty_pair(cmd: list[str], term: str = "xterm-256color") -> tuple[PtyFigures, PtyFigures]:
    return ptybytes(cmd, seconds=SHORT, term=term), ptybytes(cmd, seconds=WINDOW, term=term)


def tui() -> None:
    """Bytes, CPU and time to first frame in an 80x24 pty."""
    print(f"TUI in an 80x24 pty (ptybytes, {WINDOW:.0f} s window)")
    naive_short, naive = _pty_pair([PY, "-m", "tests.perf.naive_grid"])
    demo_short, demo = _pty_pair([*NASTUI, "--demo"])
    vt = ptybytes([*NASTUI, "--demo"], seconds=WINDOW, term="vt100")
    churn_short, churn = _pty_pair([PY, "-m", "tests.perf.churn_app"])
    frame = statistics.median(time_to_full_frame([*NASTUI, "--demo"]) for _ in range(5))
    naive_frame = statistics.median(
        time_to_full_frame([PY, "-m", "tests.perf.naive_grid"]) for _ in range(3)
    )
    demo_cpu, naive_cpu = (
        steady_cpu_percent(demo_short, demo),
        steady_cpu_percent(naive_short, naive),
    )
    ratio = naive.first_frame_bytes / max(1, demo.first_frame_bytes)
    _row("baseline: naive 24-cell Textual grid, first frame", f"{naive.first_frame_bytes} B")
    _row(
        "nastui --demo (healthy-24-bay), first frame",
        f"{demo.first_frame_bytes} B",
        "<= 8192 B",
        f"{ratio:.1f}x smaller",
    )
    _row("nastui --demo, TERM=vt100 (ASCII), first frame", f"{vt.first_frame_bytes} B", "<= 8192 B")
    _row("baseline steady state", f"{naive.steady_bytes_per_s:.0f} B/s")
    _row("nastui steady state, healthy-24-bay", f"{demo.steady_bytes_per_s:.0f} B/s", "<= 300 B/s")
    _row("nastui steady state, TERM=vt100", f"{vt.steady_bytes_per_s:.0f} B/s", "<= 300 B/s")
    _row(
        "nastui worst case: every bay's temp each second",
        f"{churn.steady_bytes_per_s:.0f} B/s",
        "<= 4096 B/s",
    )
    _row("baseline CPU, steady (one core)", f"{naive_cpu:.2f} %")
    _row(
        "nastui CPU, steady (one core)",
        f"{demo_cpu:.2f} %",
        "<= 1.5 %",
        f"ptybytes whole run: {demo.cpu_pct:.1f} %",
    )
    _row("nastui CPU, worst case", f"{steady_cpu_percent(churn_short, churn):.2f} %")
    _row(
        "time to first full frame (median of 5)",
        f"{frame:.2f} s",
        "<= 1.5 s",
        f"baseline {naive_frame:.2f} s",
    )
    _row(
        "  at 115200 baud (11,500 B/s), first frame takes",
        f"{demo.first_frame_bytes / 11500:.2f} s",
        "",
        f"baseline {naive.first_frame_bytes / 11500:.2f} s",
    )


def grid() -> None:
    """The 102-bay grid update, in process."""
    ours, naive = measure()
    med, p90, worst = summary(ours)
    base_med, base_p90, base_worst = summary(naive)
    print("102-bay grid, one update with every temperature changed (in process, 120x40)")
    _row(
        "baseline: 102 Static widgets updated",
        f"{base_med:.1f} ms",
        "",
        f"p90 {base_p90:.1f}, max {base_worst:.1f}",
    )
    _row(
        "nastui BayGrid",
        f"{med:.1f} ms",
        "<= 30 ms",
        f"p90 {p90:.1f}, max {worst:.1f}; {base_med / med:.1f}x faster",
    )


def cli() -> None:
    """Headless command latency against a bare interpreter."""
    print("CLI wall time (median of 11, each run alternately with a bare python -c pass)")
    for label, argv in (
        ("nastui bays --demo --json", ["bays", "--demo", "--json"]),
        ("nastui bays --scenario datacenter-102", ["bays", "--scenario", "datacenter-102"]),
    ):
        base, took, _ = wall_ratios([*NASTUI, *argv], [PY, "-c", "pass"], runs=11)
        note = f"{took / base:.1f}x the bare interpreter ({base * 1000:.1f} ms)"
        _row(label, f"{took * 1000:.0f} ms", "", note)


def main() -> int:
    """Run every measurement and print the table."""
    startup_perf.report(_row)
    print()
    cli()
    print()
    drives_perf.report(_row)
    print()
    fleet_perf.report(_row)
    print()
    grid()
    print()
    tui()
    print()
    screens_perf.report(_row)
    print()
    bench_perf.bench()
    print()
    guard_perf.report(_row)
    print()
    fand_perf.main(REPO)
    return 0


if __name__ == "__main__":
    sys.exit(main())
