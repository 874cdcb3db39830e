"""IPMI sensors through ipmitool: fan RPM and temperatures from the BMC (parsers are pure).

`ipmitool sdr list`, `sdr elist` and `sensor` print the same readings in three table shapes;
`parse_sdr` reads all three. Discrete sensors (`0x00`, "Presence detected") are left out, and
so is an sdr reading of "Not Readable" (it says no unit); `sensor` rows keep an unreadable
analog sensor ("na" in RPM) with value None. Lines ipmitool prints when one sensor fails
("Unable to send command: ...") are passed over; any other line it does not know (ipmitool
1.8.19 starts with "IANA PEN registry open failed" where its data file is missing) becomes a
note naming it, and every reading around it is kept.

Sample (`sdr list`):   Fan1             | 1200 RPM          | ok
Sample (`sdr elist`):  Inlet Temp       | 04h | ok  |  7.1 | 25 degrees C
Sample (`sensor`):     FCB FAN1   | 5600.000   | RPM        | ok    | na        | 1500.000  | ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.pools_parse import note
from nastui.collectors.runner import run
from nastui.core.redact import SECRETS
from nastui.model import Fan, Sensor

# Sample: 41 degrees C    1200 RPM    12.04 Volts    110 Watts, Presence detected    -3 degrees C
_READING = re.compile(r"^(?P<value>-?\d+(?:\.\d+)?)\s+(?P<unit>[A-Za-z][A-Za-z ]*?)\s*(?:,.*)?$")
# Sample: 5600.000    na    0x0
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
# Sample: Unable to send command: Invalid argument    Get HPM.x Capabilities request failed
_NOISE = re.compile(r"^(Unable to |Error|Get .* failed|Close Session command failed|Set Session)")
UNITS = {
    "degrees c": "C",
    "degrees f": "F",
    "rpm": "RPM",
    "volts": "V",
    "watts": "W",
    "amps": "A",
    "percent": "%",
}
DEVICES = ("dev/ipmi0", "dev/ipmi/0", "dev/ipmidev/0")


@dataclass(frozen=True, slots=True)
class IpmiReading:
    """One analog sensor: name, value (None when not readable), unit ("C", "RPM", "V"...) and
    the status column ("ok", "nc", "cr", "ns")."""

    name: str
    value: float | None
    unit: str
    status: str


def _unit(text: str) -> str | None:
    return UNITS.get(text.strip().lower())


def _reading(name: str, reading: str, status: str) -> IpmiReading | None:
    """From an sdr "41 degrees C" column; None for a discrete or empty reading."""
    match = _READING.match(reading)
    if match:
        unit = _unit(match["unit"]) or match["unit"]
        return _celsius(IpmiReading(name, float(match["value"]), unit, status))
    return None


def _sensor_row(fields: list[str]) -> IpmiReading | None:
    """From a `sensor` row: value column, unit column, status column."""
    name, value, unit_text, status = fields[:4]
    if unit_text.lower() == "discrete":
        return None
    unit = _unit(unit_text) or unit_text
    number = float(value) if _NUMBER.match(value) else None
    return _celsius(IpmiReading(name, number, unit, status))


def _celsius(reading: IpmiReading) -> IpmiReading:
    if reading.unit != "F":
        return reading
    value = round((reading.value - 32) * 5 / 9, 1) if reading.value is not None else None
    return IpmiReading(reading.name, value, "C", reading.status)


def _row(fields: list[str]) -> IpmiReading | None:
    """One table row by its column count (3: sdr list, 5: sdr elist, 10: sensor)."""
    if len(fields) == 3:
        return _reading(fields[0], fields[1], fields[2])
    if len(fields) == 5:
        return _reading(fields[0], fields[4], fields[2])
    return _sensor_row(fields)


def parse_sdr_report(text: str) -> tuple[list[IpmiReading], list[str]]:
    """The analog readings in `ipmitool sdr list`, `sdr elist` or `ipmitool sensor` output, and
    a note per line of none of those shapes (naming it). Never raises."""
    readings: list[IpmiReading] = []
    notes: list[str] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or _NOISE.match(line.strip()):
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) not in (3, 5, 10):
            reason = f"{len(fields)} columns, expected 3, 5 or 10"
            notes.append(note("ipmitool output", reason, line_no, line))
            continue
        found = _row(fields)
        if found is not None and found.name:
            readings.append(found)
    return readings, notes


def parse_sdr(text: str) -> list[IpmiReading]:
    """The analog readings (see `parse_sdr_report`); never raises."""
    return parse_sdr_report(text)[0]


def fans_and_sensors(readings: list[IpmiReading]) -> tuple[list[Fan], list[Sensor]]:
    """Readings in RPM as fans; every other analog reading as a sensor (source "ipmi")."""
    fans: list[Fan] = []
    sensors: list[Sensor] = []
    for r in readings:
        if r.unit == "RPM":
            rpm = round(r.value) if r.value is not None else None
            fans.append(Fan(r.name, rpm, None, driver="ipmi"))
        else:
            sensors.append(Sensor(r.name, r.value, r.unit, "ipmi", r.status))
    return fans, sensors


@dataclass(frozen=True, slots=True)
class IpmiTarget:
    """Which BMC ipmitool talks to: this machine's (the `open` interface, /dev/ipmi0) or one
    over the network (lanplus).

    Attributes:
        host: BMC address for lanplus; None for the local BMC.
        port: RMCP+ port.
        user: BMC user name.
        password: BMC password (handed to ipmitool in the environment, never in argv).
        cipher: lanplus cipher suite (3: AES-128, HMAC-SHA1; ipmitool warns without one).
    """

    host: str | None = None
    port: int = 623
    user: str = "ADMIN"
    password: str | None = None
    cipher: int = 3

    def base(self) -> tuple[str, ...]:
        """The ipmitool argv prefix that reaches this BMC."""
        if self.host is None:
            return ("ipmitool",)
        lan = ("-I", "lanplus", "-C", str(self.cipher), "-H", self.host, "-p", str(self.port))
        return ("ipmitool", *lan, "-U", self.user, "-E")

    def env(self) -> dict[str, str]:
        """Environment for ipmitool: `-E` reads the password from IPMI_PASSWORD."""
        if self.password is None:
            return {}
        SECRETS.add(self.password)
        return {"IPMI_PASSWORD": self.password}


def sdr_argv(target: IpmiTarget) -> tuple[str, ...]:
    """The command that lists analog sensors with their readings."""
    return (*target.base(), "sdr", "elist", "full")


def local_bmc(root: Path) -> bool:
    """Whether the machine has a BMC device node (ipmi_devintf loaded)."""
    return any((root / device).exists() for device in DEVICES)


async def read_ipmi(target: IpmiTarget, timeout: float) -> tuple[list[IpmiReading], str | None]:
    """The BMC's analog readings, and what went wrong in one line: the tool failing (then no
    readings), or lines of its output not understood (the readings around them are kept)."""
    result = await run(sdr_argv(target), timeout=timeout, env=target.env())
    if result.not_found:
        return [], "ipmitool not found: install ipmitool to read the BMC's fans and sensors"
    if not result.ok:
        return [], f"IPMI: {result.describe()}"
    readings, notes = parse_sdr_report(result.stdout)
    if not notes:
        return readings, None
    more = f" (and {len(notes) - 1} more line(s))" if len(notes) > 1 else ""
    return readings, f"IPMI: {notes[0]}{more}"
