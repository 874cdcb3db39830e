"""Pure parsing of NUT's network protocol (upsd, TCP 3493) into the `Ups` model.

`parse_list_var` reads the answer to `LIST VAR <ups>`; `nut_error` turns an `ERR` line into one
line for an operator; `ups_from_vars` maps NUT's standard variable names (docs/nut-names.txt in
NUT) to `Ups`, keeping what it understood: a missing or odd value is None, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from nastui.model import Ups, UpsStatus


class NutError(Exception):
    """A NUT server refused or garbled a request; the text is one line for an operator."""


# Sample: VAR rackups battery.charge "100"
_VAR = re.compile(r'VAR (?P<ups>\S+) (?P<name>[A-Za-z0-9_.]+) "(?P<value>(?:[^"\\]|\\.)*)"')
# Sample: ERR UNKNOWN-UPS
_ERR = re.compile(r"ERR (?P<code>[A-Z-]+)(?: (?P<extra>.*))?")
# Sample: \"quoted\" and a back\\slash
_ESCAPE = re.compile(r"\\(.)")

_ERRORS = {
    "UNKNOWN-UPS": "upsd has no UPS of that name: check the name with `upsc -l {host}`",
    "ACCESS-DENIED": "upsd refused this client: allow it in upsd.conf (LISTEN) and upsd.users",
    "DATA-STALE": "upsd has no fresh data from the UPS's driver: check the driver and cable",
    "DRIVER-NOT-CONNECTED": "upsd is not connected to the UPS's driver: start the driver",
}


def nut_error(line: str, where: str) -> NutError | None:
    """The error an `ERR ...` line means, naming `where` ("ups@host:3493"); None otherwise."""
    match = _ERR.fullmatch(line.strip())
    if match is None:
        return None
    code = match["code"]
    host = where.partition("@")[2].rsplit(":", 1)[0]
    hint = _ERRORS.get(code, "see the NUT protocol documentation").format(host=host)
    return NutError(f"{where}: upsd answered {code}: {hint}")


def parse_list_var(lines: Iterable[str], ups: str, where: str) -> tuple[dict[str, str], int]:
    """The variables of a `LIST VAR <ups>` answer, and how many lines were not understood.

    Raises:
        NutError: the answer is an `ERR` line, or has no BEGIN/END frame for `ups`.
    """
    values: dict[str, str] = {}
    skipped = 0
    begun = ended = False
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not begun:
            if (error := nut_error(line, where)) is not None:
                raise error
            begun = line == f"BEGIN LIST VAR {ups}"
            skipped += 0 if begun else 1
            continue
        if line == f"END LIST VAR {ups}":
            ended = True
            break
        match = _VAR.fullmatch(line)
        if match is None or match["ups"] != ups:
            skipped += 1
            continue
        values[match["name"]] = _ESCAPE.sub(r"\1", match["value"])
    if not (begun and ended):
        raise NutError(f"{where}: upsd's answer to LIST VAR was cut short or not NUT")
    return values, skipped


def _number(values: Mapping[str, str], name: str) -> float | None:
    try:
        return float(values[name])
    except (KeyError, ValueError):
        return None


def status_of(tokens: Iterable[str]) -> UpsStatus:
    """Where the power comes from, by NUT's ups.status flags ("OL", "OB DISCHRG", "OB LB")."""
    flags = set(tokens)
    if "OFF" in flags:
        return UpsStatus.OFF
    if "FSD" in flags or ("LB" in flags and "OL" not in flags):
        return UpsStatus.BATTERY_LOW
    if "OB" in flags:
        return UpsStatus.ON_BATTERY
    if "BYPASS" in flags:
        return UpsStatus.BYPASS
    if "OL" in flags:
        return UpsStatus.ONLINE
    return UpsStatus.UNKNOWN


def _model(values: Mapping[str, str]) -> str | None:
    maker = values.get("device.mfr") or values.get("ups.mfr")
    model = values.get("device.model") or values.get("ups.model")
    parts = [p.strip() for p in (maker, model) if p and p.strip()]
    if len(parts) == 2 and parts[1].lower().startswith(parts[0].lower()):
        parts = parts[1:]
    return " ".join(parts) or None


def ups_from_vars(name: str, values: Mapping[str, str], on_battery_s: float | None) -> Ups:
    """The `Ups` NUT's variables describe; `on_battery_s` is the caller's count since it saw
    the UPS switch to battery (NUT has no such variable)."""
    tokens = values.get("ups.status", "").split()
    status = status_of(tokens)
    on_battery = status in (UpsStatus.ON_BATTERY, UpsStatus.BATTERY_LOW)
    return Ups(
        name,
        status=status,
        model=_model(values),
        charge_percent=_number(values, "battery.charge"),
        runtime_s=_number(values, "battery.runtime"),
        on_battery_s=on_battery_s if on_battery else None,
        load_percent=_number(values, "ups.load"),
        input_voltage=_number(values, "input.voltage"),
        battery_replace="RB" in tokens,
    )
