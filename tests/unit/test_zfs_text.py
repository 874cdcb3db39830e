"""`zpool status` text, from every capture in tests/fixtures/zpool, with reviewed expected
results: pool state, the vdev tree's shape, counters and notes, scan kind, state, percent and
ETA, and the data error count. Captures a real `zpool` could not have printed (test code that
edited them, man-page excerpts with "...") keep every pool they name, with a note naming the
line that was not understood."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nastui.collectors.zfs.scan import parse_scan
from nastui.collectors.zfs.text import parse_zpool_status, parse_zpool_status_report
from nastui.model import Pool, PoolState, ScanKind, ScanState, Vdev
from nastui.model.errors import ParseError
from tests.fakepools import FIXTURES, transcript

ZPOOL = FIXTURES / "zpool"
Scan = tuple[str, str, float | None, float | None, int | None, float | None, float | None]

# (capture, pool, state, tree shape, (scan kind, state, percent, ETA s, errors, started, ended),
#  data error count). Times are Unix seconds of the printed dates in UTC (conftest pins TZ).
EXPECTED: list[tuple[str, str, str, str, Scan | None, int | None]] = [
    ("openzfs_docs/Basic_Concepts_Pool_Structure_dRAID_Howto_L140.txt", "tank", "DEGRADED",
     "root[draid1[disk*6 spare[disk dspare] disk*4] spares[dspare]]",
     ("resilver", "running", 57.17, 201.0, None, 1606228465.0, None), None),
    ("openzfs_docs/Basic_Concepts_Pool_Structure_dRAID_Howto_L89.txt", "tank", "ONLINE",
     "root[draid1[disk*11] spares[dspare]]", None, None),
    ("openzfs_docs/Project_and_Community_FAQ_L304.txt", "tank", "ONLINE",
     "root[mirror[disk*2]*8]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-14_L52.txt", "test", "ONLINE", "root[disk]", None, None),
    ("openzfs_docs/msg_ZFS-8000-2Q_L107.txt", "test", "DEGRADED", "root[mirror[disk*2]]", None,
     None),
    ("openzfs_docs/msg_ZFS-8000-2Q_L55.txt", "test", "DEGRADED", "root[mirror[disk*2]]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-3C_L54.txt", "test", "FAULTED", "root[disk*2]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-3C_L88.txt", "test", "FAULTED", "root[disk*2]", None, None),
    ("openzfs_docs/msg_ZFS-8000-4J_L106.txt", "test", "DEGRADED", "root[mirror[disk*2]]", None,
     None),
    ("openzfs_docs/msg_ZFS-8000-4J_L55.txt", "test", "DEGRADED", "root[mirror[disk*2]]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-5E_L55.txt", "test", "FAULTED", "root[disk*2]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-72_L61.txt", "test", "FAULTED", "root[disk*2]", None, None),
    ("openzfs_docs/msg_ZFS-8000-8A_L50.txt", "test", "ONLINE", "root[disk*2]", None, 1),
    ("openzfs_docs/msg_ZFS-8000-8A_L78.txt", "test", "ONLINE", "root[disk*2]", None, 1),
    ("openzfs_docs/msg_ZFS-8000-9P_L133.txt", "test", "DEGRADED",
     "root[mirror[replacing[disk*2] disk]]",
     ("resilver", "running", 0.14, 0.0, None, None, None), 0),
    ("openzfs_docs/msg_ZFS-8000-9P_L52.txt", "test", "ONLINE", "root[mirror[disk*2]]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-A5_L51.txt", "test", "FAULTED", "root[mirror[disk*2]]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-ER_L110.txt", "test", "ONLINE", "root[raidz1[disk*4]]", None,
     None),
    ("openzfs_docs/msg_ZFS-8000-ER_L177.txt", "test", "ONLINE", "root[raidz1[disk*4]]", None,
     None),
    ("openzfs_docs/msg_ZFS-8000-ER_L274.txt", "test", "ONLINE", "root[file]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-ER_L57.txt", "test", "ONLINE", "root[raidz1[disk*4]]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-EY_L53.txt", "test", "ONLINE", "root[disk]", None, None),
    ("openzfs_docs/msg_ZFS-8000-HC_L55.txt", "test", "FAULTED", "root[disk*2]", None, 1),
    ("openzfs_docs/msg_ZFS-8000-JQ_L55.txt", "test", "FAULTED", "root[disk*2]", None, 1),
    ("openzfs_docs/msg_ZFS-8000-K4_L106.txt", "test", "DEGRADED", "root[disk logs[disk]]", None, 0),
    ("openzfs_docs/msg_ZFS-8000-K4_L61.txt", "test", "FAULTED", "root[disk logs[disk]]", None,
     None),
    ("openzfs_docs/msg_ZFS-8000-K4_L85.txt", "test", "ONLINE", "root[disk logs[disk]]", None, 0),
    ("openzfs_man/zpool-import.8_L407.txt", "tank", "ONLINE", "root[mirror[disk*2]]", None, None),
    ("openzfs_man/zpool.8_L318.txt", "tank", "ONLINE", "root[mirror[disk*2]]", None, None),
    ("openzfs_man/zpool.8_L382.txt", "tank", "ONLINE",
     "root[mirror[disk*2]*2 logs[mirror[disk*2]]]", None, None),
    ("openzfs_man/zpool.8_L408.txt", "tank", "ONLINE", "root[mirror[disk*2]*2]", None, None),
    ("openzfs_man/zpool.8_L431.txt", "tank", "ONLINE", "root[mirror[disk*2]]", None, None),
    ("status/libzetta/mod.rs_L183_stdout.txt", "naked_test", "ONLINE", "root[file*2]", None, None),
    ("status/libzetta/mod.rs_L273_stdout.txt", "tests-12167169401705616934", "ONLINE",
     "root[file]", None, 0),
    ("status/libzetta/mod.rs_L299_stdout.txt", "eden", "ONLINE",
     "root[mirror[disk*2] raidz1[disk*5] raidz2[disk*5] raidz3[disk*5]]",
     ("scrub", "finished", 100.0, None, 0, 1545264000.0, 1545290894.0), 0),
    ("status/libzetta/mod.rs_L361_stdout.txt", "test", "DEGRADED", "root[mirror[disk file]]",
     None, 0),
    ("status/libzetta/mod.rs_L411_stdout.txt", "test", "DEGRADED", "root[mirror[disk file]]",
     None, 0),
    ("status/libzetta/mod.rs_L438_stdout.txt", "tests-5810578167377116542", "DEGRADED",
     "root[mirror[disk file]]", None, 0),
    ("status/libzetta/mod.rs_L448_stdout.txt", "hell", "ONLINE",
     "root[file logs[mirror[file*2]] cache[disk]]", None, 0),
    ("status/libzetta/mod.rs_L495_stdout.txt", "sparepool", "DEGRADED",
     "root[raidz1[spare[disk*2] disk*2] spares[disk]]",
     ("resilver", "finished", 100.0, None, 0, 1674131460.0, 1674131536.0), 0),
    ("status/libzetta/mod.rs_L577_stdout.txt", "tank", "ONLINE",
     "root[mirror[disk*2] special[mirror[disk*2]]]", None, 0),
    ("status/libzetta/mod.rs_L85_stdout_valid_two_disks.txt", "naked_test", "ONLINE",
     "root[file*2]", None, None),
    ("status/libzetta_import_with_empty_comment.txt", "t2", "ONLINE", "root[disk]", None, None),
    ("status/libzetta_status_with_block_device_nested.txt", "eden", "ONLINE",
     "root[raidz2[disk*6]]",
     ("scrub", "finished", 100.0, None, 0, 1677838126.0, 1677892340.0), None),
    ("status/riemann_cksum.txt", "tank", "ONLINE", "root[disk mirror[disk*2]]",
     ("resilver", "finished", 100.0, None, 0, 1661821909.0, 1661843242.0), 0),
    ("status/riemann_degraded.txt", "tank", "DEGRADED", "root[mirror[disk*2]*2]",
     ("scrub", "finished", 100.0, None, 0, 1649507041.0, 1649539089.0), 0),
    ("status/riemann_faulted.txt", "pool", "FAULTED", "root[mirror[disk*2] logs[disk]]", None,
     None),
    ("status/riemann_resilvering.txt", "tank", "ONLINE", "root[mirror[disk*2]*2]",
     ("resilver", "running", 9.02, 413.0, None, 1661843666.0, None), 0),
]  # fmt: skip

# Captures no zpool printed as they are: line of the ParseError (None: no line, the errors text).
REJECTED = {
    # the dRAID how-to's literal block lost a column: "spares" children at the pool's indent
    "openzfs_docs/Basic_Concepts_Pool_Structure_dRAID_Howto_L206.txt": 30,
    # `zpool import` of a pool with missing devices: a paragraph after the tree
    "openzfs_docs/msg_ZFS-8000-6X_L49.txt": 12,
    "status/libzetta/mod.rs_L136_stdout_invalid_two_disks.txt": 13,
    # `zpool status -c` in a man page whose formatting flattened the tree
    "openzfs_man/zpool-iostat.8_L269.txt": 1,
    "openzfs_man/zpool-status.8_L169.txt": 1,
    "openzfs_man/zpool.8_L464.txt": 1,
    # a man-page excerpt with "..." for the elided lines
    "openzfs_man/zpool-scrub.8_L234.txt": 1,
    # libzetta's test author replaced the errors line ("Pretend this is actual error")
    "status/libzetta/mod.rs_L219_stdout.txt": None,
    # libzetta's test code re-indented half the tree
    "status/libzetta/mod.rs_L543_stdout.txt": 17,
}
NOT_STATUS = ("openzfs_man/zpool-list.8_", "openzfs_man/zpool.8_L293", "openzfs_man/zpool.8_L451")


def shape(vdev: Vdev) -> str:
    """A tree as "root[mirror[disk*2]*2 logs[disk]]": kinds, with runs of equal shapes counted."""
    if not vdev.children:
        return vdev.kind
    parts: list[str] = []
    previous, count = "", 0
    for child in vdev.children:
        current = shape(child)
        if current == previous:
            count += 1
            continue
        if count:
            parts.append(previous if count == 1 else f"{previous}*{count}")
        previous, count = current, 1
    parts.append(previous if count == 1 else f"{previous}*{count}")
    return f"{vdev.kind}[{' '.join(parts)}]"


def status(name: str) -> tuple[Pool, ...]:
    return parse_zpool_status(transcript((ZPOOL / name).read_text()))


def pool_named(name: str, pool: str) -> Pool:
    return next(p for p in status(name) if p.name == pool)


def leaf(pool: Pool, name: str) -> Vdev:
    return next(v for _, v in pool.root.walk() if v.name == name)


def test_every_status_capture_is_covered() -> None:
    files = {
        str(p.relative_to(ZPOOL))
        for p in [*ZPOOL.glob("status/**/*.txt"), *ZPOOL.glob("openzfs_*/*.txt")]
    }
    covered = {e[0] for e in EXPECTED} | set(REJECTED) | {"openzfs_man/zpool-status.8_L196.txt"}
    covered |= {"status/libzetta/mod.rs_L183_stdout.txt", "status/riemann_healthy.txt"}
    missing = {f for f in files - covered if not f.startswith(NOT_STATUS)}
    assert not missing


@pytest.mark.parametrize("case", EXPECTED, ids=lambda c: f"{c[0]}:{c[1]}")
def test_capture(case: tuple[str, str, str, str, Scan | None, int | None]) -> None:
    name, pool, state, tree, scan, errors = case
    found = pool_named(name, pool)
    assert found.state is PoolState(state)
    assert shape(found.root) == tree
    assert found.error_count == errors
    if scan is None:
        assert found.scan is None
        return
    got = found.scan
    assert got is not None
    percent = round(got.percent, 2) if got.percent is not None else None
    assert (got.kind.value, got.state.value, percent, got.eta_seconds, got.errors) == scan[:5]
    assert (got.started_at, got.ended_at) == scan[5:]


@pytest.mark.parametrize(("name", "line"), sorted(REJECTED.items()))
def test_odd_capture_keeps_its_pools_and_notes_the_line(name: str, line: int | None) -> None:
    text = transcript((ZPOOL / name).read_text())
    pools, stray = parse_zpool_status_report(text)
    named = {m.group(1) for m in re.finditer(r"(?m)^\s*pool: (\S.*?)\s*$", text)}
    assert named <= {p.name for p in pools}
    notes = [*stray, *(n for p in pools for n in p.notes)]
    wanted = f"line {line}:" if line is not None else "unknown errors text"
    assert any(wanted in n for n in notes), notes


def test_healthy_and_empty_outputs_have_no_pools() -> None:
    assert status("status/riemann_healthy.txt") == ()
    assert parse_zpool_status("no pools available\n") == ()


def test_two_pools_in_one_output() -> None:
    assert [p.name for p in status("status/libzetta/mod.rs_L183_stdout.txt")] == [
        "naked_test",
        "naked_test2",
    ]


def test_counters_rounded_and_notes() -> None:
    spare = pool_named("status/libzetta/mod.rs_L495_stdout.txt", "sparepool")
    faulted = leaf(spare, "wwn-0x500000000000000a")
    assert faulted.state is PoolState.FAULTED
    assert (faulted.read_errors, faulted.write_errors, faulted.checksum_errors) == (0, 4209, 0)
    assert faulted.note == "too many errors"
    in_use = spare.root.children[-1].children[0]
    assert (in_use.state, in_use.note, in_use.read_errors) == (
        PoolState.INUSE,
        "currently in use",
        None,
    )
    cksum = pool_named("status/riemann_cksum.txt", "tank")
    assert leaf(cksum, "zfs-ce04bfb7c4e33191").checksum_errors == 5
    offline = pool_named("status/libzetta/mod.rs_L361_stdout.txt", "test")
    assert leaf(offline, "14808325297596192025").note == "was /vdevs/vdev0"
    assert leaf(offline, "/vdevs/vdev1").write_errors == 2
    io = pool_named("openzfs_docs/msg_ZFS-8000-HC_L55.txt", "test")
    assert (io.root.write_errors, io.root.note) == (13, "insufficient replicas")
    assert leaf(io, "sda").note == "experienced I/O failures"


def test_resilver_with_replacing_and_the_resilvered_note() -> None:
    pool = pool_named("openzfs_docs/msg_ZFS-8000-9P_L133.txt", "test")
    replacing = pool.root.children[0].children[0]
    assert (replacing.name, replacing.kind) == ("replacing", "replacing")
    assert [c.name for c in replacing.children] == ["sda", "sdc"]
    assert replacing.children[1].note == "58.5K resilvered"
    assert pool.scan is not None and pool.scan.percent == pytest.approx(0.14)


def test_draid_spare_in_use_during_rebuild() -> None:
    pool = pool_named("openzfs_docs/Basic_Concepts_Pool_Structure_dRAID_Howto_L140.txt", "tank")
    spare = leaf(pool, "spare-6")
    assert [(c.name, c.state, c.note) for c in spare.children] == [
        ("sdg", PoolState.UNAVAIL, None),
        ("draid1-0-0", PoolState.ONLINE, "(resilvering)"),
    ]
    scan = pool.scan
    assert scan is not None and scan.bytes_total is not None and scan.bytes_done is not None
    assert scan.bytes_total == pytest.approx(6.13 * 2**40, rel=1e-3)
    assert scan.rate_bytes_per_s == pytest.approx(6.07 * 2**30, rel=1e-3)
    assert scan.repaired_bytes == pytest.approx(326 * 2**30, rel=1e-3)


def test_permanent_errors_file_list_and_status_text() -> None:
    pool = pool_named("openzfs_docs/msg_ZFS-8000-8A_L78.txt", "test")
    assert pool.error_files == ("/export/example/foo",)
    assert pool.status_text is not None
    assert pool.status_text.startswith("One or more devices has experienced an error")
    assert pool.status_text.endswith("Action: Destroy the pool and restore from backup.")
    counted = pool_named("openzfs_docs/msg_ZFS-8000-8A_L50.txt", "test")
    assert (counted.error_files, counted.error_count) == ((), 1)


def test_permanent_errors_listed_without_indentation_are_files() -> None:
    """A page that lost the list's indentation (held-out sample: the three files were notes and
    the pool said 0 data errors)."""
    text = (ZPOOL / "public/jc_solaris_permanent_errors_unindented.txt").read_text()
    (pool,) = parse_zpool_status(text)
    assert pool.error_files == ("/tank/data/aaa", "/tank/data/bbb", "/tank/data/ccc")
    assert pool.error_count == 3
    assert pool.notes == ()


def test_permanent_errors_without_the_list_are_errors_of_unknown_count() -> None:
    """Output cut after the heading: errors there are (never "0"), how many is not known."""
    text = (ZPOOL / "public/jc_solaris_permanent_errors_unindented.txt").read_text()
    (pool,) = parse_zpool_status(text.split("/tank/data/aaa")[0])
    assert pool.error_files == ("<permanent errors reported; no file listed>",)
    assert pool.error_count is None


def test_finished_scrub_is_the_last_scrub_and_a_resilver_is_not() -> None:
    scrubbed = pool_named("status/riemann_degraded.txt", "tank")
    assert scrubbed.last_scrub is scrubbed.scan
    assert (
        scrubbed.last_scrub is not None and scrubbed.last_scrub.duration == 8 * 3600 + 54 * 60 + 8
    )
    resilvered = pool_named("status/riemann_cksum.txt", "tank")
    assert resilvered.last_scrub is None
    assert resilvered.scan is not None and resilvered.scan.repaired_bytes == round(2.86 * 2**40)


# The scan lines of every OpenZFS release, from the man page (2.2+) and zpool_main.c.
def test_scan_22_format_from_the_man_page() -> None:
    text = (ZPOOL / "openzfs_man/zpool-scrub.8_L234.txt").read_text()
    lines = [line.strip() for line in text.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("scan:"))
    scan = parse_scan([lines[start].removeprefix("scan: "), lines[start + 1], lines[start + 2]])
    assert scan is not None
    assert (scan.kind, scan.state) == (ScanKind.SCRUB, ScanState.RUNNING)
    assert scan.bytes_total == 405 * 2**20 and scan.reported_percent == 16.91
    assert scan.rate_bytes_per_s == 10 * 2**20 and scan.eta_seconds == 4
    assert scan.percent == pytest.approx(16.91, abs=0.01)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (  # 0.7: "scanned out of", ETA in h/m
            [
                "scrub in progress since Sun Jul 25 16:07:49 2021",
                "12.3G scanned out of 1.20T at 100M/s, 3h2m to go",
                "0B repaired, 1.00% done",
            ],
            ("running", 1.0, 3 * 3600 + 2 * 60, 100 * 2**20),
        ),
        (  # 0.8-2.1 paused: no rates
            [
                "scrub paused since Mon Jul 26 10:00:00 2021",
                "scrub started on Sun Jul 25 16:07:49 2021",
                "1.63T scanned, 845G issued, 9.15T total",
                "0B repaired, 9.02% done",
            ],
            ("paused", 9.02, None, None),
        ),
        (  # 2.2+ paused
            [
                "scrub paused since Mon Jul 26 10:00:00 2021",
                "\tscrub started on Sun Jul 25 16:07:49 2021".strip(),
                "403M / 405M scanned, 68.4M / 405M issued",
                "0B repaired, 16.91% done",
            ],
            ("paused", 16.91, None, None),
        ),
        (  # slow: no estimate
            [
                "scrub in progress since Sun Jul 25 16:07:49 2021",
                "1.63T scanned at 1M/s, 845G issued at 1M/s, 9.15T total",
                "0B repaired, 9.02% done, no estimated completion time",
            ],
            ("running", 9.02, None, 2**20),
        ),
        (  # days in the ETA
            [
                "resilver in progress since Sun Jul 25 16:07:49 2021",
                "1.63T scanned at 40.8G/s, 845G issued at 20.6G/s, 9.15T total",
                "1.13G resilvered, 9.02% done, 1 days 02:03:04 to go",
            ],
            ("running", 9.02, 93784, round(20.6 * 2**30)),
        ),
    ],
)
def test_scan_formats(lines: list[str], expected: tuple[object, ...]) -> None:
    scan = parse_scan(lines)
    assert scan is not None
    state, percent, eta, rate = expected
    assert scan.state.value == state
    assert scan.percent == pytest.approx(percent, abs=0.01)
    assert scan.eta_seconds == eta
    assert scan.rate_bytes_per_s == (pytest.approx(rate, rel=1e-3) if rate else None)
    if scan.state is ScanState.PAUSED:
        assert scan.started_at == 1627229269.0


def test_scan_canceled_and_old_completed_and_error_scrub() -> None:
    canceled = parse_scan(["scrub canceled on Tue Aug 30 07:07:22 2022"])
    assert canceled is not None and canceled.state is ScanState.CANCELED
    assert canceled.ended_at == 1661843242.0
    old = parse_scan(["scrub completed after 0h3m with 2 errors on Tue Aug 30 07:07:22 2022"])
    assert old is not None and (old.state, old.errors, old.duration) == (
        ScanState.FINISHED,
        2,
        180.0,
    )
    assert parse_scan(["error scrub in progress since Tue Aug 30 07:07:22 2022"]) is None
    assert parse_scan(["none requested"]) is None


def test_unknown_scan_line_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="unexpected progress line"):
        parse_scan(["scrub in progress since Sun Jul 25 16:07:49 2021", "made up line"])


def test_capture_files_exist() -> None:
    for name, *_ in EXPECTED:
        assert Path(ZPOOL / name).is_file(), name
