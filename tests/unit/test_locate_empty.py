"""Putting out the locate LED of a bay whose drive was pulled with the LED lit, from the record
of what lit it: on a fake /sys enclosure tree, exactly the recorded slot's `locate` file is
written (the rest of the tree checksummed before and after), `sg_ses` by the recorded slot
number, and nothing at all for an old record, a FIFO, a missing or moved slot, a tampered
record or a bay with no record (one line each, saying the fix)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from pathlib import Path

import pytest

from nastui.collectors.drives import DriveCollector
from nastui.control.blink import Blinker
from nastui.control.locate_empty import nothing_recorded
from nastui.control.locate_ladder import LadderLocator
from nastui.control.locate_rungs import LEDCTL, SES, SG_SES
from nastui.control.locate_state import LedBook, boot_id
from nastui.core.statefiles import BLINK, LEDS_FILE, LedRecord, decode_leds
from nastui.model import BaySlot, LedState
from tests.ledbox import (
    NOW,
    OK,
    FakeTools,
    captured,
    ladder,
    led_tree,
    locate_file,
    pull,
    snapshot_of,
    tree_digest,
)

EMPTY_3 = (BaySlot(3, None),)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return led_tree(tmp_path)


async def lit_then_pulled(
    root: Path, tmp_path: Path, tools: FakeTools, method: str | None = None, dev: str = "sdb"
) -> LadderLocator:
    """Light the bay of `dev` (by `method`, else the ladder), then pull `dev`: the locator as
    the next poll sees the box, the bay empty."""
    before = await snapshot_of(root, tmp_path)
    drive = before.drive(dev)
    assert drive is not None
    bay = before.bay_of(drive.key)
    lit = await ladder(root, tmp_path, before, tools).locate_drive(drive, bay, True, method)
    assert lit.ok, lit.message
    pull(root, dev)
    after = await snapshot_of(root, tmp_path, extra=(BaySlot(bay, None),) if bay else ())
    assert after.drive(dev) is None
    return ladder(root, tmp_path, after, tools)


def records(tmp_path: Path) -> list[LedRecord]:
    return LedBook(tmp_path / "state").records()


async def test_an_empty_bays_led_goes_out_in_its_recorded_slot_and_nowhere_else(
    root: Path, tmp_path: Path
) -> None:
    tools = FakeTools({})
    locator = await lit_then_pulled(root, tmp_path, tools)
    slot = locate_file(root, 3)
    assert slot.read_text() == "1\n"
    (record,) = records(tmp_path)
    assert (record.method, record.slot_path, record.enclosure) == (
        SES, str(slot), "500304801f3ae07f",
    )  # fmt: skip
    collector = DriveCollector(root, run=FakeTools({}), state_dir=tmp_path / "state")
    report = await collector.collect(NOW)
    assert report.leds[3] is LedState.LOCATE  # still shown lit: the interface's key puts it out
    rest = tree_digest(root, skip=(slot,))
    off = await locator.locate(3, False)
    assert off.ok and off.method == SES, off.message
    assert off.message == (
        f"bay 3 (empty): locate off (SES slot of enclosure 500304801f3ae07f: {slot})"
    )
    assert slot.read_text() == "0\n"
    assert tree_digest(root, skip=(slot,)) == rest  # no other file, link or directory changed
    assert tools.argv == [] and records(tmp_path) == []
    again = await locator.locate(3, False)  # nothing on record any more
    assert not again.ok and again.message == nothing_recorded(3)


async def test_ledctl_on_a_drive_in_an_ses_slot_is_put_out_through_that_slot(
    root: Path, tmp_path: Path
) -> None:
    """ledctl addresses an LED only through its drive; the slot the drive sat in is kept."""
    tools = FakeTools({"ledctl": OK})
    locator = await lit_then_pulled(root, tmp_path, tools, LEDCTL)
    slot = locate_file(root, 3)
    slot.write_text("1\n")  # what ledctl's ses_ident did
    rest = tree_digest(root, skip=(slot,))
    off = await locator.locate(3, False)
    assert off.ok and off.method == LEDCTL and slot.read_text() == "0\n"
    assert tree_digest(root, skip=(slot,)) == rest
    assert [a[0] for a in tools.argv] == ["ledctl"]  # the light only: no ledctl for the off


async def test_sg_ses_is_put_out_by_the_recorded_slot_number(root: Path, tmp_path: Path) -> None:
    tools = FakeTools({"sg_ses": OK})
    locator = await lit_then_pulled(root, tmp_path, tools, SG_SES)
    sg = str(root / "dev/sg24")
    frozen = tree_digest(root)
    off = await locator.locate(3, False)
    assert off.ok and off.method == SG_SES, off.message
    assert tools.argv == [
        ("sg_ses", "--dev-slot-num=3", "--set=ident", sg),
        ("sg_ses", "--dev-slot-num=3", "--clear=ident", sg),
    ]
    assert tree_digest(root) == frozen and records(tmp_path) == []


async def test_an_sg_device_now_of_another_enclosure_is_not_addressed(
    root: Path, tmp_path: Path
) -> None:
    tools = FakeTools({"sg_ses": OK})
    locator = await lit_then_pulled(root, tmp_path, tools, SG_SES)
    ident = root / "sys/class/scsi_generic/sg24/device/enclosure/1:0:24:0/id"
    ident.write_text("0x5000000000000001\n")  # renumbered: sg24 is another shelf now
    off = await locator.locate(3, False)
    assert not off.ok and "\n" not in off.message
    assert "is no longer enclosure 500304801f3ae07f's: not addressed" in off.message
    assert off.message.endswith(
        "run `sg_ses --dev-slot-num=3 --clear=ident /dev/sgM` on enclosure 500304801f3ae07f "
        "(`sg_ses --page=aes /dev/sgM` lists its slots)"
    )  # the fix by hand
    assert len(tools.argv) == 1 and len(records(tmp_path)) == 1  # only the light ran


async def test_sg_ses_failing_on_a_bay_no_longer_laid_out_says_why(
    root: Path, tmp_path: Path
) -> None:
    """A bay known only by its enclosure slot leaves the snapshot with its drive: its record
    still names it. sg_ses refusing (a real captured failure) is one line; the record stays."""
    tools = FakeTools({"sg_ses": OK})
    await lit_then_pulled(root, tmp_path, tools, SG_SES)
    tools.answers["sg_ses"] = captured("sg_ses-not-permitted")
    snap = await snapshot_of(root, tmp_path)
    assert snap.slot(3) is None
    off = await ladder(root, tmp_path, snap, tools).locate(3, False)
    assert not off.ok and "\n" not in off.message
    assert off.message.startswith("bay 3 (empty): sg_ses lit its LED; ")
    assert tools.argv[-1] == ("sg_ses", "--dev-slot-num=3", "--clear=ident", str(root / "dev/sg24"))
    assert len(records(tmp_path)) == 1


def old_format(tmp_path: Path, record: dict[str, object]) -> None:
    """`leds.json` as nastui wrote it before records kept the slot's address."""
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    text = json.dumps({"version": 1, "boot_id": boot_id(), "leds": [record]})
    (state / LEDS_FILE).write_text(text)


@pytest.mark.parametrize(
    ("method", "target", "fix"),
    [
        (
            SES,
            "SES slot Slot03 of enclosure 500304801f3ae07f: {slot}",
            "write 0 to its slot file by hand: `echo 0 > {slot}`",
        ),
        (
            SG_SES,
            "sg_ses --dev-slot-num=3 --set=ident {sg}",
            "run `sg_ses --dev-slot-num=3 --clear=ident {sg}`",
        ),
        (
            LEDCTL,
            "ledctl locate={dev}",
            "or with ledmon 1.0 or later `ledctl --set-slot --controller-type=TYPE --slot=SLOT "
            "--state=locate_off`",
        ),
    ],
)
async def test_an_old_record_without_the_slot_address_says_the_fix(
    root: Path, tmp_path: Path, method: str, target: str, fix: str
) -> None:
    names = {"slot": locate_file(root, 3), "sg": root / "dev/sg24", "dev": root / "dev/sdb"}
    locate_file(root, 3).write_text("1\n")
    old_format(
        tmp_path,
        {"bay": 3, "drive": "SERB", "dev": "sdb", "method": method, "since": NOW,
         "pid": None, "until": None, "target": target.format(**names)},
    )  # fmt: skip
    (record,) = records(tmp_path)  # the old format still reads
    assert (record.slot_path, record.enclosure, record.sg_device, record.slot_number) == (
        None, None, None, None,
    )  # fmt: skip
    pull(root, "sdb")
    snap = await snapshot_of(root, tmp_path, extra=EMPTY_3)
    tools = FakeTools({"sg_ses": OK, "ledctl": OK})
    frozen = tree_digest(root)
    off = await ladder(root, tmp_path, snap, tools).locate(3, False)
    assert not off.ok and "\n" not in off.message
    assert off.message.startswith(f"bay 3 (empty): {method} lit its LED; ")
    assert fix.format(**names) in off.message
    assert tree_digest(root) == frozen and tools.argv == []
    assert len(records(tmp_path)) == 1  # still lit as far as anyone knows: still shown


@pytest.mark.parametrize("spoil", ["fifo", "missing", "directory", "link"])
async def test_a_slot_file_that_is_not_one_fails_safe_in_one_line(
    root: Path, tmp_path: Path, spoil: str
) -> None:
    locator = await lit_then_pulled(root, tmp_path, FakeTools({}))
    slot = locate_file(root, 3)
    slot.unlink()
    if spoil == "fifo":
        os.mkfifo(slot)  # an open for writing would wait for a reader
    elif spoil == "directory":
        slot.mkdir()
    elif spoil == "link":
        slot.symlink_to(locate_file(root, 4))  # a link to the neighbour's LED
    frozen = tree_digest(root)
    off = await asyncio.wait_for(locator.locate(3, False), 10)
    assert not off.ok and off.method == "none" and "\n" not in off.message
    why = {
        "fifo": f"{slot} is a FIFO, not a regular file",
        "missing": f"{slot}: No such file or directory",
        "directory": f"{slot} is a directory, not a regular file",
        "link": f"{slot} is a symbolic link, not a regular file",
    }[spoil]
    assert off.message == (
        f"bay 3 (empty): ses-sysfs lit its LED; {why}: not written; write 0 to the bay's slot "
        "file by hand (/sys/class/enclosure/*/SLOT/locate)"
    )
    assert tree_digest(root) == frozen and locate_file(root, 4).read_text() == "0\n"
    assert len(records(tmp_path)) == 1


async def test_a_record_pointing_outside_the_enclosures_is_never_written(
    root: Path, tmp_path: Path
) -> None:
    locator = await lit_then_pulled(root, tmp_path, FakeTools({}))
    (record,) = records(tmp_path)
    victim = root / "etc/locate"
    victim.parent.mkdir()
    victim.write_text("precious\n")
    for path in (victim, root / "sys/class/enclosure/1:0:24:0/Slot03/../Slot04/locate"):
        LedBook(tmp_path / "state").keep(dataclasses.replace(record, slot_path=str(path)))
        frozen = tree_digest(root)
        off = await locator.locate(3, False)
        assert not off.ok and "is not an enclosure slot's locate file: not written" in off.message
        assert tree_digest(root) == frozen


async def test_another_enclosure_at_the_recorded_address_is_not_written(
    root: Path, tmp_path: Path
) -> None:
    locator = await lit_then_pulled(root, tmp_path, FakeTools({}))
    (root / "sys/class/enclosure/1:0:24:0/id").write_text("0x5000000000000001\n")
    frozen = tree_digest(root)
    off = await locator.locate(3, False)
    assert not off.ok and "is no longer enclosure 500304801f3ae07f: not written" in off.message
    assert tree_digest(root) == frozen


async def test_an_unaddressable_ledctl_record_says_so_in_one_line(
    root: Path, tmp_path: Path
) -> None:
    """sdc sat in no enclosure slot: ledctl could only reach its LED through it."""
    tools = FakeTools({"ledctl": OK})
    locator = await lit_then_pulled(root, tmp_path, tools, LEDCTL, dev="sdc")
    frozen = tree_digest(root)
    off = await locator.locate(5, False)
    assert not off.ok and "\n" not in off.message
    assert off.message.startswith(
        "bay 5 (empty): ledctl lit its LED; ledctl reaches an LED only through its drive (sdc), "
        "and no enclosure slot of it is on record; put a drive in the bay and run "
        "`nastui locate BAY --off`"
    )
    assert tree_digest(root) == frozen and len(tools.argv) == 1


async def test_no_record_and_no_drive_is_nothing_to_turn_off(root: Path, tmp_path: Path) -> None:
    snap = await snapshot_of(root, tmp_path, extra=(BaySlot(4, None),))
    frozen = tree_digest(root)
    off = await ladder(root, tmp_path, snap, FakeTools({})).locate(4, False)
    assert (off.ok, off.method) == (False, "none")
    assert off.message == (
        "bay 4: no drive in it and no locate LED lit by nastui on record: nothing to turn off "
        "as far as nastui knows; check the enclosure's slot "
        "(`cat /sys/class/enclosure/*/SLOT/locate`, or `sg_ses --page=aes /dev/sgN`)"
    )
    assert tree_digest(root) == frozen
    on = await ladder(root, tmp_path, snap, FakeTools({})).locate(4, True)
    assert not on.ok and "no drive in it: nothing to locate" in on.message


async def test_a_different_drive_in_the_bay_takes_the_normal_path(
    root: Path, tmp_path: Path
) -> None:
    """The old drive's record says slot 3; a new drive is in slot 3 now: the LED is put out
    through the new drive, by the ladder, and the old drive's record of that bay goes too."""
    await lit_then_pulled(root, tmp_path, FakeTools({}))
    link = root / "sys/class/enclosure/1:0:24:0/Slot03/device"
    link.symlink_to((root / "sys/block/sdc/device").resolve())  # sdc moved into slot 3
    snap = await snapshot_of(root, tmp_path)
    assert snap.slot(3) is not None and snap.slot(3).drive == "SERC"  # type: ignore[union-attr]
    off = await ladder(root, tmp_path, snap, FakeTools({})).locate(3, False)
    assert off.ok and off.message.startswith("bay 3 sdc: locate off (SES slot Slot03")
    assert locate_file(root, 3).read_text() == "0\n" and records(tmp_path) == []


async def test_an_activity_blink_record_of_a_pulled_drive_is_dropped(
    root: Path, tmp_path: Path
) -> None:
    blinker = Blinker(chunk=65536)
    snap = await snapshot_of(root, tmp_path)
    sdc = snap.drive("SERC")
    assert sdc is not None
    locator = ladder(root, tmp_path, snap, FakeTools({}), blinker=blinker, blink_seconds=30)
    assert (await locator.locate_drive(sdc, 5, True, BLINK)).ok
    pull(root, "sdc")
    after = await snapshot_of(root, tmp_path, extra=(BaySlot(5, None),))
    empty = ladder(root, tmp_path, after, FakeTools({}), blinker=blinker)
    frozen = tree_digest(root)
    off = await empty.locate(5, False)
    assert off.ok and off.method == BLINK and blinker.active is None
    assert off.message == (
        "bay 5 (empty): locate off (an activity blink needs its drive to read from: nothing lit)"
    )
    assert records(tmp_path) == [] and tree_digest(root) == frozen


def test_a_damaged_address_degrades_to_none_and_keeps_the_record() -> None:
    row = {"bay": 3, "drive": "SERB", "dev": "sdb", "method": SES, "since": NOW,
           "slot_path": 5, "enclosure": ["x"], "sg_device": "/dev/sg2", "slot_number": True,
           "future_field": 1}  # fmt: skip
    (record,) = decode_leds(json.dumps({"version": 1, "leds": [row]}), None)
    assert (record.slot_path, record.enclosure, record.sg_device, record.slot_number) == (
        None, None, "/dev/sg2", None,
    )  # fmt: skip


async def test_a_swap_aborted_after_the_pull_puts_out_its_bay(root: Path, tmp_path: Path) -> None:
    """The swap lit bay 3 through its old drive; the drive is pulled, then the swap aborted:
    the abort's LED cleanup puts out the empty bay through the record, not "left lit"."""
    from typing import cast

    from nastui.session import Session
    from nastui.swap.flow.box import Box, switch_led
    from nastui.swap.io.store import SwapStore
    from nastui.swap.logic.state import DriveRef, Swap, SwapPhase

    before = await snapshot_of(root, tmp_path)
    old = before.drive("SERB")
    assert old is not None
    shown = [before]
    locator = LadderLocator(
        root, run=FakeTools({}), latest=lambda: shown[0], state_dir=tmp_path / "state"
    )
    session = cast(Session, type("S", (), {"locator": locator})())
    store = SwapStore(tmp_path / "swap")
    swap = Swap(
        "box", SwapPhase.PREPARED, False, DriveRef.of(old, 3, None), None, None, None, None,
        (), (), (), NOW,
    )  # fmt: skip
    swap = await switch_led(Box(session, before, store), swap, True)
    assert swap.led and locate_file(root, 3).read_text() == "1\n"
    pull(root, "sdb")
    shown[0] = await snapshot_of(root, tmp_path, extra=EMPTY_3)
    rest = tree_digest(root, skip=(locate_file(root, 3),))
    swap = await switch_led(Box(session, shown[0], store), swap, False)
    assert not swap.led and locate_file(root, 3).read_text() == "0\n"
    assert swap.events[-1][1].startswith("bay 3 (empty): locate off (SES slot")
    assert "may be left lit" not in swap.events[-1][1]
    assert tree_digest(root, skip=(locate_file(root, 3),)) == rest and records(tmp_path) == []
