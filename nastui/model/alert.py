"""Alerts: a finding that an operator should hear about, with what it is about."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nastui.model.health import Health


class Subject(StrEnum):
    """What an alert is about."""

    DRIVE = "drive"
    BAY = "bay"
    POOL = "pool"
    FAN = "fan"
    SENSOR = "sensor"
    HOST = "host"
    UPS = "ups"


@dataclass(frozen=True, slots=True)
class Alert:
    """One active alert.

    Attributes:
        key: stable de-duplication key ("drive:PK1334...:attr:197").
        health: WARNING or CRITICAL (UNKNOWN for "cannot tell").
        subject: kind of thing it is about.
        name: the thing ("bay 7 sdh", "tank", "fan2").
        message: one line for a human.
        since: Unix time the condition was first seen.
        acknowledged: an operator acknowledged it.
        value: the count the alert is about (a SMART raw value, an error counter), where there
            is one: a growing value is news even while the alert stands, and an acknowledgement
            holds only up to the value it acknowledged.
        host: the host it is about (the local host name, or a fleet host's configured name).
    """

    key: str
    health: Health
    subject: Subject
    name: str
    message: str
    since: float
    acknowledged: bool = False
    value: int | None = None
    host: str = ""


class NoticeKind(StrEnum):
    """Why a notification is sent."""

    FIRING = "firing"  # a new alert
    WORSE = "worse"  # its health rose, or its value grew (3 -> 8 pending sectors)
    REPEAT = "repeat"  # still standing after the repeat interval
    RECOVERED = "recovered"  # it cleared (and stayed clear long enough not to be a flap)
    EVENT = "event"  # a one-off: a resilver finished
    TEST = "test"  # `nastui alert test`


@dataclass(frozen=True, slots=True)
class Notice:
    """One message to send through the notifiers.

    Attributes:
        kind: why it is sent.
        alert: the alert (for RECOVERED: as it last stood).
        at: Unix time it was decided.
        previous: for WORSE, the alert as it was last notified.
    """

    kind: NoticeKind
    alert: Alert
    at: float
    previous: Alert | None = None
