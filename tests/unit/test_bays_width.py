"""`nastui bays` on a terminal narrower than a face: the face in bands of its columns, each
titled, so an 80-column serial console shows the 102-bay top-loader without wrapped rows (its
14 columns took 99 characters); a pipe keeps every row whole for grep and awk."""

from __future__ import annotations

import io
import re

import pytest

from nastui.cli.baytable import column_bands, render_bays
from nastui.core.glyphs import UNICODE
from nastui.model import Thresholds
from nastui.sim.backend import SimBackend
from nastui.sim.clock import FakeClock

CELLS = re.compile(r"\|([^|]*)")


def _bays(scenario: str, width: int | None) -> list[str]:
    snapshot = SimBackend(scenario, clock=FakeClock()).snapshot()
    return render_bays(snapshot, "dev", Thresholds(), UNICODE, width=width).splitlines()


def _devices(lines: list[str]) -> list[str]:
    return [c.strip() for line in lines if line.startswith("|") for c in CELLS.findall(line)]


def test_the_102_bay_top_fits_80_columns_in_two_titled_bands() -> None:
    whole, banded = _bays("datacenter-102", None), _bays("datacenter-102", 80)
    assert max(len(line) for line in whole) == 99
    assert max(len(line) for line in banded) <= 80
    assert [line for line in banded if "columns" in line] == [
        "top (seen from above, front edge first), columns 1-7 of 14:",
        "top (seen from above, front edge first), columns 8-14 of 14:",
    ]
    named = [d for d in _devices(banded) if d.startswith("sd")]
    assert sorted(named) == sorted(d for d in _devices(whole) if d.startswith("sd"))
    assert len(named) == len(set(named)) == 101  # one bay of the 102 is empty


def test_a_face_that_fits_is_drawn_as_before() -> None:
    assert _bays("healthy-24-bay", 80) == _bays("healthy-24-bay", None)


@pytest.mark.parametrize("width", [20, 40, 79, 80, 99, 200])
@pytest.mark.parametrize("columns", [1, 4, 13, 14, 24])
def test_bands_cover_every_column_once_in_equal_sizes(width: int, columns: int) -> None:
    bands = column_bands(columns, 4, width)
    assert [c for band in bands for c in band] == list(range(columns))
    assert max(len(b) for b in bands) - min(len(b) for b in bands) <= max(len(b) for b in bands)
    assert all(1 + len(b) * 7 <= width for b in bands) or all(len(b) == 1 for b in bands)


def test_only_a_terminal_bands_the_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pipe's rows stay whole; a terminal's fit its width (COLUMNS here)."""
    from nastui.cli.args import parse_args
    from nastui.cli.main import run_headless

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("NASTUI_STATE_DIR", raising=False)
    monkeypatch.setenv("HOME", "/nonexistent")
    args = ["--demo", "--scenario", "datacenter-102", "bays"]
    piped, terminal = io.StringIO(), Terminal()
    assert run_headless(parse_args(args), piped) == 0
    assert run_headless(parse_args(args), terminal) == 0
    assert max(len(line) for line in piped.getvalue().splitlines()) == 99
    shown = re.sub(r"\x1b\[[0-9;]*m", "", terminal.getvalue())  # a terminal's are coloured
    assert max(len(line) for line in shown.splitlines()) <= 80
