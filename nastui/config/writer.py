"""Saving an edited fan zone back into the configuration file, keeping the user's comments.

tomlkit edits the document in place: only the zone's `curve`, `hysteresis` and `min_duty`
values change (the last two are added only when they differ from the defaults), a zone not in
the file is appended as a new `[[zone]]` table, and every comment, blank line and key order
stays. The new text is checked with the loader before anything is written, so a save never
leaves a file the daemon would refuse. The file is replaced atomically (temporary file +
rename, mode kept) where the directory allows it, else rewritten in place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import AoT, Array, Table

from nastui.config.loader import ConfigError, config_text, parse_config
from nastui.config.schema import Config
from nastui.model import FanZone, ZoneMode
from nastui.safeio import write_atomic


def _number(value: float) -> int | float:
    """30.0 is written 30: the file keeps the look a person gave it."""
    return int(value) if float(value).is_integer() else round(value, 2)


def _curve_array(zone: FanZone) -> Array:
    outer = tomlkit.array()
    for point in zone.curve.points:
        inner = tomlkit.array()
        inner.extend([_number(point.temp_c), _number(point.duty_percent)])
        outer.append(inner)
    return outer


# What the loader assumes when a key is left out (`validate_fans._curve`).
DEFAULTS = {"hysteresis": 2, "min_duty": 20}


def _edited_values(zone: FanZone, table: Table | None) -> dict[str, Any]:
    """The values to set: the curve, and hysteresis and min duty where the table has them or
    they differ from what leaving them out would mean."""
    values: dict[str, Any] = {"curve": _curve_array(zone)}
    for key, value in (("hysteresis", zone.curve.hysteresis_c), ("min_duty", zone.curve.min_duty)):
        if (table is not None and key in table) or value != DEFAULTS[key]:
            values[key] = _number(value)
    return values


def _new_table(zone: FanZone) -> Table:
    table = tomlkit.table()
    table["name"] = zone.name
    sources = [s.value for s in zone.sources]
    table["source"] = sources[0] if len(sources) == 1 else sources
    if zone.mode is ZoneMode.PID:
        table["mode"] = zone.mode.value
        table["setpoint"] = _number(zone.setpoint_c)
    for key, value in _edited_values(zone, None).items():
        table[key] = value
    return table


def updated_text(text: str, zone: FanZone) -> str:
    """`text` with `zone`'s curve, hysteresis and min duty set (the zone added if missing).

    Raises:
        ValueError: `zone` in the file is not a list of `[[zone]]` tables.
    """
    doc = tomlkit.parse(text)
    tables = doc.get("zone")
    if tables is None:
        tables = tomlkit.aot()
        doc.append("zone", tables)
    if not isinstance(tables, AoT):
        raise ValueError("zone must be written as [[zone]] tables")
    for table in tables:
        if table.get("name") == zone.name:
            for key, value in _edited_values(zone, table).items():
                table[key] = value
            break
    else:
        tables.append(_new_table(zone))
    return tomlkit.dumps(doc)


def save_zone(path: Path, zone: FanZone) -> Config:
    """Write `zone` into the configuration file at `path`; returns the configuration now in it.

    Raises:
        ConfigError: the file cannot be read or written, or the result would not load (then
            nothing is written).
    """
    text = config_text(path)  # a regular file only: a FIFO in its place is refused at once
    try:
        new = updated_text(text, zone)
    except ValueError as exc:
        raise ConfigError(path, None, "zone", f"cannot update {path.name}: {exc}") from None
    config = parse_config(new, path)
    try:
        replace_text(path, new)
    except OSError as exc:
        raise ConfigError(path, None, "", f"cannot write {path.name}: {exc.strerror}") from None
    return config


def replace_text(path: Path, text: str) -> None:
    """Replace the configuration file atomically, its mode kept, where the directory lets us
    create a file; else rewrite it in place (`nastui.safeio.write_atomic`)."""
    write_atomic(path, text, path.stat().st_mode & 0o7777, in_place=True)
