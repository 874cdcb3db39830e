"""The interface's first seconds on a real box: drives whose SMART is still being read.

The real path end to end: a fake /sys tree, a fake `smartctl` on PATH replaying captured
reports (tests/smartbox.py) slower than the first frame waits, the real `LocalBackend` and
session, the launcher's first poll (`nastui.ui.launch`) and the interface on the same event
loop, as `nastui` starts them. Before, that first poll ran on a loop of its own and was cut
at a second: the reads died with it, the drives showed UNKNOWN ("no SMART data", the header
UNKNOWN) until the next scheduled read five minutes later, and a hung smartctl left the first
frame without a snapshot at all.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from nastui.core.baystate import BayState, bay_state
from nastui.model import HostSnapshot
from nastui.session import Session, Source, open_session
from nastui.ui import launch
from nastui.ui.app import NastuiApp, make_app
from tests.fakesys import SATA_PARENT, FakeDisk, build
from tests.smartbox import HEALTHY, PENDING, SmartBox
from tests.ui.screentext import screen_lines
from tests.waiting import DEADLINE_S

SIZE = (100, 16)
DISKSTATS = "".join(
    f"   8       {16 * i}  sd{c} 100 0 800 10 50 0 400 5 0 20 15 0 0 0 0\n"
    for i, c in enumerate("ab")
)


@pytest.fixture
def smart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SmartBox:
    box = SmartBox(tmp_path / "smart")
    box.drive("sda", HEALTHY)
    box.drive("sdb", PENDING)
    for key, value in box.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path / "state"))
    return box


def open_box(tmp_path: Path, poll: str = "") -> Session:
    """Two SATA drives with drivetemp sensors in a two-bay chassis, opened as `nastui
    --root TREE --config FILE` opens them."""
    disks = [
        FakeDisk(f"sd{c}", SATA_PARENT.format(n=i), model="HGST HUS726040AL",
                 by_id=[f"ata-HGST_HUS726040ALE614_SER{c.upper()}"], temp_millic=31000 + i * 1000)
        for i, c in enumerate("ab")
    ]  # fmt: skip
    root = build(tmp_path / "root", disks)
    (root / "proc").mkdir(exist_ok=True)
    (root / "proc/diskstats").write_text(DISKSTATS)
    config = tmp_path / "config.toml"
    config.write_text(
        '[chassis]\npreset = "desktop-4"\n'
        '[[chassis.bay]]\nbay = 0\nserial = "SERA"\n'
        '[[chassis.bay]]\nbay = 1\nserial = "SERB"\n' + poll
    )
    source = Source(root=root, config=config, live=True, history=False, fleet=False)
    return open_session(source, os.environ)


def states(snapshot: HostSnapshot) -> list[BayState]:
    """Bays 0 and 1 (the drives'; the chassis has four)."""
    return [bay_state(s, snapshot.drive(s.drive) if s.drive else None) for s in snapshot.slots[:2]]


async def frames(app: NastuiApp, done: str) -> tuple[list[str], list[str]]:
    """The first frame, and the screen once `done` shows on it."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = screen_lines(app)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DEADLINE_S
        while done not in "\n".join(screen_lines(app)):
            if loop.time() > deadline:
                pytest.fail(f"{done!r} not on screen:\n" + "\n".join(screen_lines(app)))
            await asyncio.sleep(0.1)
            await pilot.pause()
        return first, screen_lines(app)


def test_the_first_frame_shows_drives_being_read_then_their_verdicts(
    tmp_path: Path, smart: SmartBox, monkeypatch: pytest.MonkeyPatch
) -> None:
    smart.env(delay=2.0)  # slower than the first frame waits for SMART
    monkeypatch.setattr(launch, "FIRST_POLL_WAIT_S", 60.0)  # the rest of the poll may be slow
    session = open_box(tmp_path)
    with asyncio.Runner() as runner:
        initial = launch._first_snapshot(session, runner)
        assert initial is not None
        assert states(initial) == [BayState.READING, BayState.READING], initial.drives
        assert all(d.smart_pending for d in initial.drives)
        app = make_app(session, initial=initial, poll_interval=0.3)
        first, later = runner.run(frames(app, "Current_Pending_Sector"))
    screen = "\n".join(first)
    assert "- 0 sda" in screen and "- 1 sdb" in screen, screen
    assert "UNKN" not in screen and "no SMART data" not in screen, screen
    assert "OK  reading SMART" in first[0], first[0]
    assert "no alerts so far; reading SMART of 2 drives" in screen, screen
    # The reads the first poll started ended in the interface: each drive read once.
    assert "+ 0 sda" in "\n".join(later) and "! 1 sdb" in "\n".join(later)
    assert "WARNING" in later[0] and "reading" not in later[0], later[0]
    assert sorted(call[-1][-3:] for call in smart.calls()) == ["sda", "sdb"]


def test_a_hung_smartctl_holds_no_frame_and_its_drive_says_why_at_the_timeout(
    tmp_path: Path, smart: SmartBox, monkeypatch: pytest.MonkeyPatch
) -> None:
    smart.env(hang=["sdb"])
    monkeypatch.setattr(launch, "FIRST_POLL_WAIT_S", 60.0)  # only the SMART wait bounds it
    session = open_box(tmp_path, "[poll]\ncommand_timeout = 2\n")
    with asyncio.Runner() as runner:
        initial = launch._first_snapshot(session, runner)
        assert initial is not None
        # Not held until the runner's timeout (the drive would say "timed out" then): the
        # first frame comes at the first poll's SMART wait, the hung drive being read.
        sda, sdb = states(initial)
        assert sdb is BayState.READING and sda in (BayState.OK, BayState.READING)
        app = make_app(session, initial=initial, poll_interval=0.3)
        first, later = runner.run(frames(app, "timed out"))
    assert "- 1 sdb" in "\n".join(first)
    screen = "\n".join(later)
    assert "? 1 sdb" in screen and "UNKN bay 1 sdb" in screen, screen  # degraded, not dropped
    assert "+ 0 sda" in screen, screen


async def test_the_interfaces_polls_wait_for_smart_only_so_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every poll the interface makes bounds its wait for SMART reads (`POLL_SMART_WAIT_S`),
    so a slow full read every `smart_s` does not freeze what else the screen shows."""
    from nastui.ui.app import POLL_SMART_WAIT_S

    session = open_session(Source(demo=True, history=False, fleet=False), {})
    waits: list[float | None] = []
    real = session.poll

    async def poll(*, wait: float | None = None) -> HostSnapshot:
        waits.append(wait)
        return await real(wait=wait)

    monkeypatch.setattr(session, "poll", poll)
    app = make_app(session, live=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.snapshot is not None
    assert waits and set(waits) == {POLL_SMART_WAIT_S}
