"""The fans screen driven with the keyboard through Pilot: move a curve point, save, reload the
file and find the comments intact; a running fan daemon picks the saved curve up; drafts, undo,
zone switching, refused edits, and saving where there is no file."""

from __future__ import annotations

import io
from pathlib import Path

from nastui.config import load_config
from nastui.core.store import SnapshotStore
from nastui.daemonlog import Log
from nastui.fans.flow.loop import FanDaemon
from nastui.fans.flow.rig import sim_builder
from nastui.fans.io import FanWriter
from nastui.model import CurvePoint
from nastui.session import Source, open_session
from nastui.ui.app import NastuiApp, make_app
from nastui.ui.screens.base import key_bar
from nastui.ui.screens.fans import FansScreen
from nastui.ui.widgets.fancurve import CurveEditor
from nastui.ui.widgets.textpanel import TextPanel
from tests.ui.helpers import demo_app
from tests.ui.screentext import screen_lines

SIZE = (80, 24)
CONFIG = """\
# nano: fans tuned by hand, keep these notes
[[zone]]
# the drive cage
name = "drives"   # hottest drive
curve = [[30, 20], [40, 50], [45, 100]]  # from the old script
hysteresis = 2

[[zone]]
name = "exhaust"
source = "average-drives"
curve = [[25, 30], [45, 80]]

# three 120 mm fans on the wall
[[fan]]
name = "fan-wall-1"
driver = "command"
zone = "drives"
set_command = ["/usr/local/bin/set-fan", "wall", "{duty}"]  # wraps ipmitool
"""


def editor(app: NastuiApp) -> CurveEditor:
    return app.screen.query_one("#curve", CurveEditor)


def panel(app: NastuiApp, name: str) -> str:
    return app.screen.query_one(f"#{name}", TextPanel).plain


def configured_app(tmp_path: Path) -> tuple[NastuiApp, Path]:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    session = open_session(Source(demo=True, config=path), {})
    return make_app(session, live=False), path


async def test_move_a_point_save_and_the_comments_survive(tmp_path: Path) -> None:
    app, path = configured_app(tmp_path)
    daemon = FanDaemon(
        open_session(Source(demo=True, config=path), {}),
        load_config(path).zones,
        [],
        builder=sim_builder(FanWriter(dry_run=True)),
        writer=FanWriter(dry_run=True),
        log=Log(io.StringIO()),
        period=5,
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, FansScreen)
        assert app.focused is editor(app)
        await pilot.press("greater_than_sign", "up", "right")
        await pilot.pause()
        zone = editor(app).zone
        assert zone is not None and zone.curve.points[1] == CurvePoint(41, 55)
        assert "2/3 41 °C 55%" in editor(app).plain and "unsaved" in editor(app).plain
        await pilot.press("s")
        await pilot.pause()
        assert "unsaved" not in editor(app).plain
    text = path.read_text()
    assert text == CONFIG.replace("[40, 50]", "[41, 55]")  # every comment, blank line, order
    assert load_config(path).zones[0].curve.points[1] == CurvePoint(41, 55)
    await daemon.check_config()  # the running daemon notices the file changed
    assert daemon.zones["drives"].zone.curve.points[1] == CurvePoint(41, 55)
    assert daemon.log.lines[-1] == f"configuration reloaded from {path}"


async def test_hysteresis_min_duty_zones_and_undo(tmp_path: Path) -> None:
    app, _ = configured_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f", "right_square_bracket", "M", "M")
        await pilot.pause()
        assert "hyst 2.5  min 30%" in editor(app).plain
        assert "drives     40 °C ->  50%" in panel(app, "preview")
        # the curves' answer, titled as such beside the fans' own duty (45 % on the demo)
        assert app.screen.query_one("#preview").border_title == "curves give now"
        await pilot.press("u")  # one step: the last M
        assert "hyst 2.5  min 25%" in editor(app).plain
        await pilot.press("U")  # every unsaved edit
        assert "hyst 2  min 20%" in editor(app).plain
        await pilot.press("u")  # U itself is one step back
        assert "hyst 2.5  min 25%" in editor(app).plain
        await pilot.press("z")
        await pilot.pause()
        zone = editor(app).zone
        assert zone is not None and zone.name == "exhaust"
        assert app.screen.query_one("#curve-panel").border_title == (
            "zone exhaust 2/2: curve, average-drives"
        )
        assert "exhaust" in panel(app, "replay")


async def test_add_delete_and_a_refused_move(tmp_path: Path) -> None:
    app, _ = configured_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f", "a")
        await pilot.pause()
        zone = editor(app).zone
        assert zone is not None
        assert zone.curve.points[1] == CurvePoint(35, 35)
        await pilot.press("x", "x", "x", "x")  # down to one point, and no further
        zone = editor(app).zone
        assert zone is not None and len(zone.curve.points) == 1
        await pilot.press("right", *["left"] * 60)  # walks to -20 °C, then is refused
        await pilot.pause()
        zone = editor(app).zone
        assert zone is not None and zone.curve.points[0].temp_c == -20
        assert any("neighbours" in str(n.message) for n in app._notifications)


async def test_demo_drafts_cannot_be_saved_without_a_file() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        assert [z.name for z in editor(app).zones] == ["drives", "exhaust"]
        assert "draft" in editor(app).plain
        await pilot.press("s")
        await pilot.pause()
        assert any("--config FILE" in str(n.message) for n in app._notifications)
        assert "fan-wall-2 drives" in panel(app, "fan-list")


async def test_a_draft_saved_into_a_file_is_appended(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('# just a box\nhostname = "nano"\n')
    app = make_app(open_session(Source(demo=True, config=path), {}), live=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f", "s")
        await pilot.pause()
        assert "draft" not in editor(app).plain
    config = load_config(path)
    assert [z.name for z in config.zones] == ["drives"]
    assert path.read_text().startswith('# just a box\nhostname = "nano"\n')


async def test_replay_over_history() -> None:
    from nastui.sim.clock import FakeClock

    app = demo_app()
    app.session.history = None  # only this run's polls: the seeded demo day would hide them
    app.session.store = SnapshotStore()
    clock = app.session.clock
    assert isinstance(clock, FakeClock)
    for _ in range(40):  # twenty minutes of stored history before the screen opens
        await app.session.poll()
        clock.advance(30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        replay = panel(app, "replay")
        assert replay.startswith("drives: 20 min, 41 steps: duty ")
        assert "\ntemp 3" in replay and "\nduty 0-100%  " in replay


def test_the_footer_at_80_columns_names_save_undo_and_the_zone_key() -> None:
    """At 80 columns the footer named the finer edits and left out `s save`, the key the
    editor is for (and never named `u` undo)."""
    footer = key_bar(FansScreen.KEYS, 80).plain
    assert len(footer) <= 80
    for item in ("<> point", "arrows move", "s save", "u undo", "z zone", "? help", "q quit"):
        assert item in footer, footer


async def test_a_zone_name_is_shown_as_written(tmp_path: Path) -> None:
    """The panel title took the zone's name as Textual markup: "cage [/] front" ended the
    interface on a MarkupError, "[bold]" vanished."""
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.replace('"drives"', '"cage [/] front"'))
    app = make_app(open_session(Source(demo=True, config=path), {}), live=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        lines = screen_lines(app)
        assert "zone cage [/] front 1/2: curve" in lines[1], lines[1]
