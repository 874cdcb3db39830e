"""What a notification says (pure): a subject, a plain-text body and a JSON document.

One batch is the notices of one poll cycle about one host. Worst first: critical before warning,
standing alerts before recoveries and events. The texts are written for an operator woken at
2 a.m.: what, where, how bad, since when, and the command that silences the repeats.

Subjects:
    [nastui] nano: CRITICAL bay 13 sdk: Current_Pending_Sector 8          (FIRING)
    [nastui] nano: CRITICAL bay 13 sdk: Current_Pending_Sector 8 (+3)     (WORSE, value grew)
    [nastui] nano: CRITICAL bay 13 sdk: 2 reallocated (was WARNING)       (WORSE, health rose)
    [nastui] nano: CRITICAL bay 13 sdk: ... (standing 1d02h)              (REPEAT)
    [nastui] nano: RECOVERED bay 13 sdk: ...                              (RECOVERED)
    [nastui] nano: tank: resilver finished                                (EVENT)
    [nastui] nano: test message                                           (TEST)
    [nastui] nano: 3 alerts (1 critical, 2 warning)                       (several)

The JSON document (exec hook stdin, webhook body), schema version 1; times are Unix seconds,
unknown values are null:
    {"version": 1, "host": "nano", "subject": "[nastui] nano: ...",
     "notices": [{"host": "nano", "kind": "worse", "health": "critical",
                  "key": "drive:PK1334PBHDJ2SR:attr:197", "about": "drive",
                  "name": "bay 13 sdk", "message": "Current_Pending_Sector 8",
                  "since": 1700000000.0, "value": 8, "previous_value": 5,
                  "previous_health": "warning", "acknowledged": false, "at": 1700010000.0}]}
`kind` is one of firing, worse, repeat, recovered, event, test; `health` one of ok, warning,
critical, unknown; `previous_*` are null except for `worse`. Fields may be added, never renamed.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Sequence
from typing import Any

from nastui.core import units
from nastui.core.ack import ack_key
from nastui.model import Health, Notice, NoticeKind

SCHEMA_VERSION = 1
PREFIX = "[nastui]"
ACK_COMMAND = "nastui alert ack"
_QUIET_KINDS = frozenset({NoticeKind.RECOVERED, NoticeKind.EVENT, NoticeKind.TEST})
_ACKABLE_KINDS = frozenset({NoticeKind.FIRING, NoticeKind.WORSE, NoticeKind.REPEAT})
_COUNT_ORDER = ("critical", "warning", "unknown", "ok", "recovered", "event", "test")


def ordered(notices: Sequence[Notice]) -> list[Notice]:
    """Worst first: standing alerts by health (critical first), then recoveries, events, tests;
    the order given is kept among equals."""
    return sorted(notices, key=lambda n: (n.kind in _QUIET_KINDS, -n.alert.health.rank))


def headline(notice: Notice, box: str = "") -> str:
    """One line for one notice: "CRITICAL bay 13 sdk: Current_Pending_Sector 8 (+3)"; an alert
    about another host than `box` (a fleet host, a UPS) names it: "CRITICAL offsite bay 3 sdc:
    ..." (a UPS's alerts are named after it already)."""
    alert = notice.alert
    name = alert.name
    if alert.host and alert.host not in (box, name):
        name = f"{alert.host} {name}".strip()
    what = f"{name}: {alert.message}" if name else alert.message
    if notice.kind is NoticeKind.TEST:
        return "test message"
    if notice.kind is NoticeKind.RECOVERED:
        return f"RECOVERED {what}"
    if notice.kind is NoticeKind.EVENT:
        return what if alert.health is Health.OK else f"{alert.health.name} {what}"
    line = f"{alert.health.name} {what}"
    if notice.kind is NoticeKind.WORSE:
        return line + _growth(notice)
    if notice.kind is NoticeKind.REPEAT:
        return f"{line} (standing {units.duration(notice.at - alert.since)})"
    return line


def _growth(notice: Notice) -> str:
    """The suffix " (+3)" for a grown value, " (was WARNING)" for a risen health, both if both."""
    previous = notice.previous
    if previous is None:
        return ""
    parts = []
    if previous.health is not notice.alert.health:
        parts.append(f"was {previous.health.name}")
    now, before = notice.alert.value, previous.value
    if now is not None and before is not None and now != before:
        parts.insert(0, f"{now - before:+d}")
    return f" ({', '.join(parts)})" if parts else ""


def summary(notices: Sequence[Notice], box: str = "") -> str:
    """What the batch is: the headline of a lone notice, else "3 alerts (1 critical, 2 warning)"."""
    if len(notices) == 1:
        return headline(notices[0], box)
    counts = dict.fromkeys(_COUNT_ORDER, 0)
    for notice in notices:
        counts[_category(notice)] += 1
    parts = [
        f"{n} {name}" + ("s" if name == "event" and n > 1 else "")
        for name, n in counts.items()
        if n
    ]
    about = {n.alert.host for n in notices} - {"", box}
    where = f"{about.pop()}: " if len(about) == 1 else ""  # a batch about a fleet host names it
    return f"{where}{len(notices)} alerts ({', '.join(parts)})"


def _category(notice: Notice) -> str:
    if notice.kind in _QUIET_KINDS:
        return notice.kind.value
    return notice.alert.health.name.lower()


def subject(host: str, notices: Sequence[Notice]) -> str:
    """The mail subject (and webhook title): "[nastui] nano: 3 alerts (1 critical, 2 warning)"."""
    return f"{PREFIX} {host}: {summary(ordered(notices), host)}"


def local_time(t: float) -> str:
    """A Unix time as local time with its zone: "2023-11-14 22:13 UTC"."""
    return time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(t))


def body(host: str, notices: Sequence[Notice]) -> str:
    """The plain-text body: one block per notice, worst first, then who sent it."""
    batch = ordered(notices)
    if not batch:
        return f"{host}: nothing to report\n"
    sent = max(n.at for n in batch)
    if all(n.kind is NoticeKind.TEST for n in batch):
        return _test_body(host, sent)
    lines = [f"{host}: {summary(batch, host)}", ""]
    for notice in batch:
        lines += [headline(notice, host), *_details(notice, host), ""]
    lines += ["-- ", f"nastui on {host}, {local_time(sent)}"]
    if any(_ackable(n) for n in batch):
        lines.append("An acknowledged alert stays quiet until it gets worse.")
    return "\n".join(lines) + "\n"


def _test_body(host: str, sent: float) -> str:
    return (
        f"{host}: test message\n\n"
        f"This is a test message from nastui on {host}, sent by `nastui alert test`\n"
        f"at {local_time(sent)}. If you are reading it, alerts reach you this way.\n"
    )


def _details(notice: Notice, box: str) -> list[str]:
    """The indented lines under a headline: kind, since, key and the acknowledge command."""
    alert = notice.alert
    rows = [("kind", _kind_text(notice))]
    if notice.kind is not NoticeKind.EVENT:
        since = f"{local_time(alert.since)} ({units.age(notice.at - alert.since)})"
        rows.append(("since", since))
    if notice.kind is NoticeKind.RECOVERED:
        rows.append(("cleared", local_time(notice.at)))
    if alert.key:
        rows.append(("key", alert.key))
    if _ackable(notice):
        # Another host's alert (a fleet host, a UPS) by "HOST/KEY", as `nastui alert list`
        # shows it (its KEY alone may be no standing alert of this box); quoted for the shell.
        target = ack_key(alert) if alert.host not in ("", box) else alert.key
        rows.append(("ack", f"{ACK_COMMAND} {shlex.quote(target)}"))
    return [f"  {label + ':':<9}{text}" for label, text in rows]


def _ackable(notice: Notice) -> bool:
    return notice.kind in _ACKABLE_KINDS and bool(notice.alert.key)


def _kind_text(notice: Notice) -> str:
    kind = notice.kind
    if kind is NoticeKind.FIRING:
        return "new alert"
    if kind is NoticeKind.REPEAT:
        return "still standing, not acknowledged"
    if kind is NoticeKind.RECOVERED:
        return f"recovered (was {notice.alert.health.name})"
    if kind is NoticeKind.WORSE:
        return "worse" + _changes(notice)
    return kind.value


def _changes(notice: Notice) -> str:
    """The suffix ": WARNING -> CRITICAL, value 5 -> 8" (changes since last notified)."""
    previous = notice.previous
    if previous is None:
        return ""
    parts = []
    if previous.health is not notice.alert.health:
        parts.append(f"{previous.health.name} -> {notice.alert.health.name}")
    if previous.value != notice.alert.value:
        parts.append(f"value {_num(previous.value)} -> {_num(notice.alert.value)}")
    return f": {', '.join(parts)}" if parts else ""


def _num(value: int | None) -> str:
    return "?" if value is None else str(value)


def notice_record(host: str, notice: Notice) -> dict[str, Any]:
    """One notice as a JSON object (see the module docstring for the schema)."""
    alert, previous = notice.alert, notice.previous
    worse = notice.kind is NoticeKind.WORSE and previous is not None
    return {
        "host": alert.host or host,
        "kind": notice.kind.value,
        "health": alert.health.name.lower(),
        "key": alert.key,
        "about": alert.subject.value,
        "name": alert.name,
        "message": alert.message,
        "since": alert.since,
        "value": alert.value,
        "previous_value": previous.value if worse and previous else None,
        "previous_health": previous.health.name.lower() if worse and previous else None,
        "acknowledged": alert.acknowledged,
        "at": notice.at,
    }


def document(host: str, notices: Sequence[Notice]) -> dict[str, Any]:
    """The batch as the JSON document of the module docstring, worst notice first."""
    batch = ordered(notices)
    return {
        "version": SCHEMA_VERSION,
        "host": host,
        "subject": subject(host, batch),
        "notices": [notice_record(host, n) for n in batch],
    }


def to_json(host: str, notices: Sequence[Notice]) -> str:
    """`document` as JSON text (UTF-8 characters kept, keys in schema order)."""
    return json.dumps(document(host, notices), ensure_ascii=False)
