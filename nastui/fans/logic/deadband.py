"""A deadband for jittery readings: keep the value last shown until the new one leaves the band.

A fan tachometer wobbles by a percent or two from one read to the next; redrawing every wobble
cost the dashboard most of its bytes on a serial console. `FanHold` remembers the RPM last shown
per fan and hands back the same reading while the new one stays within `max(RPM_BAND,
RPM_SHARE x shown)`; a real change (a stall, a new duty, a fan speeding up) passes at once.
Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from nastui.model import Fan

RPM_BAND = 60
RPM_SHARE = 0.04


def within(new: int, shown: int) -> bool:
    """True if `new` is close enough to `shown` to keep showing `shown`."""
    return abs(new - shown) <= max(RPM_BAND, RPM_SHARE * shown)


class FanHold:
    """The RPM last shown per fan, held while readings jitter inside the deadband."""

    def __init__(self) -> None:
        self._shown: dict[str, int] = {}

    def apply(self, fans: Sequence[Fan]) -> tuple[Fan, ...]:
        """`fans` with each RPM inside the deadband replaced by the one shown before."""
        held: list[Fan] = []
        for fan in fans:
            shown = self._shown.get(fan.name)
            if fan.rpm is None or fan.stalled:
                self._shown.pop(fan.name, None)
            elif shown is not None and shown != fan.rpm and within(fan.rpm, shown):
                held.append(dataclasses.replace(fan, rpm=shown))
                continue
            else:
                self._shown[fan.name] = fan.rpm
            held.append(fan)
        return tuple(held)
