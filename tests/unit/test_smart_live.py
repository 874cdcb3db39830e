"""The live SMART path end to end: the real runner runs a fake `smartctl` on PATH that replays
real captured reports (tests/fakesmartctl.py), and the real pySMART parses them.

The standby rule is checked from the fake's own log: no call ever lacks `-n standby`, and a
sleeping drive is never woken.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.collectors.base import reads_until
from nastui.collectors.drives import DriveCollector, Schedule
from nastui.collectors.runner import CommandResult
from nastui.collectors.smart.collector import SmartCollector
from nastui.core.health import awaiting_smart, drive_verdict
from nastui.model import Drive, DriveIdentity, Health, PowerState, TempSource, Thresholds, Transport
from tests.fakesys import SAS_PARENT, SATA_PARENT, FakeDisk, build
from tests.smartbox import (
    HEALTHY,
    PENDING,
    SAS_ALL,
    SAS_BACKGROUND,
    SMART,
    SmartBox,
    probe_request,
)

PROBE_JSON = "smartctl_exporter/sat-HGST_Ultrastar_7K6000-HGST_HUS726060ALE614-sdf.json"
NOW = 1_700_000_000.0


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SmartBox]:
    fake = SmartBox(tmp_path / "smart")
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    yield fake


def sata(dev: str, serial: str, transport: Transport = Transport.SATA) -> Drive:
    return Drive(dev, DriveIdentity(model="HGST", serial=serial, transport=transport))


def every_call_guarded(box: SmartBox) -> bool:
    calls = box.calls()
    return bool(calls) and all(call[:2] == ["-n", "standby"] for call in calls)


async def test_a_drive_is_read_through_pysmart_and_the_runner(
    box: SmartBox, tmp_path: Path
) -> None:
    box.drive("sda", PENDING)
    smart = SmartCollector(tmp_path)
    drives, errors = await smart.poll([sata("sda", "S1")], NOW)
    drive = drives[0]
    assert errors == ()
    assert box.calls() == [["-n", "standby", "-d", "sat", "--all", str(tmp_path / "dev/sda")]]
    assert drive.smart_read_at == NOW and drive.smart_passed is True
    assert drive.attribute(197) is not None and drive.attribute(197).raw == 16  # type: ignore[union-attr]
    assert drive.power is PowerState.ACTIVE and drive.wakeups == 0
    assert drive.temperature is not None and drive.temperature.source is TempSource.SMART
    assert drive.identity.model == "HGST HUS726060ALE614"  # smartctl's full model filled in
    verdict = drive_verdict(drive, Thresholds(), NOW)
    assert verdict.health is Health.CRITICAL
    assert "Current_Pending_Sector 16" in verdict.summary


async def test_pysmart_asks_for_more_and_gets_it_through_the_runner(
    box: SmartBox, tmp_path: Path
) -> None:
    box.drive("sdc", SAS_ALL, kind="scsi")
    box.answer("_-d_scsi_-l_background__dev_sdc", SAS_BACKGROUND)
    drives, _ = await SmartCollector(tmp_path).poll([sata("sdc", "8DG3J2ZD", Transport.SAS)], NOW)
    assert [c[2:5] for c in box.calls()] == [["-d", "scsi", "--all"], ["-d", "scsi", "-l"]]
    assert every_call_guarded(box)
    assert drives[0].scsi is not None and drives[0].power_on_hours == 3687


async def test_standby_is_never_woken_and_keeps_old_data_marked_stale(
    box: SmartBox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box.drive("sda", HEALTHY)
    box.drive("sdb", PENDING)
    smart = SmartCollector(tmp_path, smart_every=300)
    found = [sata("sda", "A"), sata("sdb", "B")]
    first, _ = await smart.poll(found, NOW)
    assert first[1].attribute(197) is not None
    box.env(standby=["sdb"])
    later, errors = await smart.poll(found, NOW + 300, io={"sda": 5, "sdb": 7})
    asleep = later[1]
    assert asleep.power is PowerState.STANDBY
    assert asleep.smart_read_at == NOW  # the last read that worked, kept
    assert asleep.attribute(197) is not None
    assert asleep.temperature is not None and asleep.temperature.measured_at == NOW
    assert errors == ()
    assert every_call_guarded(box) and box.woken() == []
    assert smart.wakes.total == 0


async def test_a_never_seen_standby_drive_is_unknown_and_says_so(
    box: SmartBox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box.env(standby=["sda"])
    drives, _ = await SmartCollector(tmp_path).poll([sata("sda", "A")], NOW)
    assert drives[0].power is PowerState.STANDBY
    assert drive_verdict(drives[0], Thresholds(), NOW).summary == "in standby, SMART not read yet"


async def test_the_quick_probe_brings_temperatures_between_full_reads(
    box: SmartBox, tmp_path: Path
) -> None:
    box.drive("sda", HEALTHY)
    box.answer(probe_request("sda"), PROBE_JSON)
    smart = SmartCollector(tmp_path, smart_every=300, temp_every=30)
    await smart.poll([sata("sda", "A")], NOW)
    drives, _ = await smart.poll([sata("sda", "A")], NOW + 31)
    assert box.calls()[-1] == ["-n", "standby", "-j", "-d", "sat", "-A", str(tmp_path / "dev/sda")]
    temp = drives[0].temperature
    assert temp is not None and temp.celsius == 25.0 and temp.measured_at == NOW + 31
    assert drives[0].smart_read_at == NOW  # the probe is not a SMART read


async def test_no_probe_for_a_drive_with_a_hwmon_sensor(box: SmartBox, tmp_path: Path) -> None:
    from nastui.model import Temperature

    box.drive("sda", HEALTHY)
    smart = SmartCollector(tmp_path, smart_every=300, temp_every=30)
    hwmon = Drive(
        "sda",
        DriveIdentity(serial="A", transport=Transport.SATA),
        temperature=Temperature(33, NOW, TempSource.DRIVETEMP),
    )
    await smart.poll([hwmon], NOW)
    drives, _ = await smart.poll([hwmon], NOW + 60)
    assert len(box.calls()) == 1
    assert (
        drives[0].temperature is not None and drives[0].temperature.source is TempSource.DRIVETEMP
    )


async def test_smartctl_missing_is_one_line_for_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    drives, errors = await SmartCollector(tmp_path).poll([sata("sda", "A"), sata("sdb", "B")], NOW)
    missing = "smartctl not found: install smartmontools (apt-get install smartmontools)"
    assert [(e.source, e.message) for e in errors] == [("smart", f"SMART not read: {missing}")]
    assert all(d.smart_problem and "smartctl not found" in d.smart_problem for d in drives)
    assert "smartctl not found" in drive_verdict(drives[0], Thresholds(), NOW).summary


async def test_a_hung_smartctl_keeps_only_its_own_drive_waiting(
    box: SmartBox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box.drive("sda", HEALTHY)
    box.env(hang=["sdb"])
    smart = SmartCollector(tmp_path, timeout=1.5, wait_s=0.8)
    found = [sata("sda", "A"), sata("sdb", "B")]
    started = time.monotonic()
    first, _ = await smart.poll(found, NOW)
    assert time.monotonic() - started < 1.4
    assert first[0].smart_read_at == NOW and first[1].smart_problem is None
    await asyncio.sleep(1.5)
    second, _ = await smart.poll(found, NOW + 2)
    assert second[1].smart_problem is not None and "timed out" in second[1].smart_problem
    assert second[0].smart_read_at == NOW
    await smart.settle()


def test_a_read_cut_short_when_its_event_loop_ends_is_due_again(
    box: SmartBox, tmp_path: Path
) -> None:
    # The interface's first poll ran on an event loop of its own, given a second: a longer
    # SMART read was killed with that loop, and the drive waited `smart_s` (5 minutes) for its
    # next read, UNKNOWN ("no SMART data") all along.
    box.drive("sda", HEALTHY)
    box.env(delay=1.0)
    smart = SmartCollector(tmp_path, smart_every=300)
    found = [sata("sda", "A")]

    async def cut_short() -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(smart.poll(found, NOW), 0.2)

    asyncio.run(cut_short())
    box.env()
    drives, _ = asyncio.run(smart.poll(found, NOW + 2))
    assert drives[0].has_smart and drives[0].smart_read_at == NOW + 2
    assert not drives[0].smart_pending
    assert len(box.calls()) == 2  # read again, the cut one counted


async def test_a_drive_is_pending_while_its_first_read_goes_on_past_the_deadline(
    box: SmartBox, tmp_path: Path
) -> None:
    box.drive("sda", HEALTHY)
    box.env(delay=0.5)
    smart = SmartCollector(tmp_path, smart_every=300, temp_every=30)
    found = [sata("sda", "A")]
    started = time.monotonic()
    with reads_until(asyncio.get_running_loop().time() + 0.1):
        first, errors = await smart.poll(found, NOW)
    assert time.monotonic() - started < 0.45  # published at the deadline, not when read
    assert first[0].smart_pending and not first[0].has_smart and errors == ()
    verdict = drive_verdict(first[0], Thresholds(), NOW)
    assert verdict.summary == "SMART read under way"
    assert awaiting_smart(dataclasses.replace(first[0], verdict=verdict))
    await smart.settle()
    later, _ = await smart.poll(found, NOW + 2)  # takes the read up: no second smartctl
    assert later[0].has_smart and not later[0].smart_pending
    assert drive_verdict(later[0], Thresholds(), NOW + 2).health is Health.OK
    assert len(box.calls()) == 1  # nor a temperature probe: the full read brought one


async def test_a_later_read_past_the_deadline_keeps_the_last_one_until_it_ends(
    box: SmartBox, tmp_path: Path
) -> None:
    """The interface's polls wait for SMART only so long (`POLL_SMART_WAIT_S`): a full read
    every `smart_s` that is slow leaves the drive as last read, not pending, while its
    temperatures and I/O go on being published."""
    box.drive("sda", HEALTHY)
    smart = SmartCollector(tmp_path, smart_every=300, temp_every=30)
    found = [sata("sda", "A")]
    first, _ = await smart.poll(found, NOW)
    assert first[0].smart_read_at == NOW
    box.env(delay=0.6)
    started = time.monotonic()
    with reads_until(asyncio.get_running_loop().time() + 0.1):
        during, _ = await smart.poll(found, NOW + 300)
    assert time.monotonic() - started < 0.5
    assert during[0].smart_read_at == NOW and during[0].has_smart
    assert not during[0].smart_pending
    await smart.settle()
    after, _ = await smart.poll(found, NOW + 302)
    assert after[0].smart_read_at == NOW + 302  # taken up by the next poll
    assert len(box.calls()) == 2  # not read a third time


async def test_a_hung_first_read_is_pending_until_its_timeout_then_says_why(
    box: SmartBox, tmp_path: Path
) -> None:
    box.env(hang=["sda"])
    smart = SmartCollector(tmp_path, timeout=1.0)
    found = [sata("sda", "A")]
    with reads_until(asyncio.get_running_loop().time()):
        first, _ = await smart.poll(found, NOW)
    assert first[0].smart_pending
    await smart.settle()  # the runner kills it at its timeout
    later, _ = await smart.poll(found, NOW + 2)
    assert not later[0].smart_pending
    assert later[0].smart_problem is not None and "timed out" in later[0].smart_problem
    verdict = drive_verdict(later[0], Thresholds(), NOW + 2)
    assert verdict.health is Health.UNKNOWN
    assert not awaiting_smart(dataclasses.replace(later[0], verdict=verdict))


async def test_concurrency_is_bounded() -> None:
    running = 0
    peak = 0

    async def slow(argv: tuple[str, ...], *, timeout: float) -> CommandResult:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05)
        running -= 1
        return CommandResult(tuple(argv), 2, "Device is in STANDBY mode, exit(2)\n", "", 0.05)

    smart = SmartCollector(Path("/nonexistent"), run=slow, concurrency=3)
    drives, _ = await smart.poll([sata(f"sd{c}", c) for c in "abcdefghij"], NOW)
    assert peak == 3
    assert {d.power for d in drives} == {PowerState.STANDBY}


def fake_tree(tmp_path: Path) -> Path:
    disks = [
        FakeDisk(
            "sda",
            SATA_PARENT.format(n=0),
            by_id=["ata-HGST_HUS726040ALE614_A1"],
            model="HGST HUS726040AL",
        ),
        FakeDisk(
            "sdb",
            SATA_PARENT.format(n=1),
            by_id=["ata-HGST_HUS726060ALE614_B2"],
            model="HGST HUS726060AL",
        ),
        FakeDisk(
            "sdc",
            SAS_PARENT.format(h=2, n=3),
            vendor="HGST",
            model="HUH721212AL4204",
            vpd_serial="8DG3J2ZD",
        ),
    ]
    root = build(tmp_path / "root", disks)
    diskstats = root / "proc/diskstats"
    diskstats.parent.mkdir(parents=True, exist_ok=True)
    diskstats.write_text(
        "   8       0 sda 10 0 80 1 10 0 80 1 0 2 2 0 0 0 0 0 0\n"
        "   8      16 sdb 10 0 80 1 10 0 80 1 0 2 2 0 0 0 0 0 0\n"
        "   8      32 sdc 10 0 80 1 10 0 80 1 0 2 2 0 0 0 0 0 0\n"
    )
    return root


async def test_a_day_of_polling_the_whole_collector_never_drops_the_standby_guard(
    box: SmartBox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fake_tree(tmp_path)
    box.drive("sda", HEALTHY)
    box.drive("sdb", PENDING)
    box.drive("sdc", SAS_ALL, kind="scsi")
    box.answer("_-d_scsi_-l_background__dev_sdc", SAS_BACKGROUND)
    box.answer(probe_request("sda"), PROBE_JSON)
    box.answer(probe_request("sdb"), PROBE_JSON)
    box.answer(probe_request("sdc", "scsi"), "smartctl_exporter/SEAGATE_ST373453LC_26.json")
    box.env(standby=["sdb"])
    collector = DriveCollector(root, schedule=Schedule(30, 300, 10), state_dir=tmp_path / "state")
    for step in range(0, 1200, 30):  # 20 minutes of 30-second polls; `make perf` runs a day
        report = await collector.collect(NOW + step)
    assert every_call_guarded(box) and box.woken() == []
    assert report.wakeups == 0
    by_dev = {d.dev: d for d in report.drives}
    assert by_dev["sdb"].power is PowerState.STANDBY
    assert by_dev["sda"].smart_read_at is not None


async def test_a_drive_that_a_query_wakes_is_counted_reported_and_then_left_alone() -> None:
    # A bridge that ignores -n standby: asleep at the first query, awake at the next, with no
    # reads or writes in between; the report it answers with is a real one.
    answers = [
        CommandResult(("smartctl",), 2, "Device is in STANDBY mode, exit(2)\n", "", 0.01),
        CommandResult(("smartctl",), 0, (SMART / HEALTHY).read_text(), "", 0.01),
    ]
    calls: list[tuple[str, ...]] = []

    async def bridge(argv: tuple[str, ...], *, timeout: float) -> CommandResult:
        calls.append(tuple(argv))
        return answers[min(len(calls), len(answers)) - 1]

    smart = SmartCollector(Path("/nonexistent"), run=bridge, smart_every=300)
    drive = [sata("sdd", "D")]
    await smart.poll(drive, NOW, io={"sdd": 42})
    drives, errors = await smart.poll(drive, NOW + 300, io={"sdd": 42})
    assert drives[0].wakeups == 1 and smart.wakes.total == 1
    assert [e.source for e in errors] == ["smart:sdd:wake"]
    assert "woke it from standby 1 time(s)" in errors[0].message
    await smart.poll(drive, NOW + 600, io={"sdd": 42})
    assert len(calls) == 2  # not asked again while its counters stand still
    await smart.poll(drive, NOW + 900, io={"sdd": 9000})
    assert len(calls) == 3


async def test_a_sata_drive_behind_a_sas_hba_is_read_as_ata(box: SmartBox, tmp_path: Path) -> None:
    root = build(tmp_path / "hba", [FakeDisk("sde", SAS_PARENT.format(h=3, n=1), vendor="ATA")])
    box.drive("sde", HEALTHY)  # answers "-d sat --all /dev/sde" only
    drives, _ = await SmartCollector(root).poll([sata("sde", "E", Transport.SAS)], NOW)
    assert box.calls()[0][2:4] == ["-d", "sat"]
    assert drives[0].smart_read_at == NOW
