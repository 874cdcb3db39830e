"""A simulated NVMe drive inserted in a swap has a health log of its own: none of the replaced
drive's media errors, wear or warnings (it copied them, and a new drive showed the old one's
media errors), and an NVMe drive's names."""

from __future__ import annotations

import dataclasses

import pytest

from nastui.model import HostSnapshot, NvmeHealth
from nastui.sim.backend import SimBackend
from nastui.sim.clock import FakeClock
from nastui.sim.hands import Hand, Hands
from nastui.sim.swap import apply_hands, new_serial

WORN = NvmeHealth(
    critical_warning=4,
    percentage_used=97,
    available_spare=3,
    available_spare_threshold=10,
    media_errors=51,
    unsafe_shutdowns=88,
    power_on_hours=40_000,
    data_units_written=900_000_000,
    error_log_entries=1_200,
)


def _box_with_a_worn_nvme_in_bay(bay: int) -> tuple[HostSnapshot, str]:
    snapshot = SimBackend(clock=FakeClock()).snapshot()
    key = next(s.drive for s in snapshot.slots if s.bay == bay)
    assert key is not None
    drives = tuple(
        dataclasses.replace(d, dev="nvme0n1", nvme=WORN) if d.key == key else d
        for d in snapshot.drives
    )
    return dataclasses.replace(snapshot, drives=drives), key


@pytest.mark.parametrize("variant", ["new", "used"])
def test_an_inserted_nvme_drive_has_its_own_health_log(variant: str) -> None:
    snapshot, old = _box_with_a_worn_nvme_in_bay(3)
    at = snapshot.taken_at - 7200
    hands = Hands((Hand("pull", at, 3), Hand("insert", at, 3, variant=variant, like=old)))
    after = apply_hands(snapshot, hands)
    new = next(d for d in after.drives if d.identity.serial == new_serial(3, variant, 0))
    log = new.nvme
    assert log is not None
    assert (log.critical_warning, log.media_errors, log.error_log_entries) == (0, 0, 0)
    assert log.available_spare == 100 and log.available_spare_threshold == 10
    assert log.percentage_used is not None and log.percentage_used < 10
    assert log.power_on_hours == new.power_on_hours
    assert new.dev.startswith("nvme") and new.by_id[0].startswith("nvme-")
    assert all(p.startswith(f"{new.dev}p") for p in new.partitions)
    put_back = Hands((*hands.done[:1], Hand("insert", at, 3, variant="old", like=old)))
    assert next(d for d in apply_hands(snapshot, put_back).drives if d.key == old).nvme == WORN
