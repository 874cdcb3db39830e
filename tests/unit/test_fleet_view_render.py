"""The fleet table's columns at 80 columns and wider, and the host drill-down's text (pure)."""

from __future__ import annotations

import pytest

from nastui.core.fleetview import FleetRow, fleet_rows, host_health
from nastui.core.glyphs import ASCII, UNICODE
from nastui.sim.clock import SIM_EPOCH
from nastui.sim.fleet import SimFleet
from nastui.ui.render.fleet import (
    alerts_detail,
    drives_text,
    header_line,
    host_header,
    plan_columns,
    selected_text,
    table_lines,
    ups_detail,
)

ESSENTIAL = {"name", "status", "pools", "contact"}


def rows(scenario: str = "failing-drive") -> tuple[FleetRow, ...]:
    return fleet_rows(SimFleet(scenario).hosts_at(SIM_EPOCH), SIM_EPOCH)


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120, 200])
@pytest.mark.parametrize("scenario", ["failing-drive", "hot-bay", "datacenter-102"])
def test_lines_fit_and_keep_the_essential_columns(width: int, scenario: str) -> None:
    table = rows(scenario)
    columns = plan_columns(table, width)
    assert {c.key for c in columns} >= ESSENTIAL
    assert header_line(columns).cell_len <= width
    for line in table_lines(table, 0, width, UNICODE).split("\n"):
        assert line.cell_len <= width


def test_80_columns_show_temperature_and_ups_wide_adds_address() -> None:
    table = rows("hot-bay")
    narrow = [c.key for c in plan_columns(table, 80)]
    assert narrow == ["name", "status", "hot", "pools", "ups", "contact"]
    wide = [c.key for c in plan_columns(table, 120)]
    assert {"address", "profile"} <= set(wide)
    text = table_lines(table, 2, 80, UNICODE).plain.split("\n")
    assert text[2].startswith("> ups-rack   ! WARNING")
    assert "ON BATT 68% 28m" in text[2]
    assert text[3].startswith("  offsite    X unreachable ~35°C")
    assert "3 h ago" in text[3]


def test_selected_row_is_marked_and_reversed() -> None:
    line = table_lines(rows(), 1, 80, UNICODE).split("\n")[1]
    assert line.plain.startswith("> archive")
    assert any("reverse" in str(span.style) for span in line.spans)


def test_ascii_table_has_no_degree_sign() -> None:
    table = fleet_rows(SimFleet().hosts_at(SIM_EPOCH), SIM_EPOCH, degree="")
    assert table_lines(table, 0, 80, ASCII).plain.isascii()


def test_selected_text_lists_alerts_and_says_how_many_more() -> None:
    fleet = SimFleet("failing-drive").hosts_at(SIM_EPOCH)
    table = fleet_rows(fleet, SIM_EPOCH)
    text = selected_text(table[1], fleet[1], 10, 80, UNICODE).plain.split("\n")
    assert text[0].startswith("archive  192.0.2.30:161  truenas  last contact <1 min ago")
    assert "pools  tank ONLINE, cold DEGRADED" in text
    assert "WARN cold: pool DEGRADED" in text
    short = selected_text(table[1], fleet[1], 3, 80, UNICODE).plain.split("\n")
    assert len(short) == 3
    assert short[-1].startswith("... ")
    offsite = selected_text(table[3], fleet[3], 6, 80, UNICODE).plain
    assert "no answer from 192.0.2.40:161" in offsite


def test_host_detail_sections() -> None:
    fleet = {h.name: h for h in SimFleet("hot-bay").hosts_at(SIM_EPOCH)}
    offsite = fleet["offsite"]
    head = host_header(offsite, host_health(offsite, SIM_EPOCH), SIM_EPOCH, 80, UNICODE).plain
    assert "last contact 3 h ago" in head
    assert "below: what it reported 3 h ago" in head
    assert offsite.snapshot is not None
    assert alerts_detail(offsite.snapshot, 80, stale=True).plain == ""
    archive = fleet["archive"]
    assert archive.snapshot is not None
    drives = drives_text(archive.snapshot, 80, UNICODE).plain.split("\n")
    assert drives[1].split() == ["DRIVE", "MODEL", "TEMP", "HEALTH"]
    assert len(drives) == 2 + len(archive.snapshot.drives)
    assert "SERIAL" in drives_text(archive.snapshot, 120, UNICODE).plain
    rack = fleet["ups-rack"]
    assert rack.snapshot is not None
    ups = ups_detail(rack.snapshot.ups[0], 80, ASCII).plain
    assert "! ON BATTERY 68% 28 min, on battery for 9m48s" in ups
    assert "charge  ####" in ups
    assert "input 0 V" in ups
    # the drill-down's alerts whole, folded under themselves: cut at 80 columns, the UPS's
    # lost its "runtime left"
    alerts = alerts_detail(rack.snapshot, 80).plain.split("\n")
    assert alerts[1:] == [
        "WARN ups-rack: on battery: mains power lost (for 9m48s, charge 68%, 28m00s",
        "     runtime left)",
    ]
