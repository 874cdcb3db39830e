"""Acknowledgements (a known value becomes the baseline; warn again only when it grows), their
file, and the verdict rules added with real SMART: packed raw values, command timeouts,
attributes failed in the past, and SMART that stopped being readable."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nastui.collectors.smart.acks import AckReader
from nastui.control import acks
from nastui.control.statefile import StateError
from nastui.core.ack import ackable, apply_acks, covers, decode, encode
from nastui.core.health import drive_verdict
from nastui.model import (
    Acknowledgement,
    AttributeLimit,
    Drive,
    DriveIdentity,
    Health,
    Reason,
    SmartAttribute,
    Thresholds,
    Transport,
)

NOW = 1_700_000_000.0
LIMITS = Thresholds()
HGST = DriveIdentity(
    model="HGST HUS724040ALA640", serial="PK1", transport=Transport.SATA, rotational=True
)
SEAGATE = DriveIdentity(model="ST4000NM0033-9ZM170", serial="Z1", transport=Transport.SATA)


def attr(attr_id: int, name: str, raw: int, raw_string: str = "", **kw: object) -> SmartAttribute:
    return SmartAttribute(attr_id, name, 100, 100, 0, raw, raw_string or str(raw), **kw)  # type: ignore[arg-type]


def drive(*attrs: SmartAttribute, identity: DriveIdentity = HGST, **kw: object) -> Drive:
    base = Drive("sda", identity, smart_passed=True, attributes=attrs)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def ack(key: str, value: int | None) -> Acknowledgement:
    return Acknowledgement(key, value, NOW - 100)


def texts(d: Drive, baseline: dict[int, int] | None = None) -> tuple[Health, list[str]]:
    verdict = drive_verdict(d, LIMITS, NOW, baseline)
    return verdict.health, [r.text for r in verdict.reasons]


def test_an_acknowledged_value_counts_as_ok_and_is_still_shown() -> None:
    pending = attr(197, "Current_Pending_Sector", 16)
    assert texts(drive(pending, acks=(ack("attr:197", 16),))) == (
        Health.OK,
        ["Current_Pending_Sector 16 (acknowledged at 16)"],
    )
    reason = drive_verdict(drive(pending, acks=(ack("attr:197", 16),)), LIMITS, NOW).reasons[0]
    assert reason.acknowledged and reason.value == 16


def test_it_warns_again_when_the_value_grows_past_the_acknowledged_one() -> None:
    grown = drive(attr(197, "Current_Pending_Sector", 18), acks=(ack("attr:197", 16),))
    assert texts(grown, {197: 5}) == (
        Health.WARNING,
        ["Current_Pending_Sector 18 (+2 since acknowledged at 16)"],
    )
    fewer = drive(attr(197, "Current_Pending_Sector", 12), acks=(ack("attr:197", 16),))
    assert texts(fewer)[0] is Health.OK


def test_other_findings_are_not_covered_by_an_acknowledgement() -> None:
    d = drive(
        attr(197, "Current_Pending_Sector", 16),
        attr(5, "Reallocated_Sector_Ct", 3),
        acks=(ack("attr:197", 16),),
    )
    assert texts(d) == (
        Health.WARNING,
        ["Reallocated_Sector_Ct 3", "Current_Pending_Sector 16 (acknowledged at 16)"],
    )


def test_rules_for_what_can_be_acknowledged() -> None:
    failed = Reason(Health.CRITICAL, "SMART overall-health self-assessment: FAILED", "smart")
    hot = Reason(Health.WARNING, "temperature 47 °C (warning 45 °C)", "temp")
    assert ackable(failed) and not ackable(hot)
    assert covers(ack("smart", None), failed)
    assert not covers(ack("temp", None), hot)
    nvme = Reason(Health.CRITICAL, "NVMe critical warning 0x04", "nvme:critical_warning", 4)
    assert covers(ack("nvme:critical_warning", 4), nvme)
    assert not covers(ack("nvme:critical_warning", 4), dataclasses.replace(nvme, value=1))
    assert apply_acks([hot], [ack("temp", None)]) == [hot]


def test_the_file_round_trips_and_skips_malformed_entries() -> None:
    text = encode({"PK1": [ack("attr:5", 3), ack("smart", None)]})
    assert decode(text, "acks.json") == {"PK1": (ack("attr:5", 3), ack("smart", None))}
    mixed = (
        '{"drives": {"A": [{"key": "attr:5", "value": "x", "at": 1},'
        ' {"key": "k", "value": 2, "at": 3}]}}'
    )
    assert decode(mixed, "f") == {"A": (Acknowledgement("k", 2, 3.0),)}
    with pytest.raises(ValueError, match=r"^f: not an acknowledgement file"):
        decode("[1, 2]", "f")


def test_control_writes_and_the_collector_reads(tmp_path: Path) -> None:
    reader = AckReader(tmp_path)
    assert reader.read() == {}
    reasons = [
        Reason(Health.WARNING, "Current_Pending_Sector 8", "attr:197", 8),
        Reason(Health.WARNING, "temperature 47 °C", "temp"),
    ]
    done = acks.acknowledge(tmp_path, "PK1", reasons, NOW, "replacement ordered")
    assert [(a.key, a.value, a.note) for a in done] == [("attr:197", 8, "replacement ordered")]
    assert reader.read()["PK1"][0].value == 8
    acks.acknowledge(tmp_path, "PK1", [dataclasses.replace(reasons[0], value=9)], NOW + 1)
    assert [a.value for a in reader.read()["PK1"]] == [9]
    assert acks.clear(tmp_path, "PK1") == 1
    assert reader.read() == {}


def test_a_broken_file_is_one_line_and_counts_as_none(tmp_path: Path) -> None:
    (tmp_path / "acks.json").write_text("{not json")
    reader = AckReader(tmp_path)
    assert reader.read() == {}
    assert reader.error is not None and "acks.json" in reader.error.message


def test_an_unwritable_state_directory_is_a_state_error(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the directory should be")
    with pytest.raises(StateError, match=r"cannot (read|write)"):
        acks.acknowledge(blocker, "PK1", [Reason(Health.WARNING, "x", "attr:5", 1)], NOW)


def test_seagate_packed_raw_values_do_not_trip_a_configured_limit() -> None:
    limits = Thresholds(attributes=(AttributeLimit(1, 1, 100), AttributeLimit(7, 1, 100)))
    seagate = drive(
        attr(1, "Raw_Read_Error_Rate", 163_250_328),
        attr(7, "Seek_Error_Rate", (3 << 32) + 8_592_128),
        identity=SEAGATE,
    )
    verdict = drive_verdict(seagate, limits, NOW)
    assert [r.text for r in verdict.reasons] == ["Seek_Error_Rate 3"]
    split = drive(attr(7, "Seek_Error_Rate", 0, "0/8592128"), identity=SEAGATE)
    assert drive_verdict(split, limits, NOW).health is Health.OK


def test_a_count_too_large_to_be_real_is_read_from_its_low_word() -> None:
    packed = drive(attr(187, "Reported_Uncorrect", 25_797_459_968))
    assert texts(packed) == (Health.OK, [])


def test_command_timeouts_warn_only_when_they_grow() -> None:
    timeouts = drive(attr(188, "Command_Timeout", 5))
    assert texts(timeouts, {188: 5}) == (Health.OK, [])
    assert texts(timeouts, {188: 2}) == (
        Health.WARNING,
        ["Command_Timeout 5 (+3 since first seen)"],
    )


def test_a_prefailure_attribute_failed_in_the_past_warns() -> None:
    spin = drive(attr(3, "Spin_Up_Time", 0, when_failed="In_the_past", prefailure=True))
    assert texts(spin) == (
        Health.WARNING,
        ["Spin_Up_Time failed in the past (worst 100, threshold 0)"],
    )
    hot_once = drive(attr(190, "Airflow_Temperature_Cel", 32, when_failed="In_the_past"))
    assert texts(hot_once) == (Health.OK, [])


def test_smart_that_stopped_working_makes_the_old_data_unknown() -> None:
    stale = drive(
        attr(5, "Reallocated_Sector_Ct", 0),
        smart_problem="SMART not read: smartctl timed out after 20 s",
    )
    health, reasons = texts(stale)
    assert health is Health.UNKNOWN
    assert reasons == [
        "SMART not read: smartctl timed out after 20 s "
        "(the SMART data shown is from the last read that worked)"
    ]
