"""Scenario 1 on OpenZFS 2.1.11 (bookworm's module and userland, `make lab-full`): no
`zpool status -j` (nastui reads the text, the 2.1 format of the scan lines), no `lzc_scrub` in
libzfs_core (every scrub action through `zpool scrub`, and nastui says so).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.lab import zfs_scenario as z
from tests.lab.guest import Guest, Moment

pytestmark = [pytest.mark.integration, pytest.mark.full, pytest.mark.timeout(1800)]
MOMENTS: list[Moment] = []


@pytest.fixture(scope="module")
def box(lab21: Guest) -> Iterator[z.ZfsBox]:
    built = z.build(lab21)
    assert built.version == (2, 1) and not built.has_json, built
    yield built
    for bay in z.BAYS:
        lab21.throttle(bay)


def test_scrub_start_pause_stop_through_nastui_2_1(lab21: Guest, box: z.ZfsBox) -> None:
    z.scrub_through_nastui(lab21, box, MOMENTS)


def test_errors_files_and_degraded_2_1(lab21: Guest, box: z.ZfsBox) -> None:
    z.errors_files_degraded(lab21, box, MOMENTS)
