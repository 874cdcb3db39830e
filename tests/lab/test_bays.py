"""Scenario 5: bays bound by `/dev/disk/by-path` (the controller port is the bay).

The lab's configuration binds all twelve bays by path. QMP pulls the disk in bay 8: `nastui
bays --json` shows the bay missing (it expects a drive there) while udev has dropped the link;
a new disk inserted at the same SCSI target is in bay 8 at once, under its new serial, with no
change to the configuration. `nastui config init` on this box proposes exactly these bindings:
one per port, numbered in port order, which is the lab's numbering.
"""

from __future__ import annotations

import re

import pytest

from tests.lab.conftest import bay_path
from tests.lab.guest import Guest

pytestmark = [pytest.mark.integration, pytest.mark.full, pytest.mark.timeout(1800)]
BAY = 8


def _bays(lab: Guest) -> dict[int, dict[str, object]]:
    result = lab.sh("nastui bays --json", check=False)
    assert result.rc == 0, result
    return {b["bay"]: b for b in result.json()["bays"]}


def test_config_init_proposes_the_ports(lab: Guest) -> None:
    lab.refill()
    result = lab.sh("lab_reset; nastui config init -")
    proposed = re.findall(r'^#bay = (\d+)\n#by_path = "([^"]+)"', result.out, re.M)
    assert [(int(n), path) for n, path in proposed] == [
        (bay, bay_path(bay)) for bay in range(1, 13)
    ], result.out


def test_a_bay_bound_by_path_survives_a_pull_and_an_insert(lab: Guest) -> None:
    old = lab.slots[BAY].serial
    lab.pull(BAY)
    links = lab.sh(f"udevadm settle; ls $(dirname $(bay_path {BAY}))").out
    assert bay_path(BAY) not in links, links
    bays = _bays(lab)
    assert bays[BAY]["drive"] is None and bays[BAY]["state"] == "MISSING", bays[BAY]
    new = f"LABBAY{BAY:04d}"
    lab.insert(BAY, new)
    lab.sh("udevadm settle")
    bays = _bays(lab)
    drive = bays[BAY]["drive"]
    assert isinstance(drive, dict) and drive["serial"] == new, bays[BAY]
    assert bays[BAY]["mapped_by"] == "by-path", bays[BAY]
    assert old != new
