"""Pure parser of `smartctl -j` (JSON) output into a `SmartReading`.

The live path uses it for the quick temperature and power-mode probe pySMART cannot make
(`smartctl -n standby -j -A`); `nastui smart explain` uses it for JSON captures. Field names are
smartctl's (7.0 to 7.5): `ata_smart_attributes.table`, `nvme_smart_health_information_log`,
`scsi_error_counter_log`, `ata_smart_self_test_log`, `nvme_self_test_log`,
`scsi_self_test_N`. Values it does not have stay None: the JSON lacks the SCSI non-medium error
count, which only the text (pySMART) path reads.

Sample (abridged):
    {"smartctl": {"version": [7, 3], "exit_status": 0}, "device": {"protocol": "ATA"},
     "model_name": "HGST HUS724040ALA640", "smart_status": {"passed": true},
     "temperature": {"current": 36}, "ata_smart_attributes": {"table": [{"id": 5, ...}]}}
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from nastui.collectors.smart.errorlog import errors_from_json
from nastui.collectors.smart.reading import (
    SmartReading,
    celsius,
    clean,
    first_int,
    present,
    self_test_passed,
)
from nastui.collectors.smart.text import power_word
from nastui.model import (
    DriveIdentity,
    NvmeHealth,
    PowerState,
    ScsiHealth,
    SelfTest,
    SmartAttribute,
    Transport,
)
from nastui.model.errors import ParseError

_PROTOCOLS = {"ATA": Transport.SATA, "SCSI": Transport.SAS, "NVME": Transport.NVME}
_WHEN_FAILED = {"now": "FAILING_NOW", "past": "In_the_past"}
_STANDBY_PREFIX = "Device is in "


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def load(text: str, source: str) -> dict[str, Any]:
    """The JSON object smartctl printed.

    Raises:
        ParseError: not JSON, or not an object with smartctl's `smartctl` header.
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ParseError(source, f"not valid JSON ({exc})") from exc
    if not isinstance(data, dict) or not (
        isinstance(data.get("smartctl"), dict) or isinstance(data.get("device"), dict)
    ):
        raise ParseError(source, 'not smartctl -j output (no "smartctl" or "device" object)')
    if "device" not in data and isinstance(data.get("devices"), list):
        raise ParseError(source, "a device list (smartctl --scan), not a drive's report")
    return data


def messages(data: dict[str, Any]) -> list[tuple[str, str]]:
    """smartctl's messages as (severity, text)."""
    out = []
    for item in _list(_dict(data.get("smartctl")).get("messages")):
        entry = _dict(item)
        text = entry.get("string")
        if isinstance(text, str):
            out.append((str(entry.get("severity", "information")), text.strip()))
    return out


def _version(header: dict[str, Any]) -> str | None:
    parts = [p for p in _list(header.get("version")) if _int(p) is not None]
    return ".".join(str(p) for p in parts) if parts else None


def _power(data: dict[str, Any]) -> PowerState:
    for _, text in messages(data):
        if text.startswith(_STANDBY_PREFIX) and " mode" in text:
            return power_word(text[len(_STANDBY_PREFIX) :])
    name = _dict(data.get("power_mode")).get("name")
    return power_word(name) if isinstance(name, str) else PowerState.UNKNOWN


def _wwn(data: dict[str, Any]) -> str | None:
    wwn = _dict(data.get("wwn"))
    naa, oui, ident = _int(wwn.get("naa")), _int(wwn.get("oui")), _int(wwn.get("id"))
    if naa is not None and oui is not None and ident is not None:
        return f"0x{naa:x}{oui:06x}{ident:09x}"
    lu = data.get("logical_unit_id")
    if isinstance(lu, str) and lu.lower().startswith("0x") and len(lu) == 18:
        return lu.lower()
    return None


def _model(data: dict[str, Any]) -> str | None:
    model = clean(data.get("model_name")) or clean(data.get("scsi_model_name"))
    if model:
        return model
    parts = [_scsi_field(data, k) for k in ("vendor", "product")]
    return " ".join(p for p in parts if p) or None


def _scsi_field(data: dict[str, Any], name: str) -> str | None:
    """A SCSI inquiry field: "scsi_vendor" since smartctl 7.1, "vendor" before."""
    return clean(data.get(f"scsi_{name}")) or clean(data.get(name))


def _identity(data: dict[str, Any], transport: Transport) -> DriveIdentity:
    rpm = _int(data.get("rotation_rate"))
    capacity = _int(_dict(data.get("user_capacity")).get("bytes"))
    return DriveIdentity(
        model=_model(data),
        serial=clean(data.get("serial_number")),
        wwn=_wwn(data),
        firmware=clean(data.get("firmware_version")) or _scsi_field(data, "revision"),
        capacity_bytes=capacity or _int(data.get("nvme_total_capacity")) or None,
        transport=transport,
        rotational=False if transport is Transport.NVME else (None if rpm is None else rpm > 0),
        rpm=rpm or None,
        vendor=_scsi_field(data, "vendor"),
    )


def _attribute(row: dict[str, Any]) -> SmartAttribute | None:
    attr_id, name = _int(row.get("id")), row.get("name")
    if attr_id is None or not isinstance(name, str):
        return None
    raw = _dict(row.get("raw"))
    text = raw.get("string")
    raw_string = text if isinstance(text, str) else ""
    flags = _dict(row.get("flags"))
    when = row.get("when_failed")
    return SmartAttribute(
        id=attr_id,
        name=name,
        value=_int(row.get("value")),
        worst=_int(row.get("worst")),
        threshold=_int(row.get("thresh")),
        raw=first_int(raw_string) if raw_string else _int(raw.get("value")),
        raw_string=raw_string.strip(),
        prefailure=bool(flags.get("prefailure")),
        when_failed=_WHEN_FAILED.get(when) if isinstance(when, str) else None,
    )


def _attributes(data: dict[str, Any]) -> tuple[SmartAttribute, ...]:
    table = _list(_dict(data.get("ata_smart_attributes")).get("table"))
    return tuple(a for a in (_attribute(_dict(r)) for r in table) if a is not None)


def _nvme(data: dict[str, Any]) -> NvmeHealth | None:
    log = _dict(data.get("nvme_smart_health_information_log"))
    return present(
        NvmeHealth(
            critical_warning=_int(log.get("critical_warning")),
            percentage_used=_int(log.get("percentage_used")),
            available_spare=_int(log.get("available_spare")),
            available_spare_threshold=_int(log.get("available_spare_threshold")),
            media_errors=_int(log.get("media_errors")),
            unsafe_shutdowns=_int(log.get("unsafe_shutdowns")),
            power_on_hours=_int(log.get("power_on_hours")),
            data_units_written=_int(log.get("data_units_written")),
            error_log_entries=_int(log.get("num_err_log_entries")),
        )
    )


def _scsi(data: dict[str, Any], transport: Transport) -> ScsiHealth | None:
    if transport is not Transport.SAS:
        return None
    counters = _dict(data.get("scsi_error_counter_log"))

    def uncorrected(kind: str) -> int | None:
        return _int(_dict(counters.get(kind)).get("total_uncorrected_errors"))

    return present(
        ScsiHealth(
            grown_defects=_int(data.get("scsi_grown_defect_list")),
            uncorrected_read_errors=uncorrected("read"),
            uncorrected_write_errors=uncorrected("write"),
            uncorrected_verify_errors=uncorrected("verify"),
            power_on_hours=_int(_dict(data.get("power_on_time")).get("hours")),
        )
    )


def _test(kind: Any, status: Any, hours: Any, lba: Any, passed: Any = None) -> SelfTest:
    text = str(_dict(status).get("string", "")).strip()
    verdict = _bool(passed)
    return SelfTest(
        kind=str(_dict(kind).get("string", "")).strip(),
        status=text,
        passed=verdict if verdict is not None else self_test_passed(text),
        lifetime_hours=_int(hours),
        remaining_percent=_int(_dict(status).get("remaining_percent")),
        first_error_lba=_int(lba),
    )


def _ata_tests(data: dict[str, Any]) -> Iterator[SelfTest]:
    log = _dict(data.get("ata_smart_self_test_log"))
    rows = _list(_dict(log.get("extended")).get("table")) or _list(
        _dict(log.get("standard")).get("table")
    )
    for item in rows:
        row = _dict(item)
        status = _dict(row.get("status"))
        yield _test(
            row.get("type"), status, row.get("lifetime_hours"), row.get("lba"), status.get("passed")
        )


def _nvme_tests(data: dict[str, Any]) -> Iterator[SelfTest]:
    for item in _list(_dict(data.get("nvme_self_test_log")).get("table")):
        row = _dict(item)
        yield _test(
            row.get("self_test_code"),
            row.get("self_test_result"),
            row.get("power_on_hours"),
            row.get("lba"),
        )


def _scsi_tests(data: dict[str, Any]) -> Iterator[SelfTest]:
    for number in range(20):
        row = _dict(data.get(f"scsi_self_test_{number}"))
        if row:
            yield _test(
                row.get("code"),
                row.get("result"),
                _dict(row.get("power_on_time")).get("hours"),
                _dict(row.get("lba_first_failure")).get("value"),
            )


def _notes(data: dict[str, Any]) -> tuple[str, ...]:
    notes = []
    for severity, text in messages(data):
        if "ignoring -n option" in text:
            notes.append("smartctl cannot check this drive's power mode: asking it may wake it")
        elif severity == "error":
            notes.append(text)
    return tuple(notes)


def reading_from_json(data: dict[str, Any], source: str) -> SmartReading:
    """A `SmartReading` from smartctl's parsed JSON (see `load`)."""
    header = _dict(data.get("smartctl"))
    device = _dict(data.get("device"))
    transport = _PROTOCOLS.get(str(device.get("protocol", "")).upper(), Transport.UNKNOWN)
    if (_scsi_field(data, "vendor") or "").upper() == "NVME":  # NVMe behind a SCSI translation
        transport = Transport.NVME
    hours = _int(_dict(data.get("power_on_time")).get("hours"))
    tests = (*_ata_tests(data), *_nvme_tests(data), *_scsi_tests(data))
    return SmartReading(
        source=source,
        identity=_identity(data, transport),
        power=_power(data),
        temperature_c=celsius(_dict(data.get("temperature")).get("current")),
        smart_passed=_bool(_dict(data.get("smart_status")).get("passed")),
        attributes=_attributes(data),
        nvme=_nvme(data),
        scsi=_scsi(data, transport),
        self_tests=tests,
        power_on_hours=hours,
        exit_status=_int(header.get("exit_status")),
        version=_version(header),
        notes=_notes(data),
        standby_check_unsupported=any("ignoring -n option" in t for _, t in messages(data)),
        ata_errors=errors_from_json(_dict(data.get("ata_smart_error_log"))),
    )


def parse_json(text: str, source: str) -> SmartReading:
    """`smartctl -j` output as a `SmartReading`.

    Raises:
        ParseError: not smartctl's JSON.
    """
    return reading_from_json(load(text, source), source)
