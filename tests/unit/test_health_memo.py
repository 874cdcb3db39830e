"""`attribute_findings` works findings out again whenever anything they come from changed, even
when the caller changes a baseline in place or hands over equal copies; the simulator builds a
drive's SMART tables once per read."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from nastui.core.health import _attribute_reasons, attribute_findings
from nastui.model import Acknowledgement, Thresholds
from nastui.sim.drives import SmartReads, smart_tables
from nastui.sim.engine import Defects, Reading
from nastui.sim.scenarios import get_scenario
from tests.unit.test_health import LIMITS, attr, hdd


def test_a_baseline_changed_in_place_is_seen() -> None:
    drive = hdd(attr(197, "Current_Pending_Sector", 8))
    baseline = {197: 5}
    first = attribute_findings(drive, LIMITS, baseline)
    assert [r.text for r in first] == ["Current_Pending_Sector 8 (+3 since first seen)"]
    baseline[197] = 8  # the same dict, now saying the value was first seen at 8
    assert [r.text for r in attribute_findings(drive, LIMITS, baseline)] == [
        "Current_Pending_Sector 8"
    ]


def test_an_unchanged_drive_gets_the_same_findings_object() -> None:
    drive = hdd(attr(5, "Reallocated_Sector_Ct", 120))
    first = attribute_findings(drive, LIMITS, {})
    again = dataclasses.replace(drive, attributes=tuple(drive.attributes))
    assert attribute_findings(again, LIMITS, {}) is first


_RAW = st.sampled_from([0, 3, 8, 120, 1 << 40])
_CALL = st.tuples(
    st.lists(st.tuples(st.sampled_from([5, 187, 197, 199]), _RAW), max_size=3),
    st.dictionaries(st.sampled_from([5, 197, 199]), _RAW, max_size=2),
    st.sampled_from([None, 0, 8]),
    st.sampled_from([LIMITS, Thresholds(ssd_retired_normalized_warning=90)]),
    st.sampled_from(["PK1", "PK2"]),
)


@given(st.lists(_CALL, min_size=1, max_size=12))
def test_findings_always_equal_a_fresh_judgement(calls: list[tuple]) -> None:  # type: ignore[type-arg]
    for raws, baseline, acked, limits, serial in calls:
        attrs = tuple(attr(i, f"A{i}", raw) for i, raw in raws)
        acks = () if acked is None else (Acknowledgement("attr:197", acked, 0.0),)
        drive = hdd(*attrs, acks=acks)
        drive = dataclasses.replace(
            drive, identity=dataclasses.replace(drive.identity, serial=serial)
        )
        fresh = tuple(_attribute_reasons(drive, limits, baseline))
        assert attribute_findings(drive, limits, baseline) == fresh


def test_the_simulator_builds_tables_once_per_read() -> None:
    plan = get_scenario("failing-drive").plan(0)
    reads = SmartReads()
    drive = plan.drives[0]
    reading = Reading(35.0, 100.0, 50.0, 34.0)
    first = reads.tables(0, drive, reading, Defects())
    assert first == smart_tables(drive, reading, Defects())
    later = reading._replace(celsius=36.0, measured_at=110.0)  # not a new SMART read
    assert reads.tables(0, drive, later, Defects()) is first
    grown = reads.tables(0, drive, later, Defects(pending=1))
    assert grown is not first and grown == smart_tables(drive, later, Defects(pending=1))
    reread = reads.tables(0, drive, later._replace(smart_at=60.0), Defects(pending=1))
    assert reread is not grown
