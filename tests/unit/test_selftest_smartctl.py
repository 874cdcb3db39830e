"""Self-tests through smartctl: the argv, the parsers on real captured answers, and the real
runner against a fake `smartctl` on PATH replaying them (start, standby, progress, results),
up to the daemon starting a due test."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nastui.collectors.runner import run
from nastui.model import (
    Drive,
    DriveIdentity,
    HostSnapshot,
    NoticeKind,
    Pool,
    PoolKind,
    PoolState,
    PowerState,
    ScanKind,
    ScanProgress,
    ScanState,
    SelfTest,
    Vdev,
)
from nastui.selftest.flow.cycle import follow, follow_and_start
from nastui.selftest.io.tester import (
    SmartctlTester,
    load_book,
    progress_argv,
    save_book,
    start_argv,
)
from nastui.selftest.logic.book import DriveTests, Run, decode_book, encode_book
from nastui.selftest.logic.plan import SelftestKind
from nastui.selftest.logic.policy import SelftestPolicy
from nastui.selftest.logic.text import (
    StartOutcome,
    json_progress,
    log_verdict,
    start_answer,
    text_progress,
)
from tests.conftest import FIXTURES
from tests.fakesmartctl import STANDBY_TEXT, fixture_name
from tests.smartbox import SmartBox

SELF = FIXTURES / "smartctl" / "selftest"
FAILED = FIXTURES / "smartctl" / "linuxhw_enterprise" / "HDD__HPE__MB8000GFECR__265297FF8485.txt"
NOW = 1_800_000_000.0


def text(name: str) -> str:
    return (SELF / name).read_text(encoding="utf-8")


def test_argv_is_built_from_an_allowlisted_name() -> None:
    assert start_argv("sda", SelftestKind.SHORT) == (
        "smartctl",
        "-n",
        "standby",
        "-t",
        "short",
        "/dev/sda",
    )
    assert start_argv("nvme0n1", SelftestKind.LONG)[-2:] == ("long", "/dev/nvme0n1")
    assert progress_argv("sdaa") == ("smartctl", "-n", "standby", "-a", "/dev/sdaa")
    for bad in ("sda1", "../sda", "sda;reboot", "-t", "", "md0"):
        with pytest.raises(ValueError, match="kernel name"):
            start_argv(bad, SelftestKind.SHORT)


def test_start_answers() -> None:
    started = start_answer(0, text("start-short-ata-7.4.txt"))
    assert started.outcome is StartOutcome.STARTED and started.line == "Testing has begun."
    busy = start_answer(4, text("start-busy-6.2.txt"))
    assert busy.outcome is StartOutcome.BUSY and "90% remaining" in busy.line
    asleep = start_answer(2, STANDBY_TEXT)
    assert asleep.outcome is StartOutcome.ASLEEP
    refused = start_answer(1, text("local-start-regular-file.txt"))
    assert refused.outcome is StartOutcome.FAILED
    assert refused.line.endswith(  # smartctl's reason, not its closing usage hint
        ": Unable to detect device type; Please specify device type with the -d option."
    )


def test_progress_from_text_and_json() -> None:
    ata = text_progress(text("in-progress-ata-30pct.txt"))
    assert (ata.running, ata.remaining_percent) == (True, 30)
    nvme = text_progress(text("in-progress-nvme-28pct.txt"))
    assert (nvme.running, nvme.remaining_percent) == (True, 72)
    done = text_progress(FAILED.read_text(encoding="utf-8"))
    assert (done.running, done.remaining_percent) == (False, None)
    # its status byte says "completed" (0) while its log's newest entry is a read failure:
    # the log, which names the test, wins
    assert (done.passed, done.line) == (False, "Completed: read failure")
    assert text_progress(STANDBY_TEXT).running is None  # asleep: unknown, asked again later
    js = json_progress(text("in-progress-ata-10pct.json"))
    assert (js.running, js.remaining_percent) == (True, 10)
    assert js.passed is None
    idle = json_progress(text("nvme-idle.json"))
    assert idle.running is False


def test_log_words() -> None:
    assert log_verdict("Completed without error") is True
    assert log_verdict("Completed: read failure") is False
    assert log_verdict("Completed: unknown failure") is False
    assert log_verdict("Aborted by host") is None
    assert log_verdict("Interrupted (host reset)") is None
    assert log_verdict("Self-test routine in progress") is None


def test_book_round_trip_and_damage() -> None:
    book = {
        "K1": DriveTests("K1", "sda", NOW, None, Run(SelftestKind.LONG, NOW, 40, NOW), None, "x")
    }
    assert decode_book(encode_book(book)) == book
    assert decode_book("{not json") == {}
    assert decode_book('{"drives": {"K": {"dev": 3}, "L": {"dev": "sdb"}}}') == {
        "L": DriveTests("L", "sdb")
    }


def drive(dev: str, serial: str, **kw: object) -> Drive:
    return Drive(dev, DriveIdentity(model="HGST HUS726040ALE614", serial=serial), **kw)  # type: ignore[arg-type]


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SmartBox:
    smart = SmartBox(tmp_path / "fake")
    for key, value in smart.env(standby=["sdc"]).items():
        monkeypatch.setenv(key, value)
    return smart


def answer(box: SmartBox, args: list[str], fixture: Path, status: int | None = None) -> None:
    box.answer(fixture_name(args), fixture, status)


def test_start_and_follow_through_the_fake_smartctl(box: SmartBox) -> None:
    answer(box, ["-t", "short", "/dev/sda"], SELF / "start-short-ata-7.4.txt")
    answer(box, ["-t", "long", "/dev/sdb"], SELF / "start-busy-6.2.txt", 4)
    answer(box, ["-a", "/dev/sda"], SELF / "in-progress-ata-30pct.txt")
    tester = SmartctlTester(run, timeout=10)
    sda, sdb, sdc = drive("sda", "A"), drive("sdb", "B"), drive("sdc", "C")
    assert asyncio.run(tester.start(sda, SelftestKind.SHORT)).outcome is StartOutcome.STARTED
    assert asyncio.run(tester.start(sdb, SelftestKind.LONG)).outcome is StartOutcome.BUSY
    asleep = asyncio.run(tester.start(sdc, SelftestKind.SHORT))
    assert asleep.outcome is StartOutcome.ASLEEP
    missing = asyncio.run(tester.start(drive("sdd", "D"), SelftestKind.SHORT))
    assert missing.outcome is StartOutcome.FAILED and "no fixture" in missing.line
    progress = asyncio.run(tester.progress(sda, Run(SelftestKind.SHORT, NOW), NOW))
    assert (progress.running, progress.remaining_percent) == (True, 30)
    assert box.woken() == []
    assert all(call[:2] == ["-n", "standby"] for call in box.calls())


def snapshot(*drives: Drive, scrub: bool = False) -> HostSnapshot:
    leaves = tuple(
        Vdev(d.dev, "disk", PoolState.ONLINE, drive=d.key) for d in drives if d.dev != "sdz"
    )
    raidz = Vdev("raidz2-0", "raidz2", PoolState.ONLINE, children=leaves)
    scan = ScanProgress(ScanKind.SCRUB, ScanState.RUNNING) if scrub else None
    pool = Pool(
        "tank",
        PoolKind.ZFS,
        PoolState.ONLINE,
        Vdev("tank", "root", PoolState.ONLINE, children=(raidz,)),
        scan=scan,
    )
    return HostSnapshot(host="nas", taken_at=NOW, drives=drives, pools=(pool,))


def test_the_daemon_starts_one_due_test_per_vdev_through_the_fake(box: SmartBox) -> None:
    answer(box, ["-t", "long", "/dev/sda"], SELF / "start-short-ata-7.4.txt")
    answer(box, ["-t", "long", "/dev/sdb"], SELF / "start-short-ata-7.4.txt")
    answer(box, ["-t", "short", "/dev/sdz"], SELF / "start-short-ata-7.4.txt")
    short = SelfTest("Short offline", "Completed without error", True, 950, 0)  # 6.25 days ago
    long = SelfTest("Extended offline", "Completed without error", True, 800, 0)  # 12.5 days
    drives = (
        drive("sda", "A", power=PowerState.ACTIVE),
        drive("sdb", "B", power=PowerState.ACTIVE),
        drive("sdc", "C", power=PowerState.STANDBY),
        drive("sdz", "Z", power=PowerState.ACTIVE, power_on_hours=1100, self_tests=(short, long)),
    )
    tester = SmartctlTester(run, timeout=10)
    out = asyncio.run(follow_and_start(snapshot(*drives), {}, tester, SelftestPolicy(), NOW))
    started = sorted(k for k, page in out.book.items() if page.running is not None)
    assert len([k for k in started if k in "ABC"]) == 1, "one drive of the vdev"
    assert "Z" in started and out.book["Z"].running.kind is SelftestKind.SHORT  # type: ignore[union-attr]
    calls = box.calls()
    assert ["-n", "standby", "-t", "short", "/dev/sdz"] in calls
    assert not [c for c in calls if c[-1] == "/dev/sdc"], "the sleeping drive is not asked"
    again = asyncio.run(
        follow_and_start(snapshot(*drives, scrub=True), {}, tester, SelftestPolicy(), NOW)
    )
    assert {k for k, p in again.book.items() if p.running} == {"Z"}, "pool scrubbing: wait"


def test_a_new_failure_is_one_event_and_kept(box: SmartBox, tmp_path: Path) -> None:
    answer(box, ["-a", "/dev/sda"], FAILED)
    failed = SelfTest("Extended offline", "Completed: read failure", False, 30649, 90, 293776)
    sda = drive("sda", "A", self_tests=(failed,))
    book = {"A": DriveTests("A", "sda", running=Run(SelftestKind.LONG, NOW - 3600))}
    out = asyncio.run(follow(snapshot(sda), book, SmartctlTester(run, timeout=10), NOW))
    assert out.book["A"].running is None
    assert out.book["A"].result is not None and out.book["A"].result.passed is False
    assert out.book["A"].last_long == NOW
    (notice,) = out.notices
    assert notice.kind is NoticeKind.EVENT and "read failure" in notice.alert.message
    save_book(tmp_path, out.book)
    later = asyncio.run(follow(snapshot(sda), load_book(tmp_path), SmartctlTester(run), NOW))
    assert later.notices == [], "sent once: the ended test is not followed again"


def test_a_drive_found_asleep_is_tried_again_an_hour_later(box: SmartBox) -> None:
    sdc = drive("sdc", "C", power=PowerState.ACTIVE)  # the snapshot is older than its sleep
    tester, policy = SmartctlTester(run, timeout=10), SelftestPolicy()
    first = asyncio.run(follow_and_start(snapshot(sdc), {}, tester, policy, NOW))
    assert first.book["C"].running is None and first.book["C"].note_at == NOW
    assert first.lines == ["sdc: asleep, long self-test tried again later"]
    calls = len(box.calls())
    again = asyncio.run(follow_and_start(snapshot(sdc), first.book, tester, policy, NOW + 600))
    assert len(box.calls()) == calls and again.lines == []
    later = asyncio.run(follow_and_start(snapshot(sdc), first.book, tester, policy, NOW + 3601))
    assert len(box.calls()) == calls + 1 and later.lines
    assert box.woken() == []
