"""The operator's hands on the simulated NAS as the demo keeps them: `hands.json` in the
scenario's demo state directory (what was done, when, and how far the demo clock was moved on).

Light on purpose: every demo snapshot reads them, while what they do to the box
(`nastui.sim.swap.apply_hands`, the swap's commands as hands) is loaded only once there are any.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from nastui.safeio import STATE_LIMIT, read_text_bounded

HANDS_FILE = "hands.json"


class Hand(NamedTuple):
    """One thing done to the simulated box.

    Attributes:
        kind: "pull", "insert", "fail", "offline", "online" or "replace".
        at: simulated Unix time it was done.
        bay: the bay pulled from, inserted into or whose drive fails.
        variant: what was inserted (see the module docstring).
        pool, member: the pool and member an offline, online or replace acts on.
        new: the new drive's key, for a replace.
        like: the key of the drive an inserted one is modelled on (the one it replaces).
    """

    kind: str
    at: float
    bay: int | None = None
    variant: str = "new"
    pool: str = ""
    member: str = ""
    new: str = ""
    like: str = ""


class Hands(NamedTuple):
    """Everything done so far, and how far the demo clock was moved on."""

    done: tuple[Hand, ...] = ()
    offset_s: float = 0.0

    def plus(self, hand: Hand) -> Hands:
        """With one more action."""
        return self._replace(done=(*self.done, hand))


def load_hands(directory: Path) -> Hands:
    """The hands kept in `directory` (none when there is no file or it is unreadable: a FIFO
    or a huge file in its place is refused at once, `nastui.safeio`)."""
    try:
        return decode_hands(read_text_bounded(directory / HANDS_FILE, STATE_LIMIT))
    except OSError:
        return Hands()


def encode_hands(hands: Hands) -> str:
    """hands.json's text."""
    rows = [h._asdict() for h in hands.done]
    return json.dumps({"version": 1, "offset_s": hands.offset_s, "hands": rows}, indent=2)


def decode_hands(text: str) -> Hands:
    """The actions in hands.json's text (none when empty or unreadable)."""
    try:
        data = json.loads(text) if text else {}
        rows = [Hand(**row) for row in data.get("hands", ())]
        return Hands(tuple(rows), float(data.get("offset_s", 0.0)))
    except (ValueError, TypeError, AttributeError):
        return Hands()
