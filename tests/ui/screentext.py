"""What a Pilot-driven app shows, as plain lines, and a walk through every screen and dialog.

`screen_lines` reads the composed screen (the top screen with what shows through around a
dialog), the characters a terminal would get; `walk` drives an app through every screen, view
and dialog as an operator would, and yields each picture with a name."""

from __future__ import annotations

from collections.abc import AsyncIterator

from textual.pilot import Pilot

from nastui.ui.app import NastuiApp
from nastui.ui.screens.drive import DriveScreen, every_place

# (keys, name): every screen, view and dialog, from the dashboard.
STEPS: tuple[tuple[tuple[str, ...], str], ...] = (
    ((), "dashboard"),
    *(((("v",), f"dashboard view {i + 2}")) for i in range(5)),
    (("v", "b"), "bays"),
    *(((("v",), f"bays view {i + 2}")) for i in range(5)),
    (("v", "slash", "P", "K", "enter"), "bays filtered"),
    (("escape", "D"), "drive list"),
    (("escape", "w"), "swap"),
    (("escape", "p"), "pools"),
    (("tab",), "pools, next pool"),
    (("f",), "fans"),
    (("n",), "bench"),
    (("o",), "bench options dialog"),
    (("escape", "t"), "bench target dialog"),
    (("escape", "e"), "bench job dialog"),
    (("escape", "H"), "fleet"),
    (("enter",), "fleet host"),
    (("escape", "question_mark"), "help"),
    (("end",), "help, end"),
)
DRIVES_SHOWN = 4  # drive details per walk beyond the ones with findings and in no bay


def screen_lines(app: NastuiApp) -> list[str]:
    """The characters on screen, line by line."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


async def walk(app: NastuiApp, pilot: Pilot[int]) -> AsyncIterator[tuple[str, list[str]]]:
    """Every screen, view and dialog, then the drive details that matter, as (name, lines)."""
    await pilot.pause()
    for keys, name in STEPS:
        await pilot.press(*keys)
        await pilot.pause()
        yield name, screen_lines(app)
    snapshot = app.snapshot
    if snapshot is None:
        return
    places = every_place(snapshot)
    bayed = {s.drive for s in snapshot.slots if s.drive}
    chosen = places[:DRIVES_SHOWN] + [
        (bay, key)
        for bay, key in places[DRIVES_SHOWN:]
        if key is not None
        or any(
            d.verdict.reasons
            for d in snapshot.drives
            if d.key in bayed and snapshot.bay_of(d.key) == bay
        )
    ]
    for bay, key in chosen:
        await app.push_screen(DriveScreen(bay, key=key))
        await pilot.pause()
        yield f"drive {bay if key is None else key}", screen_lines(app)
        app.pop_screen()
        await pilot.pause()
