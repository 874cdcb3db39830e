"""The held-out set (tests/fixtures/smartctl/heldout: 400 real `smartctl -x` reports drawn at
random from linuxhw's collection before any change) scored by `tests/tools/smart_score.py`:
identity fully right on at least 99.5 % of them, and at most 2 % of the healthy drives warned."""

from __future__ import annotations

from tests.smartbox import SMART
from tests.tools.smart_score import Tally, score_one

HELDOUT = SMART / "heldout"


def _tally(mode: str) -> Tally:
    tally = Tally()
    for line in (HELDOUT / "MANIFEST.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, source = line.split("\t")
            score_one(tally, HELDOUT / name, name, source.split("/")[0], mode)
    return tally


def test_identity_is_fully_right_on_the_held_out_reports() -> None:
    for mode in ("whole", "banner"):
        tally = _tally(mode)
        assert tally.total == 400
        assert tally.right / tally.total >= 0.995, tally.examples[:10]


def test_few_healthy_drives_warn() -> None:
    tally = _tally("whole")
    assert sum(tally.healthy.values()) > 300
    assert sum(tally.warned.values()) / sum(tally.healthy.values()) <= 0.02, tally.warn_keys


def test_reports_cut_before_their_attribute_table_are_unknown() -> None:
    tally = _tally("cut")
    assert tally.total > 300
    assert set(tally.rules) == {"cut before the attribute table: UNKNOWN"}
