"""Scenario 4: SMART on the six AHCI bays, as QEMU's ATA emulation answers smartctl.

- one bay put to sleep with `hdparm -y` first; then one `nastui drives --json` between two
  rounds of `smartctl -j -x` and `hdparm -C`: identity, attributes, temperature and verdict as
  smartctl reads them, each drive in its bay, the sleeping one left asleep (`wakeups` 0);
- `nastui selftest start BAY` runs a real short self-test (a new entry in the drive's log);
- `nastui daemon --once` starts the schedule's due tests (every drive: none was ever tested)
  and `nastui selftest status --json` reads their results as smartctl's log has them.

What QEMU emulates (recorded in the README's lab section): SMART attributes 1 3 4 5 9 12 190,
the self-test log (a test completes at once), and the power mode as QEMU keeps it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.lab.guest import Guest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]
ATA_BAYS = tuple(range(1, 7))
ASLEEP = 2


def _smart_truth() -> dict[str, str]:
    reads = {f"bay{b}": f"smartctl -j -x $(bay_dev {b})" for b in ATA_BAYS}
    reads["power"] = f"hdparm -C $(bay_dev {ASLEEP})"
    return reads


def _selftests(report: dict[str, Any]) -> list[dict[str, Any]]:
    table = report.get("ata_smart_self_test_log", {}).get("standard", {}).get("table", [])
    return list(table)


def _power(hdparm: str) -> str:
    found = re.search(r"drive state is:\s+(.+)", hdparm)
    assert found, hdparm
    return found[1].strip()


@pytest.fixture(scope="module")
def ata(lab: Guest) -> dict[int, str]:
    """Each AHCI bay's kernel name; bay 2 sent to standby."""
    lab.refill()
    result = lab.sh(
        f"""
        lab_reset
        for bay in {" ".join(map(str, ATA_BAYS))}; do
            echo "bay $bay $(basename $(bay_dev $bay))"
        done
        hdparm -y $(bay_dev {ASLEEP})
        hdparm -C $(bay_dev {ASLEEP})
        smartctl -n standby -i $(bay_dev {ASLEEP}) >/dev/null; echo "smartctl -n standby exit $?"
        """
    )
    return {int(b): dev for b, dev in re.findall(r"^bay (\d+) (\S+)$", result.out, re.M)}


def test_identity_attributes_temperature_and_standby(lab: Guest, ata: dict[int, str]) -> None:
    moment = lab.moment(_smart_truth(), "drives --json")
    assert moment.nastui.rc == 0, moment.nastui
    data = moment.nastui.json()
    assert data["wakeups"] == 0, data["wakeups"]
    drives = {d["dev"]: d for d in data["drives"]}
    power = (_power(moment.before["power"]), _power(moment.after["power"]))
    assert power[0] == power[1], f"nastui changed the power mode: {power}"
    for bay, dev in ata.items():
        truth = json.loads(moment.before[f"bay{bay}"])
        later = json.loads(moment.after[f"bay{bay}"])
        drive = drives[dev]
        assert drive["bay"] == bay, drive
        assert drive["serial"] == truth["serial_number"], (drive, truth["serial_number"])
        assert drive["model"] == truth["model_name"], drive
        assert drive["firmware"] == truth["firmware_version"], drive
        assert drive["capacity_bytes"] == truth["user_capacity"]["bytes"], drive
        assert drive["rpm"] == truth.get("rotation_rate"), drive
        assert drive["smart_passed"] is truth["smart_status"]["passed"], drive
        hours = sorted((truth["power_on_time"]["hours"], later["power_on_time"]["hours"]))
        assert hours[0] <= drive["power_on_hours"] <= hours[1], (drive, hours)
        temps = sorted((truth["temperature"]["current"], later["temperature"]["current"]))
        assert temps[0] <= drive["temperature_c"] <= temps[1], (drive, temps)
        assert drive["health"] == "OK", drive
        assert drive["wakeups"] == 0, drive
    asleep = drives[ata[ASLEEP]]
    if "standby" in power[0]:
        assert asleep["power"] == "standby", asleep
    else:  # QEMU answered CHECK POWER MODE with active/idle: nastui must say the same
        assert asleep["power"] in ("active", "idle", "active/idle"), (asleep, power)


def test_selftest_by_hand_and_by_the_daemon(lab: Guest, ata: dict[int, str]) -> None:
    def logs() -> dict[int, list[dict[str, Any]]]:
        out = lab.sh(
            "".join(f"echo '#{b}'; smartctl -j -l selftest $(bay_dev {b})\n" for b in ATA_BAYS)
        ).out
        parts = re.split(r"^#(\d+)$", out, flags=re.M)[1:]
        return {
            int(parts[i]): _selftests(json.loads(parts[i + 1])) for i in range(0, len(parts), 2)
        }

    before = logs()
    started = lab.sh("nastui selftest start 1", check=False)
    assert started.rc == 0, started
    assert "short self-test started" in started.out, started
    after_hand = logs()
    assert len(after_hand[1]) == len(before[1]) + 1, (before[1], after_hand[1])
    assert after_hand[1][0]["type"]["string"].lower().startswith("short"), after_hand[1][0]

    daemon = lab.sh("nastui daemon --once --no-notify", check=False, timeout=600)
    assert daemon.rc == 0, daemon
    assert "unsupported scsi opcode" not in daemon.out + daemon.err, daemon  # virtual disks
    after_daemon = logs()
    tested = [b for b in ATA_BAYS if len(after_daemon[b]) > len(after_hand[b])]
    assert tested, f"the daemon started no self-test:\n{daemon}"
    assert ASLEEP not in tested or "standby" not in lab.sh(f"hdparm -C $(bay_dev {ASLEEP})").out

    status = lab.sh("nastui selftest status --json")
    pages = {d["dev"]: d for d in status.json()["drives"]}
    for bay in {1, *tested}:
        newest = after_daemon[bay][0]
        page = pages[ata[bay]]
        assert page["last_result"] is not None, (bay, page)
        assert page["last_result"]["passed"] is newest["status"]["passed"], (page, newest)
        assert newest["status"]["string"].lower() in page["last_result"]["status"].lower(), (
            page,
            newest,
        )
