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
    """

    key: str
    health: Health
    subject: Subject
    name: str
    message: str
    since: float
    acknowledged: bool = False
