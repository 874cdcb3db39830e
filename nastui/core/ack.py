"""Acknowledgements (pure): an operator's "I know" for a drive's finding.

Acknowledging a finding makes its current value the new baseline: the finding is still shown,
marked acknowledged, but counts as OK until the value grows past the acknowledged one (for a
bitmask such as NVMe's critical warning: until it changes). A finding without a count (the
drive's own FAILED assessment) stays acknowledged until it clears. Temperatures and "no data"
findings cannot be acknowledged: they are states, not counts.

Acknowledgements are kept per drive serial in a JSON file (`encode`/`decode` here; the file
itself is read by the drive collector and written by `nastui.control.acks`):
    {"version": 1, "drives": {"PK1334PBHDJ2SR": [{"key": "attr:197", "value": 8,
                                                  "at": 1700000000.0, "note": ""}]}}
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any

from nastui.model import Acknowledgement, Health, Reason

FORMAT_VERSION = 1
NOT_ACKABLE = frozenset({"temp", "temp-age", "no-smart", "smart-stale", "unassessed"})
BITMASK_KEYS = frozenset({"nvme:critical_warning"})
VALUELESS_KEYS = frozenset({"smart"})


def ackable(reason: Reason) -> bool:
    """Whether `reason` can be acknowledged: a finding about a count (or the FAILED assessment)."""
    if reason.key in NOT_ACKABLE or reason.health in (Health.OK, Health.UNKNOWN):
        return False
    return reason.value is not None or reason.key in VALUELESS_KEYS


def covers(ack: Acknowledgement, reason: Reason) -> bool:
    """Whether `ack` still covers `reason` (its value has not grown, or changed for a bitmask)."""
    if ack.key != reason.key or not ackable(reason):
        return False
    if ack.value is None or reason.value is None:
        return ack.value is None and reason.value is None
    if reason.key in BITMASK_KEYS:
        return reason.value == ack.value
    return reason.value <= ack.value


def acknowledged(reason: Reason, ack: Acknowledgement) -> Reason:
    """`reason` shown as acknowledged: same text and key, counted as OK."""
    at = f" at {ack.value}" if ack.value is not None else ""
    return dataclasses.replace(
        reason, health=Health.OK, text=f"{reason.text} (acknowledged{at})", acknowledged=True
    )


def apply_acks(reasons: Iterable[Reason], acks: Iterable[Acknowledgement]) -> list[Reason]:
    """`reasons` with every finding an acknowledgement covers turned into an acknowledged one."""
    by_key = {ack.key: ack for ack in acks}
    out = []
    for reason in reasons:
        ack = by_key.get(reason.key)
        out.append(acknowledged(reason, ack) if ack is not None and covers(ack, reason) else reason)
    return out


def ack_for(reason: Reason, now: float, note: str = "") -> Acknowledgement:
    """The acknowledgement of `reason` as it stands now."""
    return Acknowledgement(reason.key, reason.value, now, note)


def encode(acks: Mapping[str, Iterable[Acknowledgement]]) -> str:
    """The acknowledgement file's text for drive serial -> acknowledgements."""
    drives = {
        serial: [dataclasses.asdict(a) for a in sorted(items, key=lambda a: a.key)]
        for serial, items in sorted(acks.items())
    }
    return json.dumps({"version": FORMAT_VERSION, "drives": drives}, indent=2) + "\n"


def _ack(item: Any) -> Acknowledgement | None:
    if not isinstance(item, dict):
        return None
    key, value, at = item.get("key"), item.get("value"), item.get("at")
    if not isinstance(key, str) or not isinstance(at, int | float):
        return None
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        return None
    note = item.get("note")
    return Acknowledgement(key, value, float(at), note if isinstance(note, str) else "")


def decode(text: str, source: str) -> dict[str, tuple[Acknowledgement, ...]]:
    """Drive serial -> acknowledgements from the file's text; malformed entries are skipped.

    Raises:
        ValueError: the text is not an acknowledgement file at all (the message names `source`).
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{source}: not an acknowledgement file ({exc})") from exc
    drives = data.get("drives") if isinstance(data, dict) else None
    if not isinstance(drives, dict):
        raise ValueError(f'{source}: not an acknowledgement file (no "drives" object)')
    result = {}
    for serial, items in drives.items():
        acks = tuple(a for a in map(_ack, items if isinstance(items, list) else []) if a)
        if acks:
            result[str(serial)] = acks
    return result
