"""Acknowledgements (pure): an operator's "I know" for a drive's finding or for an alert.

Acknowledging a finding makes its current value the new baseline: the finding is still shown,
marked acknowledged, but counts as OK until the value grows past the acknowledged one (for a
bitmask such as NVMe's critical warning: until it changes). A finding without a count (the
drive's own FAILED assessment) stays acknowledged until it clears. Temperatures and "no data"
findings cannot be acknowledged as drive findings: they are states, not counts. Any
acknowledgement may carry an expiry (`expires_at`), after which it no longer covers anything.

One function, `covers`, decides for both kinds:

- a drive finding (`Reason`) is matched by its key ("attr:197") in the drive's own list;
- an alert is matched by `ack_key(alert)`: "HOST/KEY" ("nas2/pool:tank:state") when the alert
  names its host, else the bare alert key. Alerts of every host (the local one and the fleet's)
  share one list that way, and an acknowledgement of a fleet host never covers the same key on
  another host. Any alert but an OK one can be acknowledged (a temperature too, preferably
  with an expiry); a value-less alert's acknowledgement holds until the alert clears (the
  daemon drops it then: `nastui.core.alerting.prune_alert_acks`) or expires.

Both kinds are kept in one JSON file in the state directory, `acks.json` (`encode`/`decode`
and `decode_alerts` here; written by `nastui.control.acks`, read at every poll by
`nastui.session`, so `nastui status`, the interface, the daemon, the SNMP agent and the
Prometheus export all see the same acknowledgements; the demo has its own state directory):
    {"version": 1, "drives": {"PK1334PBHDJ2SR": [{"key": "attr:197", "value": 8,
                                                  "at": 1700000000.0, "note": ""}]},
     "alerts": [{"key": "nas/pool:tank:capacity", "value": 83, "at": 1700000000.0,
                 "note": "", "expires_at": 1700600000.0}]}
Alert acknowledgements made by an older nastui in the daemon's history database
(`nastui.history.db`) are still honoured; the alert engine's book (`nastui.core.alerting`)
records acknowledgements with `ack_record`.
"expires_at" (Unix time) is written only when set, so a file without expiries is unchanged.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any

from nastui.model import Acknowledgement, Alert, Health, Reason
from nastui.safeio import loads_json

FORMAT_VERSION = 1
NOT_ACKABLE = frozenset({"temp", "temp-age", "no-smart", "smart-stale", "unassessed"})
BITMASK_KEYS = frozenset({"nvme:critical_warning"})
VALUELESS_KEYS = frozenset({"smart"})


def ackable(finding: Reason | Alert) -> bool:
    """Whether `finding` can be acknowledged: a drive finding about a count (or the FAILED
    assessment); any alert that is not OK."""
    if isinstance(finding, Alert):
        return finding.health is not Health.OK
    if finding.key in NOT_ACKABLE or finding.health in (Health.OK, Health.UNKNOWN):
        return False
    return finding.value is not None or finding.key in VALUELESS_KEYS


def ack_key(alert: Alert) -> str:
    """The key an acknowledgement of `alert` carries: "HOST/KEY", or KEY for a host-less alert."""
    return f"{alert.host}/{alert.key}" if alert.host else alert.key


def is_bitmask(key: str) -> bool:
    """Whether the value under `key` is a bitmask (any change is news) rather than a count."""
    return any(key == k or key.endswith(":" + k) for k in BITMASK_KEYS)


def grown(before: int | None, after: int | None, key: str) -> bool:
    """Whether the value under `key` went from `before` to something worse: a larger count, a
    changed bitmask. Unknown values never count as growth."""
    if before is None or after is None:
        return False
    return after != before if is_bitmask(key) else after > before


def expired(ack: Acknowledgement, now: float) -> bool:
    """Whether `ack` has lapsed at `now`."""
    return ack.expires_at is not None and now >= ack.expires_at


def covers(ack: Acknowledgement, finding: Reason | Alert, now: float | None = None) -> bool:
    """Whether `ack` still covers `finding` (a drive's `Reason` or an `Alert`).

    It does when the keys match (`Reason.key`, or `ack_key(alert)`), the finding can be
    acknowledged, the acknowledgement has not expired at `now` (None: expiry not checked), and
    the value has not grown past the acknowledged one (changed, for a bitmask); a value-less
    acknowledgement covers only a value-less finding.
    """
    key = ack_key(finding) if isinstance(finding, Alert) else finding.key
    if ack.key != key or not ackable(finding):
        return False
    if now is not None and expired(ack, now):
        return False
    if ack.value is None or finding.value is None:
        return ack.value is None and finding.value is None
    if is_bitmask(finding.key):
        return finding.value == ack.value
    return finding.value <= ack.value


def acknowledged(reason: Reason, ack: Acknowledgement) -> Reason:
    """`reason` shown as acknowledged: same text and key, counted as OK."""
    at = f" at {ack.value}" if ack.value is not None else ""
    return dataclasses.replace(
        reason, health=Health.OK, text=f"{reason.text} (acknowledged{at})", acknowledged=True
    )


def apply_acks(
    reasons: Iterable[Reason], acks: Iterable[Acknowledgement], now: float | None = None
) -> list[Reason]:
    """`reasons` with every finding an acknowledgement covers (at `now`, if given) turned into
    an acknowledged one."""
    by_key = {ack.key: ack for ack in acks}
    out = []
    for reason in reasons:
        ack = by_key.get(reason.key)
        covered = ack is not None and covers(ack, reason, now)
        out.append(acknowledged(reason, ack) if ack is not None and covered else reason)
    return out


def ack_for(reason: Reason, now: float, note: str = "") -> Acknowledgement:
    """The acknowledgement of `reason` as it stands now."""
    return Acknowledgement(reason.key, reason.value, now, note)


def covering(
    alert: Alert, acks: Mapping[str, Acknowledgement], now: float
) -> Acknowledgement | None:
    """The acknowledgement in `acks` (by key) that covers `alert` at `now`, if any."""
    ack = acks.get(ack_key(alert))
    return ack if ack is not None and covers(ack, alert, now) else None


def apply_alert_acks(
    alerts: Iterable[Alert], acks: Iterable[Acknowledgement], now: float
) -> tuple[Alert, ...]:
    """`alerts` with every one an unexpired acknowledgement covers marked `acknowledged`."""
    by_key = {ack.key: ack for ack in acks}
    return tuple(
        dataclasses.replace(a, acknowledged=True) if covering(a, by_key, now) else a for a in alerts
    )


def ack_alert(
    alert: Alert, now: float, note: str = "", expires_at: float | None = None
) -> Acknowledgement:
    """The acknowledgement of `alert` as it stands now (its value becomes the baseline).

    Raises:
        ValueError: `alert` is OK (nothing to acknowledge) or `expires_at` is not after `now`.
    """
    if not ackable(alert):
        raise ValueError(f"{alert.name}: an OK alert cannot be acknowledged")
    if expires_at is not None and expires_at <= now:
        raise ValueError(f"{alert.name}: the acknowledgement would expire before it is made")
    return Acknowledgement(ack_key(alert), alert.value, now, note, expires_at)


def ack_record(ack: Acknowledgement) -> dict[str, Any]:
    """`ack` as a JSON object (without "expires_at" when it has none)."""
    item = dataclasses.asdict(ack)
    if ack.expires_at is None:
        del item["expires_at"]
    return item


def encode(
    acks: Mapping[str, Iterable[Acknowledgement]], alerts: Iterable[Acknowledgement] = ()
) -> str:
    """The acknowledgement file's text for drive serial -> acknowledgements, and the alert
    acknowledgements (the "alerts" list is written only when there are some)."""
    drives = {
        serial: [ack_record(a) for a in sorted(items, key=lambda a: a.key)]
        for serial, items in sorted(acks.items())
    }
    data: dict[str, Any] = {"version": FORMAT_VERSION, "drives": drives}
    listed = [ack_record(a) for a in sorted(alerts, key=lambda a: a.key)]
    if listed:
        data["alerts"] = listed
    return json.dumps(data, indent=2) + "\n"


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def ack_from_record(item: Any) -> Acknowledgement | None:
    """The acknowledgement a JSON object describes; None when it is malformed."""
    if not isinstance(item, dict):
        return None
    key, value, at = item.get("key"), item.get("value"), item.get("at")
    if not isinstance(key, str) or not isinstance(at, int | float) or isinstance(at, bool):
        return None
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        return None
    expires = item.get("expires_at")
    if expires is not None and not _number(expires):
        return None
    note = item.get("note")
    return Acknowledgement(
        key,
        value,
        float(at),
        note if isinstance(note, str) else "",
        float(expires) if isinstance(expires, int | float) else None,
    )


def _load(text: str, source: str, section: str) -> Any:
    try:
        data = loads_json(text)
    except ValueError as exc:
        raise ValueError(f"{source}: not an acknowledgement file ({exc})") from exc
    return data.get(section) if isinstance(data, dict) else None


def decode(text: str, source: str) -> dict[str, tuple[Acknowledgement, ...]]:
    """Drive serial -> acknowledgements from the file's text; malformed entries are skipped.

    Raises:
        ValueError: the text is not an acknowledgement file at all (the message names `source`).
    """
    drives = _load(text, source, "drives")
    if not isinstance(drives, dict):
        raise ValueError(f'{source}: not an acknowledgement file (no "drives" object)')
    result = {}
    for serial, items in drives.items():
        acks = tuple(a for a in map(ack_from_record, items if isinstance(items, list) else []) if a)
        if acks:
            result[str(serial)] = acks
    return result


def decode_alerts(text: str, source: str) -> tuple[Acknowledgement, ...]:
    """The alert acknowledgements of the file's text (none when it has no "alerts" list);
    malformed entries are skipped.

    Raises:
        ValueError: the text is not JSON (the message names `source`).
    """
    items = _load(text, source, "alerts")
    return tuple(a for a in map(ack_from_record, items if isinstance(items, list) else []) if a)
