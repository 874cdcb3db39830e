"""md RAID from every /proc/mdstat capture in tests/fixtures/mdstat, alone and with sysfs: state,
member tree, usable size, the pass running (kind, state, percent, kernel's ETA)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.collectors.md.collector import MdSys, collect_md, md_pool, read_md_sys
from nastui.collectors.md.mdstat import MdMember, parse_mdstat, parse_mdstat_report
from nastui.model import CollectorError, PoolState, ScanKind, ScanState
from tests.fakepools import FIXTURES, md_tree
from tests.unit.test_zfs_text import shape

MDSTAT = FIXTURES / "mdstat"
Pass = tuple[str, str, float | None, float | None]
Array = tuple[str, str, str, int, Pass | None]

GIB = 2**30
# capture -> arrays: (name, state, tree, usable bytes, (kind, state, percent, kernel ETA s))
EXPECTED: dict[str, list[Array]] = {
    "pymdstat/mdstat.01": [],
    "pymdstat/mdstat.02": [("md_d0", "ONLINE", "root[raid5[disk*5]]", 1250241792 * 1024, None)],
    "pymdstat/mdstat.03": [("md0", "DEGRADED", "root[raid5[disk*4]]", 1465151808 * 1024, None)],
    "pymdstat/mdstat.04": [
        ("md1", "ONLINE", "root[raid1[disk*2]]", 136448 * 1024, None),
        ("md2", "ONLINE", "root[raid1[disk*2]]", 129596288 * 1024, None),
        ("md3", "ONLINE", "root[raid5[disk*10]]", 1318680576 * 1024, None),
        ("md0", "ONLINE", "root[raid1[disk*2]]", 16787776 * 1024, None),
    ],
    "pymdstat/mdstat.05": [
        ("md127", "DEGRADED", "root[raid5[disk*6]]", 1464725760 * 1024,
         ("recovery", "running", 12.6, 7650.0)),
    ],
    "pymdstat/mdstat.06": [("md0", "ONLINE", "root[raid6[disk*7]]", 1225557760 * 1024, None)],
    "pymdstat/mdstat.07": [("md1", "DEGRADED", "root[raid1[disk*6]]", 488383936 * 1024, None)],
    "pymdstat/mdstat.08": [("md0", "UNAVAIL", "root[raid5[disk*3]]", 95425536 * 1024, None)],
    "pymdstat/mdstat.09": [
        ("md0", "ONLINE", "root[raid1[disk*2]]", 3709312 * 1024, None),
        ("md1", "ONLINE", "root[raid1[disk*2]]", 200704 * 1024, None),
        ("md2", "UNAVAIL", "root[unknown[disk*4]]", 5860553984 * 1024, None),
    ],
    "pymdstat/mdstat.10": [
        ("md129", "ONLINE", "root[raid1[disk*2]]", 15825920 * 1024, None),
        ("md128", "ONLINE", "root[raid1[disk*2]]", 126887936 * 1024, None),
        ("md125", "ONLINE", "root[raid0[disk*6]]", 2306837760 * 1024, None),
        ("md126", "ONLINE", "root[raid0[disk*2]]", 999948288 * 1024, None),
    ],
    "pymdstat/mdstat.11": [("md127", "UNAVAIL", "root[unknown[disk*3]]", 6282240 * 1024, None)],
    "pymdstat/mdstat.12": [("md127", "ONLINE", "root[raid0[disk*2]]", 10475520 * 1024, None)],
    "pymdstat/mdstat.13": [
        ("md127", "DEGRADED", "root[raid4[disk*4]]", 10475520 * 1024,
         ("reshape", "running", 2.2, 222.0)),
    ],
    "pymdstat/mdstat.14": [("md127", "ONLINE", "root[raid0[disk*2]]", 4188160 * 1024, None)],
    "pymdstat/mdstat.15": [
        ("md3", "ONLINE", "root[raid6[disk*8]]", 17581481472 * 1024, None),
        ("md2", "ONLINE", "root[raid6[disk*8]]", 17552612736 * 1024, None),
        ("md1", "ONLINE", "root[raid1[disk*8]]", 2097088 * 1024, None),
        ("md0", "ONLINE", "root[raid1[disk*8]]", 2490176 * 1024, None),
    ],
    "pymdstat/mdstat.16": [("md1", "ONLINE", "root[raid5[disk*8]]", 95705752576 * 1024, None)],
    "riemann/example-1": [],
    "riemann/example-2": [],
    "riemann/example-3": [("md2", "ONLINE", "root[raid1[disk*2]]", 467668992 * 1024, None)],
    "riemann/example-4": [
        ("md4", "ONLINE", "root[raid1[disk*2]]", 1931457472 * 1024, None),
        ("md2", "ONLINE", "root[raid1[disk*2]]", 523200 * 1024, None),
        ("md3", "ONLINE", "root[raid1[disk*2]]", 20478912 * 1024, None),
    ],
    "riemann/example-5": [
        ("md2", "ONLINE", "root[raid1[disk*2]]", 3902196544 * 1024, None),
        ("md1", "DEGRADED", "root[raid1[disk*5]]", 2097088 * 1024, None),
        ("md0", "DEGRADED", "root[raid1[disk*5]]", 2490176 * 1024, None),
    ],
    "riemann/example-6": [("md_d0", "ONLINE", "root[raid5[disk*5]]", 1250241792 * 1024, None)],
    "riemann/example-7": [("md0", "DEGRADED", "root[raid5[disk*4]]", 1465151808 * 1024, None)],
    "riemann/example-8": [
        ("md1", "ONLINE", "root[raid1[disk*2]]", 136448 * 1024, None),
        ("md2", "ONLINE", "root[raid1[disk*2]]", 129596288 * 1024, None),
        ("md3", "ONLINE", "root[raid5[disk*10]]", 1318680576 * 1024, None),
        ("md0", "ONLINE", "root[raid1[disk*2]]", 16787776 * 1024, None),
    ],
    "riemann/example-9": [
        ("md127", "DEGRADED", "root[raid5[disk*6]]", 1464725760 * 1024,
         ("recovery", "running", 12.6, 7650.0)),
    ],
    "riemann/example-10": [("md0", "ONLINE", "root[raid6[disk*7]]", 1225557760 * 1024, None)],
    "riemann/example-11": [("md1", "DEGRADED", "root[raid1[disk*6]]", 488383936 * 1024, None)],
    "riemann/example-12": [
        ("md3", "ONLINE", "root[raid1[disk*2]]", 463604672 * 1024,
         ("check", "running", 19.8, 1800.0)),
        ("md2", "ONLINE", "root[raid1[disk*2]]", 523200 * 1024, None),
    ],
    "riemann/example-13": [
        ("md2", "ONLINE", "root[raid1[disk*2]]", 225278912 * 1024,
         ("check", "running", 3.1, 1404.0)),
        ("md3", "ONLINE", "root[raid1[disk*2]]", 242781120 * 1024,
         ("resync", "pending", None, None)),
        ("md1", "ONLINE", "root[raid1[disk*2]]", 261056 * 1024, ("resync", "pending", None, None)),
    ],
    "riemann/example-14": [
        ("md0", "ONLINE", "root[raid1[disk*2]]", 33520640 * 1024,
         ("resync", "pending", None, None)),
        ("md2", "ONLINE", "root[raid1[disk*2]]", 465370432 * 1024, None),
        ("md1", "ONLINE", "root[raid1[disk*2]]", 1046528 * 1024, None),
    ],
    "telegraf/mdStatFileEmpty.txt": [],
    "telegraf/mdStatFileFailedDisk.txt": [
        ("md0", "DEGRADED", "root[raid5[disk*4]]", 5860144128 * 1024, None),
    ],
    "telegraf/mdStatFileFull.txt": [
        ("md2", "ONLINE", "root[raid10[disk*12]]", 11251451904 * 1024,
         ("check", "running", 94.4, 6096.0)),
        ("md1", "ONLINE", "root[raid1[disk*2]]", 5909504 * 1024, None),
        ("md0", "ONLINE", "root[raid1[disk*2]]", 244005888 * 1024, None),
    ],
    # telegraf's test edited the percentage to 1.5 and kept the position: the position wins
    "telegraf/mdStatSyncStart.txt": [
        ("md2", "ONLINE", "root[raid10[disk*12]]", 11251451904 * 1024,
         ("check", "running", 94.4, 6096.0)),
        ("md1", "ONLINE", "root[raid1[disk*2]]", 5909504 * 1024, None),
        ("md0", "ONLINE", "root[raid1[disk*2]]", 244005888 * 1024, None),
    ],
}  # fmt: skip


def test_every_capture_is_covered() -> None:
    files = {
        str(p.relative_to(MDSTAT))
        for d in ("pymdstat", "riemann", "telegraf")
        for p in (MDSTAT / d).iterdir()
    }
    assert files == set(EXPECTED) | {"telegraf/mdStatFileInvalid.txt"}


@pytest.mark.parametrize(("name", "arrays"), sorted(EXPECTED.items()))
def test_capture(name: str, arrays: list[Array]) -> None:
    pools = [md_pool(a, MdSys()) for a in parse_mdstat((MDSTAT / name).read_text())]
    got = []
    for pool in pools:
        scan = pool.scan
        done = None
        if scan is not None:
            percent = round(scan.percent, 1) if scan.percent is not None else None
            done = (scan.kind.value, scan.state.value, percent, scan.eta_seconds)
        got.append((pool.name, pool.state.value, shape(pool.root), pool.size_bytes, done))
    assert got == arrays


def test_invalid_capture_names_the_line() -> None:
    arrays, stray = parse_mdstat_report((MDSTAT / "telegraf/mdStatFileInvalid.txt").read_text())
    notes = stray + [n for a in arrays for n in a.notes]
    assert any("line 3" in n and "mdf1: testman actve" in n for n in notes)


def test_members_flags_and_missing_slots() -> None:
    (array,) = parse_mdstat((MDSTAT / "pymdstat/mdstat.07").read_text())
    assert MdMember("sde1", 6, "F") in array.members
    pool = md_pool(array, MdSys())
    leaves = [(v.name, v.state, v.note) for v in pool.root.leaves]
    assert ("sde1", PoolState.FAULTED, "faulty") in leaves
    # [6/4] [_UUUU_]: the failed sde1 is one of the two gaps, one device is gone altogether;
    # which gap is which mdstat does not say, so the hole is not named after a slot
    assert [leaf for leaf in leaves if leaf[2] == "missing"] == [
        ("missing device", PoolState.UNAVAIL, "missing")
    ]
    assert pool.status_text == (
        "md1 is degraded: 2 of 6 devices missing; replace the failed device and let it recover."
    )


def test_recovering_member_fills_the_gap() -> None:
    (array,) = parse_mdstat((MDSTAT / "pymdstat/mdstat.05").read_text())
    pool = md_pool(array, MdSys())
    assert pool.root.leaves[-1].name == "sdh1" and pool.root.leaves[-1].note == "(recovering)"
    scan = pool.scan
    assert scan is not None
    assert (scan.bytes_done, scan.bytes_total) == (37043392 * 1024, 292945152 * 1024)
    assert scan.rate_bytes_per_s == 33440 * 1024


def test_auto_read_only_and_spares() -> None:
    text = (MDSTAT / "procfs/fixtures/proc/mdstat").read_text()
    arrays = {a.name: a for a in parse_mdstat(text)}
    assert arrays["md11"].read_only and arrays["md11"].progress is not None
    md3 = md_pool(arrays["md3"], MdSys())
    assert shape(md3.root) == "root[raid6[disk*8] spares[disk*2]]"


def test_procfs_tree_with_sysfs() -> None:
    pools, errors = collect_md(MDSTAT / "procfs/fixtures")
    assert errors == ()
    by_name = {p.name: p for p in pools}
    assert len(pools) == 18
    md6 = by_name["md6"]  # sysfs: recover, 1569888 / 2093056 sectors (a different run)
    assert md6.scan is not None and md6.scan.kind is ScanKind.RECOVERY
    assert (md6.scan.bytes_done, md6.scan.bytes_total) == (1569888 * 512, 2093056 * 512)
    assert by_name["md7"].state is PoolState.UNAVAIL  # sysfs says inactive
    md8 = by_name["md8"]  # mdstat "resync", sysfs "reshape": sysfs tells what runs
    assert md8.scan is not None and md8.scan.kind is ScanKind.RESHAPE
    assert by_name["md0"].uuid == "155f29ff-1716-4107-b362-52307ef86cac"
    md201 = by_name["md201"]  # no sysfs: mdstat's position and speed
    assert md201.scan is not None and md201.scan.percent == pytest.approx(5.73, abs=0.01)
    for waiting in ("md9", "md11"):
        scan = by_name[waiting].scan
        assert scan is not None and scan.state is ScanState.PENDING


def test_sysfs_tells_check_repair_mismatches_and_read_errors(tmp_path: Path) -> None:
    mdstat = (
        "Personalities : [raid1]\n"
        "md0 : active raid1 sdb1[1] sda1[0]\n"
        "      976630464 blocks super 1.2 [2/2] [UU]\n"
        "      [==>..................]  resync = 12.0% (117195656/976630464) finish=80.0min "
        "speed=179000K/sec\n\n"
        "unused devices: <none>\n"
    )
    md_tree(
        tmp_path,
        mdstat,
        {
            "md0": {
                "sync_action": "repair",
                "sync_completed": "234391312 / 1953260928",
                "sync_speed": "180000",
                "mismatch_cnt": "128",
                "degraded": "0",
                "array_state": "clean",
                "dev-sda1/state": "in_sync",
                "dev-sda1/errors": "3",
                "dev-sdb1/state": "in_sync,write_mostly",
            }
        },
    )
    assert read_md_sys(tmp_path, "md0").member_errors == {"sda1": 3}
    ((pool,), errors) = collect_md(tmp_path)
    assert errors == ()
    scan = pool.scan
    assert scan is not None and scan.kind is ScanKind.REPAIR  # mdstat says "resync"
    assert (scan.bytes_done, scan.bytes_total) == (234391312 * 512, 1953260928 * 512)
    assert (scan.errors, scan.repaired_bytes) == (128, 128 * 512)
    assert scan.rate_bytes_per_s == 180000 * 1024 and scan.eta_seconds == 4800
    assert pool.root.leaves[0].read_errors == 3


def test_delayed_broken_and_missing_file(tmp_path: Path) -> None:
    mdstat = "md1 : active raid0 sdc1[1] sdb1[0]\n      100 blocks super 1.2 64k chunks\n"
    md_tree(tmp_path, mdstat, {"md1": {"array_state": "broken", "sync_completed": "delayed"}})
    ((pool,), _) = collect_md(tmp_path)
    assert pool.state is PoolState.FAULTED
    assert collect_md(tmp_path / "nowhere") == ((), ())  # no md module: no arrays, no error
    (tmp_path / "proc/mdstat").write_text("garbage\n")
    assert collect_md(tmp_path)[1] == (
        CollectorError(
            "mdraid", "/proc/mdstat line 1: unexpected line before any array: 'garbage'"
        ),
    )


def test_a_damaged_device_count_does_not_fill_memory() -> None:
    """Found by the fuzz test: `[99999999999999999999/4]` made one placeholder per device."""
    text = (MDSTAT / "pymdstat/mdstat.07").read_text().replace("[6/4]", "[99999999999999999999/4]")
    (array,) = parse_mdstat(text)
    pool = md_pool(array, MdSys())
    assert len(pool.root.leaves) <= 1920 + len(array.members)


def _lab_sysfs(text: str) -> dict[str, dict[str, str]]:
    """The lab's `mdX KEY VALUE` / `mdX member DEV STATE` dump as md_tree's files."""
    files: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        array, key, value = line.split(" ", 2)
        if key == "member":
            dev, state = value.split(" ", 1)
            files.setdefault(array, {})[f"dev-{dev}/state"] = state
        else:
            files.setdefault(array, {})[key] = value
    return files


def test_lab_capture_live_progress_beats_the_sysfs_checkpoint(tmp_path: Path) -> None:
    """Linux 6.1 in the lab (tests/lab/test_md.py): a check 1.3 % in by /proc/mdstat while
    sysfs's sync_completed still says 0 (a checkpoint moved every sixteenth of the array),
    a recovery likewise, a reshape whose sysfs figure is the further one."""
    lab = FIXTURES / "mdstat" / "lab"
    mdstat = (lab / "states-before.mdstat").read_text()
    md_tree(tmp_path, mdstat, _lab_sysfs((lab / "states-before.sysfs").read_text()))
    pools, errors = collect_md(tmp_path)
    assert errors == ()
    by_name = {p.name: p for p in pools}
    percent = {n: p.scan.percent for n, p in by_name.items() if p.scan is not None}
    assert percent == pytest.approx(
        {"md10": 100 * 5632 / 405504, "md1": 100 * 5888 / 203776, "md5": 100 * 15360 / 405504}
    )
    check = by_name["md10"].scan
    assert check is not None and (check.kind, check.errors) == (ScanKind.CHECK, 7936)
    states = {n: p.state for n, p in by_name.items()}
    assert states == {
        "md1": PoolState.DEGRADED,
        "md5": PoolState.ONLINE,
        "md6": PoolState.DEGRADED,
        "md10": PoolState.ONLINE,
        "md11": PoolState.DEGRADED,
    }
    notes = [leaf.note for leaf in by_name["md1"].root.leaves]
    assert notes == [None, "(recovering)"]
