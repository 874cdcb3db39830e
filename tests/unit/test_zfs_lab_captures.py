"""OpenZFS 2.3.2's `zpool status -j` and text, captured in the lab at the same moments
(tests/fixtures/zpool/lab, made by `make lab`): nastui's two parsers read each pair the same,
and the JSON as zpool meant it (a scrub running and paused, then errors in files, CKSUM on
every disk of the raidz2 and one disk offline). OpenZFS 2.1.11's text of the same three
moments (`make lab-full`) reads as zpool printed it, checked by the lab's own reading."""

from __future__ import annotations

import pytest

from nastui.collectors.zfs.json_status import parse_zpool_status_json
from nastui.collectors.zfs.text import parse_zpool_status_report
from nastui.model import PoolState, ScanKind, ScanState
from tests.conftest import FIXTURES
from tests.lab import zfs_truth
from tests.lab.zfs_scenario import assert_same_reading

LAB = FIXTURES / "zpool" / "lab"
MOMENTS = ("running", "paused", "errors-degraded")


def _pair(moment: str) -> tuple[str, str]:
    text = (LAB / f"zpool_status_-p_-v__2.3.2_{moment}.txt").read_text()
    document = (LAB / f"zpool_status_-j_--json-int_-v__2.3.2_{moment}.json").read_text()
    return text, document


@pytest.mark.parametrize("moment", MOMENTS)
def test_text_and_json_read_the_same(moment: str) -> None:
    assert_same_reading(*_pair(moment))


def test_the_json_as_zpool_meant_it() -> None:
    (running,) = parse_zpool_status_json(_pair("running")[1])
    assert running.scan is not None
    assert (running.scan.kind, running.scan.state) == (ScanKind.SCRUB, ScanState.RUNNING)
    (paused,) = parse_zpool_status_json(_pair("paused")[1])
    assert paused.scan is not None and paused.scan.state is ScanState.PAUSED
    (broken,) = parse_zpool_status_json(_pair("errors-degraded")[1])
    assert broken.state is PoolState.DEGRADED
    assert broken.error_files == ("/tank/f2", "/tank/f6")
    leaves = {leaf.name[-4:]: leaf for leaf in broken.root.leaves}
    assert [leaves[n].checksum_errors for n in ("0007", "0008", "0012")] == [331, 131, 131]
    assert leaves["0012"].state is PoolState.OFFLINE
    assert broken.last_scrub is not None and broken.last_scrub.errors == 65


@pytest.mark.parametrize("moment", MOMENTS)
def test_2_1_text_reads_as_zpool_printed_it(moment: str) -> None:
    text = (LAB / f"zpool_status_-p_-v__2.1.11_{moment}.txt").read_text()
    truth = zfs_truth.from_text(text)
    (pool,), stray = parse_zpool_status_report(text)
    assert not stray and not pool.notes
    assert pool.state.value == truth.state
    assert pool.error_files == truth.files
    assert {leaf.name: leaf.checksum_errors for leaf in pool.root.leaves} == {
        name: leaf.cksum for name, leaf in truth.leaves.items()
    }
    assert pool.scan is not None and pool.scan.state.value == truth.scan_state
    if truth.percent is not None:
        assert pool.scan.percent == pytest.approx(truth.percent, abs=0.01)
