"""Where drives sit: SES enclosure slots from a fake /sys/class/enclosure tree shaped like the
kernel's, controller tables from real storcli/sas2ircu/sas3ircu output (tests/fixtures/enclosure),
and the LED states the drive collector reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.collectors.drives import DriveCollector
from nastui.collectors.enclosure import enclosure_id, ses_slots, single_enclosure, slots_by_dev
from nastui.collectors.enclosure_controllers import (
    controller_slots,
    parse_ircu_display,
    parse_ircu_list,
    parse_storcli,
    storcli_argv,
)
from nastui.collectors.enclosure_leds import led_states
from nastui.collectors.runner import CommandResult
from nastui.config.presets import PRESETS
from nastui.core.layout import assign_bays, build_chassis
from nastui.core.statefiles import LedRecord
from nastui.model import EnclosureSlot, LedState, MappedBy
from nastui.model.errors import ParseError
from tests.conftest import FIXTURES
from tests.fakesys import SAS_PARENT, FakeDisk, add_enclosure, build

ENCLOSURE = FIXTURES / "enclosure"
NOW = 1_700_000_000.0


def sas_disk(dev: str, n: int, serial: str) -> FakeDisk:
    return FakeDisk(
        dev,
        SAS_PARENT.format(h=1, n=n),
        vendor="HGST",
        model="HUH721212AL4204",
        vpd_serial=serial,
        sas_address=f"0x5000cca25306662{n}",
    )


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    root = build(tmp_path / "root", [sas_disk("sdb", 3, "SERB"), sas_disk("sdc", 5, "SERC")])
    add_enclosure(root, {3: "sdb", 5: "sdc", 7: None}, lit=(5,))
    return root


def test_slots_are_found_by_the_device_link(shelf: Path) -> None:
    slots = ses_slots(shelf)
    assert [(s.slot.slot, s.slot.name) for s in slots] == [
        (3, "Slot03"),
        (5, "Slot05"),
        (7, "Slot07"),
    ]
    by_dev = slots_by_dev(shelf, slots, ["sdb", "sdc", "sdz"])
    assert sorted(by_dev) == ["sdb", "sdc"]
    sdc = by_dev["sdc"].slot
    assert sdc.ref == "500304801f3ae07f:5" and sdc.source == "ses"
    assert sdc.locate_path is not None
    assert sdc.locate_path == str(shelf / "sys/class/enclosure/1:0:24:0/Slot05/locate")
    assert sdc.sg_device == str(shelf / "dev/sg24")
    assert by_dev["sdc"].led is LedState.LOCATE and by_dev["sdb"].led is LedState.OFF


def test_an_enclosure_without_an_id_is_named_by_its_directory(tmp_path: Path) -> None:
    assert enclosure_id(tmp_path / "0:0:9:0") == "0:0:9:0"


async def test_the_collector_reports_slots_bays_and_leds(shelf: Path, tmp_path: Path) -> None:
    async def nothing(argv: tuple[str, ...], *, timeout: float) -> CommandResult:
        return CommandResult(tuple(argv), 127, "", "", 0.0, error=f"{argv[0]} not found")

    report = await DriveCollector(shelf, run=nothing, state_dir=tmp_path / "state").collect(NOW)
    drives = {d.dev: d for d in report.drives}
    assert drives["sdc"].slot is not None and drives["sdc"].slot.slot == 5
    assert drives["sdb"].sas_address == "0x5000cca253066623"
    assert report.enclosure_slots == {"SERB": "500304801f3ae07f:3", "SERC": "500304801f3ae07f:5"}
    assert report.located == {"SERB": (3, MappedBy.ENCLOSURE), "SERC": (5, MappedBy.ENCLOSURE)}
    assert report.leds == {3: LedState.OFF, 5: LedState.LOCATE}
    chassis = build_chassis(PRESETS["desktop-8"])
    slots = assign_bays(chassis, report.drives, located=report.located, leds=report.leds)
    placed = {s.bay: (s.drive, s.mapped_by, s.led) for s in slots if s.drive}
    assert placed == {
        3: ("SERB", MappedBy.ENCLOSURE, LedState.OFF),
        5: ("SERC", MappedBy.ENCLOSURE, LedState.LOCATE),
    }


def test_several_enclosures_place_nothing_by_themselves() -> None:
    one = {"A": EnclosureSlot("e1", 1), "B": EnclosureSlot("e1", 2)}
    two = {**one, "C": EnclosureSlot("e2", 1)}
    assert single_enclosure(one) and not single_enclosure(two)


def test_led_records_for_bays_ses_does_not_cover() -> None:
    records = [
        LedRecord(4, "D4", "sdd", "ledctl", NOW),
        LedRecord(5, "D5", "sde", "ses-sysfs", NOW),
        LedRecord(None, "D6", "sdf", "activity-blink", NOW, pid=1, until=NOW + 60),
    ]
    states = led_states(records, {5: LedState.OFF}, {"D6": 6})
    assert states == {4: LedState.LOCATE, 5: LedState.OFF, 6: LedState.BLINK}


def test_storcli_json() -> None:
    found = parse_storcli(
        (ENCLOSURE / "raid_controllers/netdata_storcli/megaraid-drives-info.json").read_text()
    )
    assert found["ZL2PVFA8"] == EnclosureSlot("252", 0, "storcli")
    assert {s.slot for s in found.values()} == {0, 1, 3, 4, 5, 7}
    assert (
        parse_storcli(
            (
                ENCLOSURE / "raid_controllers/netdata_storcli/mpt3sas-controllers-info.json"
            ).read_text()
        )
        == {}
    )
    with pytest.raises(ParseError, match=r"^storcli /call/eall/sall show all J: not valid JSON"):
        parse_storcli("Controller not found")
    assert storcli_argv("storcli64") == ("storcli64", "/call/eall/sall", "show", "all", "J")


def test_sas2ircu_and_sas3ircu() -> None:
    two = parse_ircu_display(
        (ENCLOSURE / "raid_controllers/canonical_phe/sas2ircu__display_has_volume.txt").read_text(),
        "sas2ircu",
    )
    assert two == {
        "9XF3RK3W": EnclosureSlot("1", 0, "sas2ircu"),
        "9XF3QNC7": EnclosureSlot("1", 1, "sas2ircu"),
    }
    three = parse_ircu_display(
        (ENCLOSURE / "raid_controllers/canonical_phe/sas3ircu__display_no_volume.txt").read_text(),
        "sas3ircu",
        1,
    )
    assert three["BNA7N5994ICB47T3V"] == EnclosureSlot("c1.1", 0, "sas3ircu")
    assert len(three) == 2  # the enclosure services device in slot 10 is not a drive
    assert parse_ircu_list(
        (ENCLOSURE / "raid_controllers/canonical_phe/sas2ircu__list.txt").read_text()
    ) == [0, 1]
    with pytest.raises(ParseError, match="Physical device information"):
        parse_ircu_display("SAS2IRCU: No Controllers Found.", "sas2ircu")


async def test_controller_tools_are_asked_only_when_installed() -> None:
    listing = (ENCLOSURE / "raid_controllers/canonical_phe/sas3ircu__list.txt").read_text()
    display = (
        ENCLOSURE / "raid_controllers/canonical_phe/sas3ircu__display_no_volume.txt"
    ).read_text()
    asked: list[tuple[str, ...]] = []

    async def tools(argv: tuple[str, ...], *, timeout: float) -> CommandResult:
        asked.append(tuple(argv))
        if argv[0] != "sas3ircu":
            return CommandResult(tuple(argv), 127, "", "", 0.0, error=f"{argv[0]} not found")
        return CommandResult(tuple(argv), 0, listing if argv[1] == "LIST" else display, "", 0.1)

    found = await controller_slots(tools, timeout=5)
    assert set(found) == {"BNA7N5994ICB47T3V", "BNA7N5994ICB47T3S"}
    assert ("sas3ircu", "0", "DISPLAY") in asked and ("sas3ircu", "1", "DISPLAY") in asked
    assert ("storcli64", "/call/eall/sall", "show", "all", "J") in asked
