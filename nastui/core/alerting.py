"""The alert engine (pure, clock passed in): which alerts to notify, and when.

Every cycle the daemon hands `evaluate` the alerts standing now (every host's, each naming its
host), the acknowledgements and the book it got back last time; it gets a new book (to persist
with `encode_book`) and the notices to send:

- FIRING for a new alert; nothing more while it stands unchanged (one alert per (host, key)),
- WORSE at once when its health rises or its value grows past the one last notified
  (3 -> 8 pending sectors; a changed bitmask),
- REPEAT once `repeat_interval_s` has passed since it was last sent (never for UNKNOWN alerts,
  a collector that cannot tell: they notify once and on recovery),
- RECOVERED once it has stayed clear for `recovery_delay_s`, for alerts that were notified. An
  alert back within the delay was a flap: no new FIRING, and no RECOVERED.

Times in the book later than `now` (the wall clock was set back) count from `now`: a delay or
an interval never waits out the hour the clock went back.

An acknowledged alert (covered by an unexpired acknowledgement, `nastui.core.ack.covers`, or
marked `acknowledged` by its source: a drive finding acknowledged on the drive) sends nothing,
with one exception: a rise in health under the acknowledgement (a temperature from WARNING to
CRITICAL) is sent once as WORSE, since the acknowledgement holds a value, not a state.
When the acknowledgement stops covering a standing alert (it expired, was withdrawn, or the value
grew past it), the alert is sent again and the notice's message says why, e.g.
"... (acknowledgement expired)": REPEAT (WORSE when it grew; FIRING if it was never sent).

Notices carry the alert with `since` set to when it was first seen. The book is
JSON-serialisable:
    {"version": 1, "alerts": [{"latest": {ALERT}, "notified": {ALERT} | null,
      "last_sent": 1700000000.0 | null, "cleared_since": null, "ack": {ACK} | null,
      "ack_health": "WARNING" | null}]}
with ALERT = {"key", "health" (name), "subject", "name", "message", "since", "acknowledged",
"value", "host"} and ACK as in the acknowledgement files.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from nastui.core.ack import ack_from_record, ack_key, ack_record, covering, expired, grown
from nastui.model import Acknowledgement, Alert, Health, Notice, NoticeKind, Subject
from nastui.safeio import loads_json

__all__ = [
    "AlertBook",
    "AlertPolicy",
    "Tracked",
    "book_from_record",
    "book_record",
    "decode_book",
    "encode_book",
    "evaluate",
    "notice_from",
    "notice_record",
    "prune_alert_acks",
]
FORMAT_VERSION = 1
MARKED = "acknowledged at the source"
Ident = tuple[str, str]  # (host, alert key)


@dataclass(frozen=True, slots=True)
class AlertPolicy:
    """How often to speak.

    Attributes:
        repeat_interval_s: a standing alert is sent again after this long.
        recovery_delay_s: how long a cleared alert must stay clear before RECOVERED is sent.
        growth_gap_s: after a notice, a count that keeps growing (a dying disk's pending
            sectors, one more every minute) is told again at most this often; the next notice
            carries the whole growth since the last one. A rise in health is told at once.
    """

    repeat_interval_s: float = 86400.0
    recovery_delay_s: float = 120.0
    growth_gap_s: float = 3600.0


@dataclass(frozen=True, slots=True)
class Tracked:
    """One alert the engine follows.

    Attributes:
        latest: the alert as last seen; its `since` is when it was first seen.
        notified: the alert as last notified; None if it never was (acknowledged from the start).
        last_sent: Unix time it was last notified.
        cleared_since: Unix time it went missing in the present clear spell; None while standing.
        ack: the acknowledgement covering it, as last seen; None when not acknowledged.
        ack_health: its health when the acknowledgement began to cover it (or last rose under it).
    """

    latest: Alert
    notified: Alert | None = None
    last_sent: float | None = None
    cleared_since: float | None = None
    ack: Acknowledgement | None = None
    ack_health: Health | None = None

    @property
    def ident(self) -> Ident:
        """(host, key): what makes two alerts the same."""
        return self.latest.host, self.latest.key

    @property
    def first_seen(self) -> float:
        """Unix time the alert was first seen (in the present spell, flaps included)."""
        return self.latest.since


@dataclass(frozen=True, slots=True)
class AlertBook:
    """The engine's memory between cycles: one `Tracked` per (host, key), sorted."""

    entries: tuple[Tracked, ...] = ()

    def get(self, host: str, key: str) -> Tracked | None:
        """The entry for the alert `key` of `host`, if tracked."""
        return next((t for t in self.entries if t.ident == (host, key)), None)


def _worse(before: Alert, after: Alert) -> bool:
    return after.health.rank > before.health.rank or grown(before.value, after.value, after.key)


def _sent(
    entry: Tracked,
    kind: NoticeKind,
    alert: Alert,
    now: float,
    *,
    previous: Alert | None = None,
    why: str = "",
) -> tuple[Tracked, Notice]:
    shown = dataclasses.replace(alert, message=f"{alert.message} ({why})") if why else alert
    sent = dataclasses.replace(entry, notified=alert, last_sent=now)
    return sent, Notice(kind, shown, now, previous)


def _under_ack(
    entry: Tracked, alert: Alert, ack: Acknowledgement, now: float
) -> tuple[Tracked, Notice | None]:
    same = entry.ack == ack and entry.ack_health is not None
    base = entry.ack_health if same and entry.ack_health is not None else alert.health
    entry = dataclasses.replace(entry, ack=ack, ack_health=base)
    if alert.health.rank <= base.rank:
        return entry, None
    entry = dataclasses.replace(entry, ack_health=alert.health)
    why = f"acknowledged at {base.name}"
    return _sent(entry, NoticeKind.WORSE, alert, now, previous=entry.notified, why=why)


def _ack_lost(
    entry: Tracked, lost: Acknowledgement, alert: Alert, now: float
) -> tuple[Tracked, Notice]:
    entry = dataclasses.replace(entry, ack=None, ack_health=None)
    grew = grown(lost.value, alert.value, alert.key)
    if expired(lost, now):
        why = "acknowledgement expired"
    elif grew:
        why = f"grew past the acknowledged {lost.value}"
    else:
        why = "no longer acknowledged"
    if entry.notified is None:
        return _sent(entry, NoticeKind.FIRING, alert, now, why=why)
    worse = grew or _worse(entry.notified, alert)
    kind = NoticeKind.WORSE if worse else NoticeKind.REPEAT
    return _sent(entry, kind, alert, now, previous=entry.notified if worse else None, why=why)


def _standing(
    entry: Tracked | None,
    alert: Alert,
    ack: Acknowledgement | None,
    policy: AlertPolicy,
    now: float,
) -> tuple[Tracked, Notice | None]:
    """The entry and notice for an alert standing now."""
    first = entry.first_seen if entry is not None else now
    alert = dataclasses.replace(alert, since=first, acknowledged=False)
    if entry is None:
        if ack is not None:
            return Tracked(alert, ack=ack, ack_health=alert.health), None
        return _sent(Tracked(alert), NoticeKind.FIRING, alert, now)
    entry = dataclasses.replace(entry, latest=alert, cleared_since=None)
    if ack is not None:
        return _under_ack(entry, alert, ack, now)
    if entry.ack is not None:
        return _ack_lost(entry, entry.ack, alert, now)
    if entry.notified is None or entry.last_sent is None:
        return _sent(entry, NoticeKind.FIRING, alert, now)
    rose = alert.health.rank > entry.notified.health.rank
    if rose or (_worse(entry.notified, alert) and now - entry.last_sent >= policy.growth_gap_s):
        return _sent(entry, NoticeKind.WORSE, alert, now, previous=entry.notified)
    due = now - entry.last_sent >= policy.repeat_interval_s
    if due and alert.health is not Health.UNKNOWN:
        return _sent(entry, NoticeKind.REPEAT, alert, now)
    return entry, None


def _cleared(
    entry: Tracked, policy: AlertPolicy, now: float
) -> tuple[Tracked | None, Notice | None]:
    """The entry (None once dropped) and notice for an alert not standing now."""
    since = entry.cleared_since if entry.cleared_since is not None else now
    if now - since < policy.recovery_delay_s:
        return dataclasses.replace(entry, cleared_since=since), None
    if entry.notified is None:
        return None, None
    return None, Notice(NoticeKind.RECOVERED, entry.latest, now)


def _marked(alert: Alert, entry: Tracked | None, now: float) -> Acknowledgement | None:
    """For an alert its source marked acknowledged (a drive finding acknowledged on the drive),
    the acknowledgement it stands for: the one already on record, else one at its value now."""
    if not alert.acknowledged:
        return None
    if entry is not None and entry.ack is not None and entry.ack.note == MARKED:
        return entry.ack
    return Acknowledgement(ack_key(alert), alert.value, now, MARKED)


def _not_after(entry: Tracked, now: float) -> Tracked:
    """`entry` with its times no later than `now`: after the wall clock was set back, a
    recovery delay or a repeat interval runs from the step instead of waiting out the hour it
    went back."""
    sent, cleared = entry.last_sent, entry.cleared_since
    if (sent is None or sent <= now) and (cleared is None or cleared <= now):
        return entry
    return dataclasses.replace(
        entry,
        last_sent=None if sent is None else min(sent, now),
        cleared_since=None if cleared is None else min(cleared, now),
    )


def _dedupe(alerts: Iterable[Alert]) -> dict[Ident, Alert]:
    """One alert per (host, key): the worst, if a key comes twice."""
    result: dict[Ident, Alert] = {}
    for alert in alerts:
        ident = (alert.host, alert.key)
        other = result.get(ident)
        if other is None or (alert.health.rank, alert.value or 0) > (
            other.health.rank,
            other.value or 0,
        ):
            result[ident] = alert
    return result


def evaluate(
    book: AlertBook,
    alerts: Iterable[Alert],
    acks: Iterable[Acknowledgement],
    policy: AlertPolicy,
    now: float,
) -> tuple[AlertBook, tuple[Notice, ...]]:
    """One cycle of the engine: the new book and the notices to send, worst first.

    Args:
        book: the book from the previous cycle (`AlertBook()` the first time).
        alerts: every alert standing now (all hosts). One marked `acknowledged` counts as
            covered even without an entry in `acks` (a drive finding acknowledged on the drive:
            `nastui.core.assess`); it notifies again once it is no longer marked.
        acks: the alert acknowledgements (keys from `nastui.core.ack.ack_key`).
        policy: repeat interval and recovery delay.
        now: current Unix time.
    """
    by_key = {ack.key: ack for ack in acks}
    current = _dedupe(alerts)
    old = {t.ident: _not_after(t, now) for t in book.entries}
    entries: list[Tracked] = []
    notices: list[Notice] = []
    for ident, alert in current.items():
        tracked = old.get(ident)
        ack = covering(alert, by_key, now) or _marked(alert, tracked, now)
        entry, notice = _standing(tracked, alert, ack, policy, now)
        entries.append(entry)
        notices += [notice] if notice is not None else []
    for ident, tracked in old.items():
        if ident not in current:
            kept, notice = _cleared(tracked, policy, now)
            entries += [kept] if kept is not None else []
            notices += [notice] if notice is not None else []
    entries.sort(key=lambda t: t.ident)
    notices.sort(key=lambda n: -n.alert.health.rank)
    return AlertBook(tuple(entries)), tuple(notices)


def prune_alert_acks(
    acks: Iterable[Acknowledgement], book: AlertBook, now: float, grace_s: float = 3600.0
) -> tuple[Acknowledgement, ...]:
    """The acknowledgements worth keeping after a cycle: not expired, and, for a value-less one
    (which holds until its alert clears), its alert still tracked by `book` (standing, or not
    yet recovered) or the acknowledgement younger than `grace_s` (made before the engine saw
    the alert). Acknowledgements with a value are baselines and stay until they expire."""
    tracked = {ack_key(t.latest) for t in book.entries}
    return tuple(
        a
        for a in acks
        if not expired(a, now) and (a.value is not None or a.key in tracked or now - a.at < grace_s)
    )


def _alert_record(alert: Alert) -> dict[str, Any]:
    return {
        "key": alert.key,
        "health": alert.health.name,
        "subject": alert.subject.value,
        "name": alert.name,
        "message": alert.message,
        "since": alert.since,
        "acknowledged": alert.acknowledged,
        "value": alert.value,
        "host": alert.host,
    }


_SUBJECTS = {s.value: s for s in Subject}


def _alert_from(item: Any) -> Alert | None:
    if not isinstance(item, dict):
        return None
    health = Health.__members__.get(str(item.get("health")))
    subject = _SUBJECTS.get(str(item.get("subject")))
    since, value = item.get("since"), item.get("value")
    texts = [item.get(k) for k in ("key", "name", "message", "host")]
    if health is None or subject is None or not all(isinstance(t, str) for t in texts):
        return None
    if not isinstance(since, int | float) or isinstance(since, bool):
        return None
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        return None
    key, name, message, host = (str(t) for t in texts)
    acknowledged = item.get("acknowledged") is True
    return Alert(key, health, subject, name, message, float(since), acknowledged, value, host)


def _time(item: Mapping[str, Any], field: str) -> tuple[bool, float | None]:
    """(valid, value) of an optional time field."""
    value = item.get(field)
    if value is None:
        return True, None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return True, float(value)
    return False, None


def _tracked_from(item: Any) -> Tracked | None:
    if not isinstance(item, dict):
        return None
    latest = _alert_from(item.get("latest"))
    notified = _alert_from(item.get("notified"))
    ok_sent, last_sent = _time(item, "last_sent")
    ok_clear, cleared = _time(item, "cleared_since")
    if latest is None or not (ok_sent and ok_clear):
        return None
    if (notified is None) != (last_sent is None):
        return None
    raw_ack = item.get("ack")
    ack = ack_from_record(raw_ack) if raw_ack is not None else None
    ack_health = Health.__members__.get(str(item.get("ack_health")))
    if ack is None or ack_health is None:
        ack, ack_health = None, None
    return Tracked(latest, notified, last_sent, cleared, ack, ack_health)


def book_record(book: AlertBook) -> dict[str, Any]:
    """The book as a JSON object (see the module docstring); a caller may add keys of its own
    beside "alerts" (the daemon's outbox), which `decode_book` ignores."""
    entries = [
        {
            "latest": _alert_record(t.latest),
            "notified": _alert_record(t.notified) if t.notified is not None else None,
            "last_sent": t.last_sent,
            "cleared_since": t.cleared_since,
            "ack": ack_record(t.ack) if t.ack is not None else None,
            "ack_health": t.ack_health.name if t.ack_health is not None else None,
        }
        for t in book.entries
    ]
    return {"version": FORMAT_VERSION, "alerts": entries}


def encode_book(book: AlertBook) -> str:
    """The book as JSON text (see the module docstring)."""
    return json.dumps(book_record(book), separators=(",", ":"))


def decode_book(text: str, source: str) -> AlertBook:
    """The book from its JSON text; malformed entries are skipped (and a key seen twice keeps
    its first entry).

    Raises:
        ValueError: the text is not an alert state file at all (the message names `source`).
    """
    try:
        data = loads_json(text)
    except ValueError as exc:
        raise ValueError(f"{source}: not an alert state file ({exc})") from exc
    return book_from_record(data, source)


def book_from_record(data: Any, source: str) -> AlertBook:
    """The book from its JSON object (`book_record`); see `decode_book`."""
    items = data.get("alerts") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValueError(f'{source}: not an alert state file (no "alerts" list)')
    if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
        raise ValueError(f"{source}: alert state version {data.get('version')!r} not supported")
    seen: dict[Ident, Tracked] = {}
    for entry in map(_tracked_from, items):
        if entry is not None:
            seen.setdefault(entry.ident, entry)
    return AlertBook(tuple(sorted(seen.values(), key=lambda t: t.ident)))


def notice_record(notice: Notice) -> dict[str, Any]:
    """A notice as a JSON object (for what the daemon still owes its notifiers)."""
    previous = notice.previous
    return {
        "kind": notice.kind.value,
        "alert": _alert_record(notice.alert),
        "at": notice.at,
        "previous": _alert_record(previous) if previous is not None else None,
    }


_KINDS = {k.value: k for k in NoticeKind}


def notice_from(item: Any) -> Notice | None:
    """A notice from `notice_record`'s object; None when malformed."""
    if not isinstance(item, dict):
        return None
    kind = _KINDS.get(str(item.get("kind")))
    alert = _alert_from(item.get("alert"))
    ok, at = _time(item, "at")
    previous = _alert_from(item.get("previous"))
    if kind is None or alert is None or not ok or at is None:
        return None
    return Notice(kind, alert, at, previous)
