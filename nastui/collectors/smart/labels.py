"""Identity, temperature and power-on time read from a smartctl text report by smartctl's exact
labels: the fields pySMART gets wrong or leaves out, shared by the live and the capture path.

- Model: `Device Model:` (ATA), `Model Number:` (NVMe), `Product:` (SCSI) only; pySMART takes
  any line containing "Product", so `Add. Product Id: DELL(tm)` became the model.
- Temperature: attribute 194, then 190 (smartctl's own order: 190 is airflow or case, up to
  11 °C low on Intel DC SSDs), then the SCT status `Current Temperature:`, then NVMe's
  `Temperature:` and SCSI's `Current Drive Temperature:`.
- SCSI power-on time: `Accumulated power on time, hours:minutes 47823:28`, else Seagate's
  `number of hours powered up = 47823.47`.
- NVMe drives behind a SCSI translation (`Vendor: NVMe`) are NVMe, not SAS.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nastui.collectors.smart.reading import clean
from nastui.collectors.smart.text import BANNER
from nastui.model import SmartAttribute, Transport

# Sample: Device Model:     FUJITSU MHW2120BH    (also "Model Number:", "Product:", "Vendor:")
_LABEL = re.compile(
    r"^(?P<label>Device Model|Model Number|Product|Vendor|Serial [Nn]umber):\s*(?P<value>.*?)\s*$"
)
# Sample: Current Temperature:                    30 Celsius        (SCT status, -x)
_SCT_TEMP = re.compile(r"^Current Temperature:\s+(?P<c>-?\d+) Celsius")
# Sample: Temperature:                        31 Celsius            (NVMe)
_NVME_TEMP = re.compile(r"^Temperature:\s+(?P<c>-?\d+) Celsius")
# Sample: Current Drive Temperature:     38 C                       (SCSI)
_SCSI_TEMP = re.compile(r"^Current Drive Temperature:\s+(?P<c>-?\d+) C\b")
# Sample: Power On Hours:                     1,315
_NVME_HOURS = re.compile(r"^Power On Hours:\s+(?P<h>[\d,]+)\s*$")
# Sample: Accumulated power on time, hours:minutes 47823:28
_SCSI_HOURS = re.compile(r"^\s*Accumulated power on time, hours:minutes (?P<h>\d+):\d+")
# Sample:     number of hours powered up = 47823.47               (Seagate SAS, -x background log)
_SEAGATE_HOURS = re.compile(r"^\s*number of hours powered up = (?P<h>\d+)(?:\.\d+)?\s*$")
MODEL_LABELS = ("Device Model", "Model Number", "Product")
TRANSPORTS = {"sat": Transport.SATA, "scsi": Transport.SAS, "nvme": Transport.NVME}
TEMPERATURE_IDS = (194, 190)


def labelled(lines: Sequence[str]) -> dict[str, str]:
    """The first value of each identity label ("Device Model" -> "FUJITSU MHW2120BH")."""
    found: dict[str, str] = {}
    for line in lines:
        match = _LABEL.match(line)
        if match:
            found.setdefault(match["label"].title(), match["value"])
    return found


def model(lines: Sequence[str]) -> str | None:
    """The model by its exact label; None when the report has none."""
    found = labelled(lines)
    return next((clean(found[k.title()]) for k in MODEL_LABELS if k.title() in found), None)


def serial(lines: Sequence[str]) -> str | None:
    """The serial number by its exact label (a redaction is None)."""
    return clean(labelled(lines).get("Serial Number"))


def nvme_behind_scsi(lines: Sequence[str]) -> bool:
    """An NVMe drive reported through a SCSI translation layer ("Vendor: NVMe")."""
    return (labelled(lines).get("Vendor") or "").strip().upper() == "NVME"


def transport(lines: Sequence[str], interface: str) -> Transport:
    """How the drive is attached, by the smartctl interface its report came from; an NVMe
    drive behind a SCSI translation is NVMe."""
    if nvme_behind_scsi(lines):
        return Transport.NVME
    return TRANSPORTS.get(interface, Transport.UNKNOWN)


def _attribute_celsius(attributes: Sequence[SmartAttribute]) -> float | None:
    by_id = {a.id: a for a in attributes}
    for attr_id in TEMPERATURE_IDS:
        attr = by_id.get(attr_id)
        if attr is None or "temp" not in attr.name.lower():
            continue
        match = re.match(r"\s*(\d+)", attr.raw_string)
        value = int(match.group(1)) if match else None
        if value is not None and 0 < value < 128:
            return float(value)
    return None


def temperature(lines: Sequence[str], attributes: Sequence[SmartAttribute]) -> float | None:
    """The drive's temperature by smartctl's order of sources; None when it has none."""
    found = _attribute_celsius(attributes)
    if found is not None:
        return found
    for pattern in (_SCT_TEMP, _NVME_TEMP, _SCSI_TEMP):
        for line in lines:
            match = pattern.match(line)
            if match and 0 < int(match["c"]) < 128:
                return float(match["c"])
    return None


def scsi_power_on_hours(lines: Sequence[str]) -> int | None:
    """A SCSI drive's power-on hours from the accumulated time, else Seagate's background log."""
    for pattern in (_SCSI_HOURS, _SEAGATE_HOURS):
        for line in lines:
            match = pattern.match(line)
            if match:
                return int(match["h"])
    return None


def nvme_power_on_hours(lines: Sequence[str]) -> int | None:
    """An NVMe drive's power-on hours."""
    for line in lines:
        match = _NVME_HOURS.match(line)
        if match:
            return int(match["h"].replace(",", ""))
    return None


def has_banner(lines: Sequence[str]) -> bool:
    """The report starts with smartctl's banner (a pasted report often does not)."""
    first = next((line for line in lines if line.strip()), "")
    return bool(BANNER.match(first))
