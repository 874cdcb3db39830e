"""The monitoring daemon under a local user's attack on /metrics: the figures of issue 20.

A real daemon on a fake box (`tests.daemonrig`, RLIMIT_NOFILE `FILES`) holds `HELD` half-open
connections to /metrics; a disk is heated meanwhile. Printed: how many connections were taken,
how long the temperature alert took to reach the hook while they were held (or after their
release), the age of latest.json during the attack, whether a scrape was answered during it,
how many of 500 simultaneous scrapes failed (5 s each), and the "Too many open files" lines
and tracebacks in the daemon's log. Asserts nothing.

    python -m tests.perf.daemon_attack [FILES HELD]
    python -m tests.perf.daemon_attack kills [COUNT [SEED]]   (SIGKILLs and restarts)
"""

from __future__ import annotations

import concurrent.futures
import random
import signal
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.daemonrig import HOT_C, TEMP_KEY, DaemonRig, hold, port_of, stop


def _scrape(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            answer.read()
    except OSError:
        return False
    return True


def _alert_after(rig: DaemonRig, since: float, timeout: float) -> float | None:
    rig.wait_for(lambda: TEMP_KEY in {t.key for t in rig.told()}, timeout)
    told = [t.wall for t in rig.told() if t.key == TEMP_KEY]
    return told[0] - since if told else None


def attack(base: Path, files: int, count: int) -> None:
    rig = DaemonRig(base)
    proc = rig.start("--metrics-listen", "127.0.0.1:0", files=files)
    url = rig.metrics_url()
    latest = rig.state / "latest.json"
    rig.wait_for(latest.exists, 60)
    held = hold(port_of(url), count)
    rig.set_temp(HOT_C)
    hot = time.time()
    during = _alert_after(rig, hot, 20)
    age = time.time() - latest.stat().st_mtime
    answered = _scrape(url)
    for sock in held:
        sock.close()
    after = during if during is not None else _alert_after(rig, hot, 60)
    with concurrent.futures.ThreadPoolExecutor(500) as pool:
        failed = list(pool.map(lambda _: _scrape(url), range(500))).count(False)
    stop(proc)
    out = rig.output()
    print(f"  RLIMIT_NOFILE {files}, {len(held)} of {count} connections held")
    shown = f"{during:.2f} s" if during is not None else f"not while held ({after} s after heat)"
    print(f"  temperature alert to the hook during the attack: {shown}")
    print(f"  latest.json age during the attack: {age:.1f} s")
    print(f"  /metrics answered during the attack: {answered}")
    print(f"  500 simultaneous scrapes, failed or timed out (5 s): {failed}")
    print(
        f"  'Too many open files' lines: {out.count('Too many open files')}, "
        f"tracebacks: {out.count('Traceback')}"
    )


def kills(base: Path, count: int = 30, seed: int = 20) -> None:
    """`count` SIGKILLs at random points of a fresh daemon's first cycles, each followed by a
    restart: deliveries and notices told twice, and firing alerts never told."""
    clean = DaemonRig(base / "reference", scenario="failing-drive")
    clean.run("--cycles", "3")
    reference = {(t.host, t.key) for t in clean.told() if t.kind == "firing"}
    rng = random.Random(seed)
    deliveries = notices = lost = worst = 0
    for n in range(count):
        rig = DaemonRig(base / str(n), hook_delay=0.05, scenario="failing-drive")
        proc = rig.start("--cycles", "6")
        time.sleep(rng.uniform(0.4, 3.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        rig.run("--cycles", "3")
        told = sorted(rig.told(), key=lambda t: t.wall)
        seen: set[tuple[str, str, str]] = set()
        again: set[int] = set()
        for row in told:
            ident = (row.host, row.kind, row.key)
            if row.kind == "firing" and ident in seen:
                again.add(row.batch)
                notices += 1
            seen.add(ident)
        deliveries += len(again)
        worst = max(worst, len(again))
        lost += len(reference - {(t.host, t.key) for t in told if t.kind == "firing"})
    print(f"  {count} random SIGKILLs (seed {seed}), each on fresh state, then a restart:")
    print(f"  deliveries repeated: {deliveries} (at most {worst} after one kill)")
    print(f"  notices repeated: {notices}; firing alerts lost: {lost}")


def main() -> None:
    if sys.argv[1:2] == ["kills"]:
        with tempfile.TemporaryDirectory() as tmp:
            kills(Path(tmp), *(int(a) for a in sys.argv[2:4]))
        return
    files, count = (int(a) for a in sys.argv[1:3]) if len(sys.argv) > 2 else (1024, 1020)
    with tempfile.TemporaryDirectory() as tmp:
        attack(Path(tmp), files, count)


if __name__ == "__main__":
    main()
