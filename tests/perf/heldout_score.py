"""Held-out score of the parsers: `python -m tests.perf.heldout_score [-v]`.

Every capture under `tests/fixtures/heldout/` (real output from public issue threads, pages and
repositories, none in the shared corpus, sources in its PROVENANCE.md) goes through the parser
the live path uses. Pools (`zpool status`, /proc/mdstat, `btrfs scrub status`) go through the
collector entry point `nastui pools` uses (`ZfsCollector`, `collect_md`, `BtrfsCollector`) with
the tools replaced by a replay of the capture: a sample scores when every pool its EXPECTED.json
names is there with the right name and state, and with the scan, last scrub, layout change (ZFS
remove/expand), members recovering, scrub error count, data error count and vdev states and
error counters where the entry gives them. The other kinds (smartctl, ipmitool, storcli,
sas2ircu, fio, btrfs show/stats/replace) are read by `tests.perf.heldout_kinds`. Prints the
figure; asserts nothing.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

from nastui.collectors.btrfs import collector as btrfs_collector
from nastui.collectors.md.collector import collect_md
from nastui.collectors.runner import CommandResult
from nastui.collectors.zfs import collector as zfs_collector
from nastui.model import Pool, ScanProgress, Vdev
from tests.perf.heldout_kinds import fact_misses

HELDOUT = Path(__file__).resolve().parents[1] / "fixtures" / "heldout"
LAB = Path(__file__).resolve().parents[1] / "fixtures" / "btrfs" / "lab"
NOW = 2_000_000_000.0
_MOUNT = "43 27 0:39 / /mnt/lab rw,relatime - btrfs /dev/loop0 rw,subvolid=5,subvol=/\n"


def _answer(argv: Sequence[str], table: dict[str, tuple[int, str, str]]) -> CommandResult:
    code, out, err = table.get(" ".join(argv), (1, "", "no answer\n"))
    return CommandResult(tuple(argv), code, out, err, 0.0)


def _fake(table: dict[str, tuple[int, str, str]]) -> Callable[..., Any]:
    async def run(argv: Sequence[str], **_: object) -> CommandResult:
        return _answer(argv, table)

    return run


def zfs_pools(text: str) -> tuple[Pool, ...]:
    """What `nastui pools` shows for a `zpool` that prints `text` (and has no JSON)."""
    table = {
        " ".join(zfs_collector.status_json_argv()): (2, "", "invalid option 'j'\n"),
        " ".join(zfs_collector.status_text_argv()): (0, text, ""),
    }
    with mock.patch.object(zfs_collector, "run", _fake(table)):
        report = asyncio.run(zfs_collector.ZfsCollector().collect(NOW))
    return report.pools


def md_pools(text: str) -> tuple[Pool, ...]:
    """The md arrays of a machine whose /proc/mdstat is `text` (no sysfs)."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "proc").mkdir()
        (Path(tmp) / "proc/mdstat").write_text(text)
        pools, _ = collect_md(Path(tmp))
    return pools


def btrfs_pools(text: str) -> tuple[Pool, ...]:
    """The btrfs pools of a machine with one mounted filesystem whose `scrub status` is `text`."""
    show = (LAB / "btrfs_filesystem_show_--raw__raid1.txt").read_text()
    table = {
        " ".join(btrfs_collector.show_argv()): (0, show, ""),
        " ".join(btrfs_collector.scrub_argv("/mnt/lab", raw_counters=False)): (0, text, ""),
        " ".join(btrfs_collector.replace_argv("/mnt/lab")): (0, "Never started\n", ""),
        " ".join(btrfs_collector.stats_argv("/mnt/lab")): (0, "", ""),
    }
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "proc/self").mkdir(parents=True)
        (Path(tmp) / "proc/self/mountinfo").write_text(_MOUNT)
        with mock.patch.object(btrfs_collector, "run", _fake(table)):
            pools, _ = asyncio.run(btrfs_collector.BtrfsCollector(Path(tmp)).collect(NOW))
    return pools


def _scan(scan: ScanProgress | None) -> str | None:
    return f"{scan.kind.value}/{scan.state.value}" if scan is not None else None


def _recovering(pool: Pool) -> list[str]:
    return sorted(v.name for _, v in pool.root.walk() if v.note and "recovering" in v.note)


def _vdev(vdev: Vdev) -> str:
    """ "FAULTED", with " 0/0/12" (READ/WRITE/CKSUM) where the tool prints counters."""
    counts = (vdev.read_errors, vdev.write_errors, vdev.checksum_errors)
    shown = "" if counts == (None, None, None) else " " + "/".join(map(str, counts))
    return vdev.state.value + shown


def _vdev_misses(pool: Pool, want: dict[str, str]) -> list[str]:
    """`want` is vdev name -> "STATE" or "STATE r/w/c"; a vdev missing is a miss."""
    found = {v.name: _vdev(v) for _, v in pool.root.walk()}
    wrong = []
    for name, expected in want.items():
        got = found.get(name)
        got = got.split(" ")[0] if got is not None and " " not in expected else got
        if got != expected:
            wrong.append(f"{pool.name} vdev {name} {got} (want {expected})")
    return wrong


def misses(pools: tuple[Pool, ...], expected: list[dict[str, Any]]) -> list[str]:
    """What is wrong or missing, one phrase each; empty when the sample scores."""
    found = {p.name: p for p in pools}
    wrong: list[str] = []
    for want in expected:
        pool = found.get(want["name"])
        if pool is None:
            wrong.append(f"{want['name']} dropped")
            continue
        if pool.state.value != want["state"]:
            wrong.append(f"{pool.name} state {pool.state.value} (want {want['state']})")
        checks: dict[str, Callable[[Pool], object]] = {
            "scan": lambda p: _scan(p.scan),
            "last_scrub": lambda p: _scan(p.last_scrub),
            "layout": lambda p: _scan(getattr(p, "layout_change", None)),
            "errors": lambda p: p.scan.errors if p.scan is not None else None,
            "recovering": _recovering,
            "error_count": lambda p: p.error_count,
        }
        for key, get in checks.items():
            if key in want and get(pool) != want[key]:
                wrong.append(f"{pool.name} {key} {get(pool)} (want {want[key]})")
        wrong += _vdev_misses(pool, want.get("vdevs", {}))
    return wrong


KINDS: dict[str, Callable[[str], tuple[Pool, ...]]] = {
    "zpool": zfs_pools,
    "mdstat": md_pools,
    "btrfs": btrfs_pools,
}


def sample_misses(name: str, want: Any) -> list[str]:
    """What is wrong or missing in the held-out sample `name` (its path under HELDOUT)."""
    kind = name.split("/", maxsplit=1)[0]
    text = (HELDOUT / name).read_text()
    if kind in KINDS:
        return misses(KINDS[kind](text), want)
    return fact_misses(kind, text, want)


def _core(wrong: list[str]) -> bool:
    """Only the gross misses count: no pool dropped or state wrong, nothing raised."""
    return not any(w.endswith("dropped") or " state " in w or "raised" in w for w in wrong)


def score(verbose: bool = False) -> dict[str, tuple[int, int, int]]:
    """kind -> (samples that score fully, samples whose pools keep name and state, samples)."""
    expected: dict[str, list[dict[str, Any]]] = json.loads((HELDOUT / "EXPECTED.json").read_text())
    totals: dict[str, tuple[int, int, int]] = {}
    for name, want in sorted(expected.items()):
        kind = name.split("/")[0]
        wrong = sample_misses(name, want)
        good, core, count = totals.get(kind, (0, 0, 0))
        totals[kind] = (good + (not wrong), core + _core(wrong), count + 1)
        if verbose and wrong:
            print(f"  MISS {name}: {'; '.join(wrong)}")
    return totals


def main() -> None:
    totals = score(verbose="-v" in sys.argv)
    for kind, (good, core, count) in totals.items():
        print(f"held-out {kind:<13} {good:>3}/{count}  (nothing dropped: {core}/{count})")
    good, core, count = (sum(t[i] for t in totals.values()) for i in range(3))
    print(f"held-out total         {good:>3}/{count}  (nothing dropped: {core}/{count})")


if __name__ == "__main__":
    main()
