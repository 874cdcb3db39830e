"""Pictures of every screen, compared with reviewed SVGs in __snapshots__/.

Seeded scenarios, the sim clock standing still, no animation: the same picture every run.
Each test's docstring says what its pictures must show; read it before accepting an update
(`pytest tests/ui/test_snapshots.py --snapshot-update`, then look at the SVGs).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.ui.helpers import demo_app

Compare = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
GLYPHS = [pytest.param(False, id="unicode"), pytest.param(True, id="ascii")]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_dashboard(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Dashboard of the healthy RV-4324: title with host "nano", state OK; the 6x4 bay grid
    with bay 0 selected in brackets, each cell "+N sdX" over its temperature; pools panel with
    storage ONLINE and the last scrub 12 days ago; fans at ~1100/~2000 rpm; "no alerts"; the
    selected-bay line and the key bar. ASCII variant: only + - | borders, no degree signs."""
    assert snap_compare(demo_app(ascii_only=ascii_only), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_bays(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Bays screen of the RV-4324 in the temperature view: the full-width grid, warmer top
    rows, each cell's value coloured by temperature band and its device name below."""
    assert snap_compare(demo_app(ascii_only=ascii_only), press=["b", "v"], terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_pools(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Pools screen during the scrub: a progress bar at about 40 %, bytes done of total, rate,
    ETA, errors and repaired, the last completed scrub, the monthly timer, and the raidz3-0
    tree with READ/WRITE/CKSUM, device and bay columns."""
    assert snap_compare(
        demo_app("scrubbing", ascii_only=ascii_only), press=["p"], terminal_size=size
    )


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_drive_detail(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Drive detail of the failing drive in bay 10 (sdp): identity, power and temperature with
    its age, health CRITICAL with its reasons (the extended self-test's read failure 8 power-on
    hours ago first, then pending, reallocated, offline uncorrectable), and the start of the
    SMART attribute table."""

    async def open_bay_10(pilot: object) -> None:
        from textual.pilot import Pilot

        assert isinstance(pilot, Pilot)
        await pilot.pause()
        await pilot.press("down", "down", "right", "right", "enter")

    assert snap_compare(
        demo_app("failing-drive", ascii_only=ascii_only),
        run_before=open_bay_10,
        terminal_size=size,
    )


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_help(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Help: the key map (screens, movement, Enter, v, L/i locate, / filter, w swap) and the
    meaning of every bay mark (R rebuilding among them)."""
    app = demo_app(ascii_only=ascii_only)
    assert snap_compare(app, press=["question_mark"], terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_dashboard_hot_bay(snap_compare: Compare, size: tuple[int, int]) -> None:
    """A dead fan: title CRITICAL, fan-wall-2 at 0 rpm marked STALLED in the alerts strip; the
    top-middle bays at 45 and 49 °C stay "+" (an HDD warns at 50 °C, 10 short of its rating)."""
    assert snap_compare(demo_app("hot-bay"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_dashboard_mixed(snap_compare: Compare, size: tuple[int, int]) -> None:
    """The 12-bay 2U with three pool kinds (zfs, mdraid, btrfs), an empty bay "." and a missing
    one "#" (CRITICAL in the title and the alerts strip)."""
    assert snap_compare(demo_app("mixed"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_bays_102(snap_compare: Compare, size: tuple[int, int]) -> None:
    """The 102-bay top-loader: titled "top", rows of 14 then 12, compact one-line cells at
    80x24, the one empty bay at the end of the last row."""
    assert snap_compare(demo_app("datacenter-102"), press=["b", "v"], terminal_size=size)


def test_dashboard_102_stacks_panels(snap_compare: Compare) -> None:
    """At 80x24 the 102-bay grid takes the full width and the pools and fans panels sit side
    by side beneath it."""
    assert snap_compare(demo_app("datacenter-102"), terminal_size=(80, 24))


def test_filter(snap_compare: Compare) -> None:
    """Bays screen filtering for "sdk": every bay but 13 dimmed, the filter line at the bottom."""
    assert snap_compare(demo_app(), press=["b", "slash", *"sdk"], terminal_size=(80, 24))
