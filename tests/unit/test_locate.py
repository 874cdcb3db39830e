"""The locate ladder: SES sysfs writes asserted on a fake /sys/class/enclosure tree, ledctl and
sg_ses asserted by their argv (and answered with real captured failures), the activity blink
reading a file read-only, and what is recorded for the bay LED state."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import os
import time
from pathlib import Path

import pytest

from nastui.collectors.drives import DriveCollector
from nastui.collectors.enclosure_leds import LedReader
from nastui.collectors.runner import run
from nastui.control.blink import Blinker, BlinkPlan, offsets, read_flags
from nastui.control.locate_ladder import (
    LadderLocator,
    enclosure_sg_devices,
    sata_port_without_leds,
)
from nastui.control.locate_rungs import LEDCTL, SES, SG_SES, ledctl_argv, sg_ses_argv
from nastui.control.locate_state import LedBook
from nastui.core.statefiles import BLINK, LedRecord, decode_leds
from nastui.model import (
    BaySlot,
    Drive,
    DriveIdentity,
    EnclosureSlot,
    HostSnapshot,
    LedState,
    PowerState,
)
from tests.conftest import require_tool
from tests.fakesys import SATA_PARENT, FakeDisk, build
from tests.ledbox import (
    NOW,
    OK,
    FakeTools,
    captured,
    ladder,
    led_tree,
    locate_file,
    snapshot_of,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return led_tree(tmp_path)


def blinking(blinker: Blinker) -> str | None:
    return blinker.active


async def test_ses_first_writes_the_slot_locate_file_and_reads_it_back(
    root: Path, tmp_path: Path
) -> None:
    snap = await snapshot_of(root, tmp_path)
    tools = FakeTools({})
    locator = ladder(root, tmp_path, snap, tools)
    result = await locator.locate(3, True)
    assert (result.ok, result.method, result.bay) == (True, SES, 3)
    assert locate_file(root, 3).read_text() == "1\n"
    assert result.message.startswith(
        "bay 3 sdb: locate on (SES slot Slot03 of enclosure 500304801f3ae07f"
    )
    assert tools.argv == []  # nothing else was tried
    assert [(r.bay, r.method) for r in LedBook(tmp_path / "state").records()] == [(3, SES)]
    off = await locator.locate(3, False)
    assert off.ok and off.method == SES and locate_file(root, 3).read_text() == "0\n"
    assert LedBook(tmp_path / "state").records() == []


async def test_the_collector_shows_what_was_lit(root: Path, tmp_path: Path) -> None:
    snap = await snapshot_of(root, tmp_path)
    await ladder(root, tmp_path, snap, FakeTools({})).locate(3, True)
    report = await DriveCollector(root, run=FakeTools({}), state_dir=tmp_path / "state").collect(
        NOW + 5
    )
    assert report.leds[3] is LedState.LOCATE  # the enclosure's own readback


async def test_without_ses_ledctl_is_next(root: Path, tmp_path: Path) -> None:
    snap = await snapshot_of(root, tmp_path)
    tools = FakeTools({"ledctl": OK})
    result = await ladder(root, tmp_path, snap, tools).locate(5, True)
    device = str(root / "dev/sdc")
    assert (result.ok, result.method) == (True, LEDCTL)
    assert tools.argv == [("ledctl", "--listed-only", f"locate={device}")]
    assert ledctl_argv(device, False) == ("ledctl", "--listed-only", f"locate_off={device}")
    records = LedReader(tmp_path / "state").lit(NOW)
    assert [(r.bay, r.method, r.target) for r in records] == [
        (5, LEDCTL, f"ledctl --listed-only locate={device}")
    ]


async def test_off_uses_the_method_that_lit_it(root: Path, tmp_path: Path) -> None:
    snap = await snapshot_of(root, tmp_path)
    tools = FakeTools({"ledctl": OK})
    locator = ladder(root, tmp_path, snap, tools)
    await locator.locate(5, True)
    await locator.locate(5, False)
    assert tools.argv[-1] == ("ledctl", "--listed-only", f"locate_off={root / 'dev/sdc'}")
    assert LedReader(tmp_path / "state").lit(NOW) == []


async def test_sg_ses_by_slot_number_and_by_sas_address(root: Path, tmp_path: Path) -> None:
    snap = await snapshot_of(root, tmp_path)
    sg = str(root / "dev/sg24")
    assert sg_ses_argv(sg, True, slot=3, sas_address=None) == (
        "sg_ses",
        "--dev-slot-num=3",
        "--set=ident",
        sg,
    )
    assert sg_ses_argv(sg, False, slot=None, sas_address="0x5000cca253066623") == (
        "sg_ses", "--sas-addr=0x5000cca253066623", "--clear=ident", sg,
    )  # fmt: skip
    assert enclosure_sg_devices(root) == [sg]
    tools = FakeTools({"sg_ses": OK})
    locator = ladder(root, tmp_path, snap, tools)
    sdb = snap.drive("SERB")
    assert sdb is not None
    result = await locator.locate_drive(sdb, 3, True, method=SG_SES)
    assert result.ok and tools.argv == [("sg_ses", "--dev-slot-num=3", "--set=ident", sg)]


async def test_when_nothing_works_every_rung_says_why_in_one_line(
    root: Path, tmp_path: Path
) -> None:
    snap = await snapshot_of(root, tmp_path)
    tools = FakeTools(
        {
            "ledctl": captured("ledctl-locate-unsupported"),
            "sg_ses": captured("sg_ses-not-permitted"),
        }
    )
    snap = HostSnapshot(
        snap.host,
        NOW,
        slots=snap.slots,
        drives=tuple(
            d if d.dev != "sdc" else Drive(d.dev, d.identity, power=PowerState.STANDBY)
            for d in snap.drives
        ),
    )
    result = await ladder(root, tmp_path, snap, tools).locate(5, True)
    assert not result.ok and result.method == "none"
    assert "\n" not in result.message
    assert result.message.startswith(
        "bay 5 sdc: could not light a locate LED: ses-sysfs: no SES enclosure slot holds sdc"
    )
    assert "ledctl: ledctl: /dev/vda: device not supported" in result.message
    assert "sg_ses: no enclosure device known to hold this drive" in result.message
    assert "activity-blink: sdc is in standby and reading would wake it" in result.message


async def test_an_empty_bay_or_no_poll_yet_is_refused(root: Path, tmp_path: Path) -> None:
    snap = await snapshot_of(root, tmp_path)
    empty = await ladder(root, tmp_path, snap, FakeTools({})).locate(9, True)
    assert not empty.ok and "nothing to locate" in empty.message
    early = LadderLocator(root, run=FakeTools({}), latest=lambda: None, state_dir=tmp_path)
    assert "not polled yet" in (await early.locate(3, True)).message


async def test_activity_blink_reads_only_and_stops(root: Path, tmp_path: Path) -> None:
    snap = await snapshot_of(root, tmp_path)
    opened: list[tuple[str, int]] = []

    def spy(path: str, flags: int) -> int:
        opened.append((path, flags))
        return os.open(path, flags)

    blinker = Blinker(opener=spy, chunk=65536)
    locator = ladder(root, tmp_path, snap, FakeTools({}), blinker=blinker, blink_seconds=30.0)
    target = root / "dev/sdc"
    before = hashlib.sha256(target.read_bytes()).hexdigest()
    sdc = snap.drive("SERC")
    assert sdc is not None
    result = await locator.locate_drive(sdc, 5, True, method=BLINK)
    assert result.ok and result.method == BLINK and blinking(blinker) == "SERC"
    await asyncio.sleep(0.6)
    assert blinker.bytes_read > 0
    (record,) = LedReader(tmp_path / "state").lit(time.time())
    assert (record.method, record.pid) == (BLINK, os.getpid())
    off = await locator.locate_drive(sdc, 5, False)
    assert off.ok and blinking(blinker) is None
    assert hashlib.sha256(target.read_bytes()).hexdigest() == before
    assert opened and all(path == str(target) for path, _ in opened)
    for _, flags in opened:
        assert flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND) == 0


def test_a_blink_ends_by_itself(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.write_bytes(b"\1" * (1 << 20))
    blinker = Blinker(chunk=4096)
    blinker.start(BlinkPlan(disk, seconds=0.3, on_s=0.1, off_s=0.05), "K")
    assert blinker.wait(5.0) and blinker.error is None and blinker.bytes_read > 0
    bad = Blinker()
    bad.start(BlinkPlan(tmp_path / "missing", seconds=1), "K")
    assert bad.wait(5.0) and bad.error is not None and "cannot open" in bad.error


def test_blink_offsets_are_aligned_and_inside_the_disk() -> None:
    size = 10 << 30
    spots = offsets(size, 500)
    assert all(o % 4096 == 0 and 0 <= o <= size - (1 << 20) for o in spots)
    assert len(set(spots)) > 400
    assert read_flags(direct=False) & os.O_ACCMODE == os.O_RDONLY


@pytest.mark.integration
async def test_real_ledctl_and_sg_ses_failures_are_reported(root: Path, tmp_path: Path) -> None:
    require_tool("ledctl", "ledmon")
    require_tool("sg_ses", "sg3-utils")
    snap = await snapshot_of(root, tmp_path)
    gone = root / "no-such"  # neither tool may touch a real device in a test
    slot = EnclosureSlot("e", 3, sg_device=str(gone / "dev/sg99"))
    drive = Drive("sdq", DriveIdentity(serial="Q"), power=PowerState.STANDBY, slot=slot)
    locator = LadderLocator(gone, run=run, latest=lambda: snap, state_dir=tmp_path / "state")
    result = await locator.locate_drive(drive, None, True)
    assert not result.ok and result.method == "none"
    assert "ledctl: ledctl: IBPI LOCATE: missing block device(s)" in result.message
    assert "sg_ses: sg_ses failed: No such file or directory" in result.message


def test_the_led_file_is_parsed_again_only_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book, reader = LedBook(tmp_path), LedReader(tmp_path)
    assert reader.lit(NOW) == []
    blink = LedRecord(5, "SERC", "sdc", BLINK, NOW, pid=os.getpid(), until=NOW + 3)
    book.keep(blink)
    parsed: list[str] = []

    def counting(text: str, boot_id: str | None) -> list[LedRecord]:
        parsed.append(text)
        return decode_leds(text, boot_id)

    monkeypatch.setattr("nastui.collectors.enclosure_leds.decode_leds", counting)
    assert reader.lit(NOW) == [blink]
    assert reader.lit(NOW + 2) == [blink]
    assert reader.lit(NOW + 4) == []  # the blink's time is up: still decided at every poll
    assert len(parsed) == 1  # the file did not change: parsed once
    book.forget("SERC")
    book.keep(dataclasses.replace(blink, until=NOW + 10))
    assert reader.lit(NOW + 4) == [dataclasses.replace(blink, until=NOW + 10)]
    assert len(parsed) == 2


@pytest.mark.parametrize(("em_types", "ledctl_tried"), [("0", False), ("9", True), (None, True)])
async def test_ledctl_is_not_believed_on_a_sata_port_without_enclosure_management(
    tmp_path: Path, em_types: str | None, ledctl_tried: bool
) -> None:
    """Seen in the lab: on an AHCI port with no enclosure management (QEMU's), ledctl exits 0
    and nothing lights. The kernel says so (`em_message_type` 0: no LED, SAF-TE, SES-2 or
    SGPIO messages), so ledctl is not tried there; a port with messages (9: LED and SGPIO), or
    a kernel that does not say, leaves ledctl to answer."""
    root = build(tmp_path / "root", [FakeDisk("sda", SATA_PARENT.format(n=2), model="WDC")])
    (root / "dev/sda").write_bytes(os.urandom(1 << 20))
    if em_types is not None:
        (root / "sys/class/scsi_host/host2").mkdir(parents=True)
        (root / "sys/class/scsi_host/host2/em_message_type").write_text(f"{em_types}\n")
    said = sata_port_without_leds(root, "sda")
    assert (said is None) == ledctl_tried
    drive = Drive("sda", DriveIdentity(model="WDC", serial="S1"), power=PowerState.ACTIVE)
    tools = FakeTools({"ledctl": OK})
    locator = ladder(root, tmp_path, HostSnapshot("box", NOW), tools, blink_seconds=0.2)
    result = await locator.locate_drive(drive, 1, True)
    locator.blinker.stop()
    assert [a[0] for a in tools.argv] == (["ledctl"] if ledctl_tried else [])
    assert result.ok and result.method == (LEDCTL if ledctl_tried else BLINK)
    if not ledctl_tried:
        assert said == (
            "sda is on a SATA port whose controller (host2) has no enclosure management "
            "(em_message_type 0): no LED for ledctl to drive"
        )


def test_a_sas_drive_is_not_a_sata_port(root: Path) -> None:
    assert sata_port_without_leds(root, "sdb") is None
    assert sata_port_without_leds(root, "nosuch") is None


async def test_a_swap_puts_its_bay_out_through_the_new_drive_and_forgets_the_old_one(
    root: Path, tmp_path: Path
) -> None:
    """A swap lit bay 5 through its old drive (ledctl); the old drive is pulled and a new one is
    found in bay 5: the LED is put out through the new drive (the same port), and the old
    drive's record goes too, or the bay would show lit for the rest of the boot."""
    from typing import cast

    from nastui.session import Session
    from nastui.swap.flow.box import Box, switch_led
    from nastui.swap.io.store import SwapStore
    from nastui.swap.logic.state import DriveRef, Swap, SwapPhase

    snap = await snapshot_of(root, tmp_path)
    old = snap.drive("SERC")
    sdb = snap.drive("SERB")
    assert old is not None and sdb is not None
    identity = dataclasses.replace(sdb.identity, serial="SERN")
    new = dataclasses.replace(sdb, identity=identity, slot=None)  # no SES slot: ledctl
    after = HostSnapshot("box", NOW + 60, slots=(BaySlot(5, "SERN"),), drives=(new,))
    shown = [snap]
    tools = FakeTools({"ledctl": OK})
    locator = LadderLocator(root, run=tools, latest=lambda: shown[0], state_dir=tmp_path / "state")
    session = cast(Session, type("S", (), {"locator": locator})())
    store = SwapStore(tmp_path / "swap")
    swap = Swap(
        "box", SwapPhase.PREPARED, False, DriveRef.of(old, 5, None), None, None, None, None,
        (), (), (), NOW,
    )  # fmt: skip
    swap = await switch_led(Box(session, snap, store), swap, True)
    assert swap.led and [r.drive for r in LedReader(tmp_path / "state").lit(NOW)] == ["SERC"]
    shown[0] = after
    swap = await switch_led(Box(session, after, store), swap, False, "the new drive is in: ")
    assert tools.argv[-1] == ("ledctl", "--listed-only", f"locate_off={root / 'dev/sdb'}")
    assert not swap.led and swap.events[-1][1].startswith("the new drive is in: bay 5 sdb")
    assert LedReader(tmp_path / "state").lit(NOW) == []
