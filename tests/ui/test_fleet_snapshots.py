"""Pictures of the fleet screen and a host's drill-down, compared with reviewed SVGs in
__snapshots__/ (seeded scenarios, the sim clock standing still). Each docstring says what the
picture must show; read it before accepting an update (`--snapshot-update`, then look)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.ui.helpers import demo_app

Compare = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
GLYPHS = [pytest.param(False, id="unicode"), pytest.param(True, id="ascii")]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_fleet(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Fleet of the failing-drive scenario: title "fleet: 4 hosts: 2 OK, 1 WARNING, 1
    unreachable"; rows backup-nas "+ OK", archive "! WARNING" with "cold DEGRADED" in its pools,
    ups-rack "+ OK" online 100 %, offsite "X unreachable" with a "~" stale temperature and
    "3 h ago"; the cursor ">" on archive; below, archive's address, pools and its two alerts.
    80x24 keeps host, health, temperature, pools, UPS and contact; 120x40 adds the hottest
    drive's name, the full UPS text, address and profile. ASCII: "37C", + - | borders only."""
    app = demo_app("failing-drive", ascii_only=ascii_only)
    assert snap_compare(app, press=["H", "down"], terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_fleet_host(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Drill-down into archive (failing-drive): "! WARNING", address and profile, sysDescr,
    polled and last contact 12 s ago; its alerts (cold DEGRADED, sdh READ 3 WRITE 112); the
    drives table (sda-sdf WUH721818ALE6L4, sdg-sdh WD40EFRX) with temperatures and "+ OK"; then
    the pools with their vdev trees (120x40 shows serials and more of the trees)."""
    app = demo_app("failing-drive", ascii_only=ascii_only)
    assert snap_compare(app, press=["H", "down", "enter"], terminal_size=size)


def test_fleet_ups_on_battery(snap_compare: Compare) -> None:
    """hot-bay, the UPS host opened: "! WARNING", the on-battery alert whole (its "runtime
    left)" folded onto a second line), "ON BATTERY 68% 28 min, on battery for 9m48s", a charge
    bar at about two thirds, runtime, load, input 0 V."""
    app = demo_app("hot-bay")
    assert snap_compare(app, press=["H", "down", "down", "enter"], terminal_size=(80, 24))


def test_fleet_datacenter_scrolls(snap_compare: Compare) -> None:
    """datacenter-102 at 80x24 with the cursor on the last host: 14 hosts, the table scrolled
    so ups-b (the last) shows with ">", store-05 "! WARNING" at 54 °C, store-08 "! WARNING"
    (node08 80 % full: the capacity alert), the selected host's lines underneath."""
    app = demo_app("datacenter-102")
    assert snap_compare(app, press=["H", "end"], terminal_size=(80, 20))


def test_fleet_unreachable_host(snap_compare: Compare) -> None:
    """offsite opened (failing-drive: it answers only in healthy-24-bay): "X CRITICAL", last
    contact 3 h ago, the poll error in red ("no answer from 192.0.2.40:161 within 2 s (1
    retry): ..."), "below: what it reported 3 h ago", then its four drives and the DataVol1
    volume as last seen; no "no alerts" line."""
    app = demo_app("failing-drive", ascii_only=True)
    assert snap_compare(app, press=["H", "end", "enter"], terminal_size=(80, 24))
