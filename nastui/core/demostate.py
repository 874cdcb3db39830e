"""What the demo remembers between commands (pure): when its session began, the locate LEDs
lit and the scrub actions taken, so `nastui locate 10` and then `nastui bays` behave as on a
real box.

The state lives in the demo state directory as `demo.json` (written by
`nastui.control.demostate`); the simulator applies it to every snapshot. Times are wall-clock
Unix seconds. `anchor` is the wall time at which the session's simulator time was `SIM_EPOCH`:
sim time = SIM_EPOCH + (wall - anchor). A session older than `SESSION_S` starts afresh (the
scenario's story begins again, LEDs off, scrubs as planned).

    {"version": 1, "anchor": 1764072000.0, "leds": [{"bay": 10, "since": 1764072010.0}],
     "scrubs": [{"pool": "tank", "action": "start", "at": 1764072020.0}]}
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Protocol

DEMO_FILE = "demo.json"
FORMAT_VERSION = 1
SESSION_S = 12 * 3600.0
SCRUB_ACTIONS = frozenset({"start", "pause", "stop"})


@dataclass(frozen=True, slots=True)
class ScrubStep:
    """One scrub action that was done: which pool, what, when (wall clock)."""

    pool: str
    action: str
    at: float


@dataclass(frozen=True, slots=True)
class DemoState:
    """The demo's remembered state.

    Attributes:
        anchor: wall time at which the session's sim time was `SIM_EPOCH`; None before the
            first session.
        leds: lit locate LEDs, bay -> wall time switched on.
        scrubs: scrub actions done, oldest first (each pool's since its last fresh start).
    """

    anchor: float | None = None
    leds: dict[int, float] = field(default_factory=dict)
    scrubs: tuple[ScrubStep, ...] = ()

    def with_led(self, bay: int, on: bool, at: float) -> DemoState:
        """The state with bay's LED switched (the time it was first lit is kept)."""
        leds = dict(self.leds)
        if on:
            leds.setdefault(bay, at)
        else:
            leds.pop(bay, None)
        return DemoState(self.anchor, leds, self.scrubs)

    def with_scrub(self, step: ScrubStep, *, fresh: bool) -> DemoState:
        """The state with one more scrub action; a fresh start forgets that pool's earlier
        ones (they no longer change anything)."""
        kept = tuple(s for s in self.scrubs if not (fresh and s.pool == step.pool))
        return DemoState(self.anchor, self.leds, (*kept, step))


def begin(state: DemoState, now: float) -> DemoState:
    """The state a session opening at `now` uses: the same one while its session is young,
    else a new session anchored at `now` (whole seconds) with nothing lit or started."""
    if state.anchor is not None and 0 <= now - state.anchor < SESSION_S:
        return state
    return DemoState(anchor=float(math.floor(now)))


def encode(state: DemoState) -> str:
    """The file's text."""
    return json.dumps(
        {
            "version": FORMAT_VERSION,
            "anchor": state.anchor,
            "leds": [{"bay": b, "since": s} for b, s in sorted(state.leds.items())],
            "scrubs": [{"pool": s.pool, "action": s.action, "at": s.at} for s in state.scrubs],
        },
        indent=2,
    )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _leds(rows: Any) -> dict[int, float]:
    leds: dict[int, float] = {}
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        bay, since = row.get("bay"), _number(row.get("since"))
        if isinstance(bay, int) and not isinstance(bay, bool) and since is not None:
            leds[bay] = since
    return leds


def _scrubs(rows: Any) -> tuple[ScrubStep, ...]:
    steps = []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        pool, action, at = row.get("pool"), row.get("action"), _number(row.get("at"))
        if isinstance(pool, str) and action in SCRUB_ACTIONS and at is not None:
            steps.append(ScrubStep(pool, str(action), at))
    return tuple(steps)


def decode(text: str) -> DemoState:
    """The state in the file's text; what cannot be read is left out (an unreadable file
    is an empty state: the demo starts afresh)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return DemoState()
    if not isinstance(data, dict):
        return DemoState()
    anchor = _number(data.get("anchor"))
    return DemoState(anchor, _leds(data.get("leds")), _scrubs(data.get("scrubs")))


class DemoStore(Protocol):
    """Where the demo's state is kept (`nastui.control.demostate.FileDemoStore`)."""

    def load(self) -> DemoState:
        """The state as last saved (an empty one when there is none)."""
        ...

    def save(self, state: DemoState) -> None:
        """Replace the saved state. Raises OSError (with one line naming the file and the fix)
        when it cannot be written."""
        ...
