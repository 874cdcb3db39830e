"""`make screenshots`: SVG pictures of every screen, generated from the simulator.

    python -m nastui.ui.screenshots DIR

Each picture comes from a seeded scenario with the sim clock standing still, so regenerating
changes a file only when the interface changed. Never edit the SVGs by hand.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from textual.pilot import Pilot

from nastui.session import Session, Source, open_session
from nastui.sim.hands import Hand
from nastui.sim.swap import SimSwap
from nastui.ui.app import NastuiApp, make_app


@dataclass(frozen=True, slots=True)
class Shot:
    """One picture: file name, scenario, keys to press first, terminal size, glyph set."""

    name: str
    scenario: str
    keys: tuple[str, ...]
    size: tuple[int, int] = (80, 24)
    ascii_only: bool = False
    caption: str = ""
    hands: tuple[tuple[str, int], ...] = ()  # (pull|insert|fail, bay) done after the keys


SHOTS = (
    Shot("dashboard", "healthy-24-bay", (), caption="Dashboard: the 24-bay RV-4324, all well"),
    Shot(
        "dashboard-failing-drive",
        "failing-drive",
        (),
        caption="A drive with growing pending and reallocated sectors",
    ),
    Shot("dashboard-hot-bay", "hot-bay", ("v",), caption="A dead fan: temperature view"),
    Shot("bays-temperature", "healthy-24-bay", ("b", "v"), caption="Bays screen, temperatures"),
    Shot("bays-102", "datacenter-102", ("b", "v"), (120, 30), caption="A 102-bay top-loader"),
    Shot("pools-scrubbing", "scrubbing", ("p",), caption="Pools: scrub with rate and ETA"),
    Shot("pools-resilvering", "resilvering", ("p",), caption="Pools: resilver of a replaced drive"),
    Shot("fans", "healthy-24-bay", ("f",), caption="Fans: a zone's curve with its operating point"),
    Shot("fans-hot-bay", "hot-bay", ("f",), caption="Fans: a stalled fan, zones at 100 %"),
    Shot(
        "bench",
        "healthy-24-bay",
        ("n", "r"),
        (100, 30),
        caption="Bench: randrw 4k QD1 on the demo's modelled 7200 rpm disk, diskstats beside",
    ),
    Shot(
        "bench-compare",
        "healthy-24-bay",
        ("n", "r", "r", "c"),
        caption="Bench: two runs compared, the first as baseline",
    ),
    Shot(
        "bench-serial-console",
        "healthy-24-bay",
        ("n", "r"),
        ascii_only=True,
        caption="Bench on a serial console: ASCII bars and marks",
    ),
    Shot(
        "drive-detail",
        "failing-drive",
        ("down", "down", "right", "right", "enter"),
        caption="Drive detail: verdict, reasons, SMART attributes",
    ),
    Shot(
        "swap-plan",
        "failing-drive",
        ("down", "down", "right", "right", "w"),
        (100, 30),
        caption="Swap: the plan for bay 10's drive, redundancy left and the exact commands",
    ),
    Shot(
        "swap-wrong-pull",
        "failing-drive",
        ("down", "down", "right", "right", "w", "s", "y"),
        (100, 30),
        caption="Swap: started on bay 10, then bay 11 pulled by mistake: CRITICAL, put it back",
        hands=(("pull", 11),),
    ),
    Shot(
        "swap-inserted",
        "failing-drive",
        ("down", "down", "right", "right", "w", "s", "y"),
        (100, 30),
        caption="Swap: the old drive out, a used one in: checked and refused",
        hands=(("pull", 10), ("insert-used", 10)),
    ),
    Shot("mixed", "mixed", (), (100, 30), caption="HDD, SSD and NVMe; zfs, mdraid and btrfs"),
    Shot(
        "fleet",
        "failing-drive",
        ("H", "down"),
        caption="Fleet: other NAS boxes and a UPS over SNMP; a degraded pool, a silent host",
    ),
    Shot(
        "fleet-host",
        "failing-drive",
        ("H", "down", "enter"),
        (100, 30),
        caption="Fleet host: a TrueNAS box's alerts, drives and pools",
    ),
    Shot(
        "fleet-ups-serial-console",
        "hot-bay",
        ("H", "down", "down"),
        ascii_only=True,
        caption="Fleet on a serial console: the UPS on battery",
    ),
    Shot("help", "healthy-24-bay", ("question_mark",), caption="Help: the key map"),
    Shot(
        "serial-console",
        "failing-drive",
        (),
        ascii_only=True,
        caption="On a serial console (TERM=vt100): plain ASCII",
    ),
)


def take(shot: Shot) -> str:
    """Run the app headless, press the keys, return the SVG."""
    session = open_session(Source(demo=True, scenario=shot.scenario), {})
    if not shot.hands:
        return _take(shot, session)
    with tempfile.TemporaryDirectory(prefix="nastui-shot-") as own:
        session.state_dir = Path(own)  # a swap of its own, never seen by the other pictures
        return _take(shot, session)


def _take(shot: Shot, session: Session) -> str:
    app = make_app(session, ascii_only=shot.ascii_only, live=False)
    app.title = f"nastui --demo --scenario {shot.scenario}"

    svg: list[str] = []

    async def auto(driver: Pilot[object]) -> None:
        await driver.pause()
        for key in shot.keys:
            await driver.press(key)
            await driver.app.workers.wait_for_complete()  # a bench run, modelled
        if shot.hands:
            await _hands(app, shot.hands)
            await driver.pause()
            await driver.app.workers.wait_for_complete()
            app.clear_notifications()  # the swap screen says it all; no toasts over it
        await driver.pause()
        await driver.pause()
        svg.append(app.export_screenshot(title=app.title))
        app.exit(0)

    app.run(headless=True, size=shot.size, auto_pilot=auto)
    return svg[0]


async def _hands(app: NastuiApp, hands: tuple[tuple[str, int], ...]) -> None:
    """The operator's hands on the demo box (`nastui swap sim`), then a fresh snapshot."""
    sim = app.session.backend.swap
    assert isinstance(sim, SimSwap)  # every shot is of the simulator
    now = app.session.clock.now()
    for kind, bay in hands:
        what, _, variant = kind.partition("-")
        sim.add([Hand(what, now, bay, variant or "new")])
    app.poll_now()
    await app.workers.wait_for_complete()


def main(argv: list[str]) -> int:
    """Write every screenshot into the directory named on the command line."""
    target = Path(argv[0] if argv else "screenshots")
    target.mkdir(parents=True, exist_ok=True)
    for shot in SHOTS:
        path = target / f"{shot.name}.svg"
        path.write_text(take(shot), encoding="utf-8")
        print(f"{path}  {shot.caption}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
