"""`zpool status -j` (OpenZFS 2.3+). The only public capture is the man page's example (string
values, no --json-int); the scan and rebuild mapping is checked against inputs built from the
field names `scan_status_nvlist` in OpenZFS cmd/zpool/zpool_main.c (be7657e3) writes."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from nastui.collectors.zfs.json_status import parse_zpool_status_json
from nastui.model import PoolState, ScanKind, ScanState
from nastui.model.errors import ParseError
from tests.fakepools import FIXTURES, transcript
from tests.unit.test_zfs_text import shape

MAN = FIXTURES / "zpool/openzfs_man/zpool-status.8_L196.txt"


def man_document() -> dict[str, object]:
    loaded = json.loads(transcript(MAN.read_text()))
    assert isinstance(loaded, dict)
    return loaded


def test_man_page_example() -> None:
    (pool,) = parse_zpool_status_json(transcript(MAN.read_text()))
    assert (pool.name, pool.state, pool.uuid) == ("tank", PoolState.ONLINE, "3920273586464696295")
    assert shape(pool.root) == "root[raidz1[disk*3] dedup[mirror[disk*2]] special[disk]]"
    assert all(v.state is PoolState.ONLINE for _, v in pool.root.walk())  # "HEALTHY" there
    assert pool.error_count == 0 and pool.error_files == ()
    assert pool.scan is None
    assert pool.status_text is None  # "status": "OK"
    leaf = pool.root.children[0].children[0]
    assert leaf.name == "ca1eb824-c371-491d-ac13-37637e35c683"
    assert (leaf.read_errors, leaf.write_errors, leaf.checksum_errors) == (0, 0, 0)


def with_scan(stats: Mapping[str, object], **pool: object) -> str:
    document = man_document()
    pools = document["pools"]
    assert isinstance(pools, dict)
    pools["tank"].update({"scan_stats": stats, **pool})
    return json.dumps(document)


RUNNING = {
    "function": "SCRUB",
    "state": "SCANNING",
    "start_time": 1000,
    "end_time": 0,
    "to_examine": 1000 * 2**30,
    "examined": 600 * 2**30,
    "skipped": 200 * 2**30,
    "processed": 4096,
    "errors": 2,
    "bytes_per_scan": 600 * 2**30,
    "pass_start": 1000,
    "scrub_pause": 0,
    "scrub_spent_paused": 0,
    "issued_bytes_per_scan": 400 * 2**30,
    "issued": 400 * 2**30,
}


def test_running_scrub_with_json_int() -> None:
    (pool,) = parse_zpool_status_json(with_scan(RUNNING), now=1400.0)
    scan = pool.scan
    assert scan is not None
    assert (scan.kind, scan.state) == (ScanKind.SCRUB, ScanState.RUNNING)
    assert scan.bytes_total == 800 * 2**30  # to_examine - skipped, as zpool status computes it
    assert scan.percent == pytest.approx(50.0)
    assert scan.rate_bytes_per_s == pytest.approx(400 * 2**30 / 400)
    assert (scan.errors, scan.repaired_bytes, scan.started_at) == (2, 4096, 1000)
    assert pool.last_scrub is None


def test_paused_and_finished_and_errlist() -> None:
    paused = {**RUNNING, "scrub_pause": 1300}
    (pool,) = parse_zpool_status_json(with_scan(paused), now=1400.0)
    assert pool.scan is not None and pool.scan.state is ScanState.PAUSED
    assert pool.scan.rate_bytes_per_s is None
    done = {**RUNNING, "state": "FINISHED", "end_time": 5000, "issued": 800 * 2**30}
    files = ["/tank/a", "tank/fs:<0x1>"]
    (pool,) = parse_zpool_status_json(with_scan(done, errlist=files, error_count=2))
    assert pool.scan is not None and pool.scan.state is ScanState.FINISHED
    assert pool.last_scrub is pool.scan and pool.scan.duration == 4000
    assert pool.error_files == tuple(files) and pool.error_count == 2


def test_rebuild_is_a_resilver() -> None:
    stats = {
        "function": "NONE",
        "state": "NONE",
        "rebuild_stats": {
            "draid1:4d:11c:1s-0": {
                "state": "ACTIVE",
                "start_time": 100,
                "scanned": 50,
                "to_scan": 200,
                "rebuilt": 40,
                "errors": 0,
            }
        },
    }
    (pool,) = parse_zpool_status_json(with_scan(stats))
    assert pool.scan is not None
    assert (pool.scan.kind, pool.scan.state, pool.scan.percent) == (
        ScanKind.RESILVER,
        ScanState.RUNNING,
        25.0,
    )


@pytest.mark.parametrize("text", ["", "[]", "{}", '{"pools": 3}'])
def test_not_zpool_json(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_status_json(text)


def test_unreadable_pool_entry_is_kept_with_a_note() -> None:
    (pool,) = parse_zpool_status_json('{"pools": {"t": {"name": "t", "state": "DEGRADED"}}}')
    assert (pool.name, pool.state) == ("t", PoolState.DEGRADED)
    assert pool.notes == ("zpool status -j: pool t: no root vdev for pool t",)


def test_removal_and_expansion_stats() -> None:
    """`removal_stats` / `raidz_expand_stats` with the fields zpool_main.c's
    `removal_stats_nvlist` and `raidz_expand_stats_nvlist` print (no capture has them yet)."""
    removal = {"name": "mirror-1", "state": "SCANNING", "removing_vdev": 1,
               "start_time": 1702502285, "end_time": 0, "to_copy": 1000, "copied": 250,
               "mapping_memory": 4096}  # fmt: skip
    expand = {"name": "raidz2-0", "state": "FINISHED", "expanding_vdev": 0,
              "start_time": 1746969186, "end_time": 1746969323, "to_reflow": 944,
              "reflowed": 944, "waiting_for_resilver": 0}  # fmt: skip
    text = with_scan({}, removal_stats=removal, raidz_expand_stats=expand)
    (pool,) = parse_zpool_status_json(text)
    change = pool.layout_change
    assert change is not None
    assert (change.kind, change.state, change.percent) == (
        ScanKind.REMOVE,
        ScanState.RUNNING,
        25.0,
    )
    assert change.started_at == 1702502285 and pool.notes == ()


def test_unreadable_scan_keeps_the_tree() -> None:
    (pool,) = parse_zpool_status_json(with_scan("garbage"))  # type: ignore[arg-type]
    assert pool.scan is None and pool.root.children
    assert pool.notes == ("zpool status -j: scan of tank: scan_stats is not an object",)
