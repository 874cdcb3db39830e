"""OpenZFS 2.3.2's `zpool status -j` and text, captured in the lab at the same moments
(tests/fixtures/zpool/lab, made by `make lab`): nastui's two parsers read each pair the same,
and the JSON as zpool meant it (a scrub running and paused, then errors in files, CKSUM on
every disk of the raidz2 and one disk offline)."""

from __future__ import annotations

import pytest

from nastui.collectors.zfs.json_status import parse_zpool_status_json
from nastui.model import PoolState, ScanKind, ScanState
from tests.conftest import FIXTURES
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
