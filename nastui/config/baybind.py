"""Rebinding a bay to the drive that replaced its old one, keeping the user's comments.

When bays are bound by serial (`[[chassis.bay]]` with `serial = "..."`), a finished swap would
leave the bay MISSING and the new drive unplaced. `rebind_text` changes that one value with
tomlkit (every comment, blank line and key order stays); `rebind` checks the result with the
loader before it writes, and replaces the file atomically, as the fan-zone writer does.
"""

from __future__ import annotations

from pathlib import Path

import tomlkit
from tomlkit.items import AoT, Table

from nastui.config.loader import ConfigError, config_text, parse_config
from nastui.config.schema import Config
from nastui.config.writer import replace_text


def rebind_text(text: str, bay: int, old_serial: str, new_serial: str) -> str | None:
    """`text` with bay `bay`'s serial binding changed from `old_serial` to `new_serial`; None
    when the bay is not bound by that serial (bound otherwise, or not at all)."""
    doc = tomlkit.parse(text)
    chassis = doc.get("chassis")
    bays = chassis.get("bay") if isinstance(chassis, Table) else None
    if not isinstance(bays, AoT):
        return None
    for table in bays:
        serial = table.get("serial")
        if table.get("bay") == bay and isinstance(serial, str):
            if serial.strip().lower() != old_serial.strip().lower():
                return None
            table["serial"] = new_serial
            return tomlkit.dumps(doc)
    return None


def rebind(path: Path, bay: int, old_serial: str, new_serial: str) -> Config | None:
    """Write the new binding into the file at `path`; the configuration now in it, or None when
    the bay was not bound by the old serial (nothing written).

    Raises:
        ConfigError: the file cannot be read or written, or the result would not load.
    """
    new = rebind_text(config_text(path), bay, old_serial, new_serial)
    if new is None:
        return None
    config = parse_config(new, path)
    try:
        replace_text(path, new)
    except OSError as exc:
        raise ConfigError(path, None, "", f"cannot write {path.name}: {exc.strerror}") from None
    return config
