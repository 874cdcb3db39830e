"""Scenario 1: ZFS raidz2 on six bays under the guest's real OpenZFS (2.3 from backports).

- a scrub started, paused and stopped through nastui (libzfs_core through Debian's pyzfs, and
  `zpool scrub` without it), the method it reports checked against `zpool history` (a
  libzfs_core call leaves no `zpool scrub` line there);
- the scrub read while it runs (the bays' reads throttled through QMP like slow disks), paused,
  finished;
- corruption written from the host into the disk images while the pool is exported: one disk's
  sectors (repaired, CKSUM counts) and the same sectors of three disks (more than raidz2 can
  rebuild: permanent errors with file names), and a disk offlined (DEGRADED), all in one read;
- `zpool status -j` and the text read the same way by nastui's two parsers.

The steps live in tests/lab/zfs_scenario.py; `make lab-full` runs them on OpenZFS 2.1 too.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.lab import zfs_scenario as z
from tests.lab.guest import Guest, Moment

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]
MOMENTS: list[Moment] = []


@pytest.fixture(scope="module")
def box(lab: Guest) -> Iterator[z.ZfsBox]:
    built = z.build(lab)
    assert built.has_json, f"OpenZFS {built.version}: `make lab` wants 2.3+ (bookworm-backports)"
    yield built
    for bay in z.BAYS:
        lab.throttle(bay)


def test_scrub_start_pause_stop_through_nastui(lab: Guest, box: z.ZfsBox) -> None:
    z.scrub_through_nastui(lab, box, MOMENTS)


def test_errors_files_and_degraded(lab: Guest, box: z.ZfsBox) -> None:
    z.errors_files_degraded(lab, box, MOMENTS)


def test_json_and_text_read_the_same(box: z.ZfsBox) -> None:
    z.json_and_text_agree(MOMENTS)
