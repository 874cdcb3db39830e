"""The interface's locate key on a real box's empty bay: a drive pulled with its LED lit leaves
the bay shown lit (`*`), and `L` puts it out in the enclosure slot it was lit in.

The real path: a fake /sys tree with an SES enclosure and a fake `smartctl` on PATH
(tests/smartbox.py), the real `LocalBackend`, session, locate ladder and interface."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nastui.model import LedState
from nastui.session import Source, open_session
from nastui.ui.app import make_app
from nastui.ui.widgets.baygrid import BayGrid
from tests.ledbox import pull, tree_digest
from tests.smartbox import fake_box

SIZE = (100, 30)


async def test_the_locate_key_puts_out_an_empty_bays_led(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = fake_box(tmp_path)
    for key, value in box.env.items():
        monkeypatch.setenv(key, value)
    slot = box.root / "sys/class/enclosure/2:0:24:0/Slot01/locate"
    session = open_session(
        Source(root=box.root, config=box.config, live=True, history=False, fleet=False),
        os.environ,
    )
    await session.poll()
    assert (await session.locator.locate(1, True)).ok and slot.read_text() == "1\n"
    pull(box.root, "sdc")
    initial = await session.poll()
    bay = initial.slot(1)
    assert bay is not None and bay.drive is None and bay.led is LedState.LOCATE
    rest = tree_digest(box.root, skip=(slot,))
    app = make_app(session, initial=initial)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#grid", BayGrid).selected = 1
        await pilot.press("L")
        await pilot.pause(0.3)
        assert slot.read_text() == "0\n"
        assert tree_digest(box.root, skip=(slot,)) == rest
        after = app.snapshot.slot(1) if app.snapshot else None
        assert after is not None and after.led is not LedState.LOCATE
