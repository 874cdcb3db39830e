"""Acknowledging a drive's findings: the write side of `nastui.core.ack`.

`acknowledge` records the current value of each chosen finding as the drive's new baseline in
the state directory's `acks.json`; the drive collector reads it back at its next poll, and the
verdict then shows the finding as acknowledged until the value grows past it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from nastui.control.statefile import read_or_empty, write_atomic
from nastui.core.ack import ack_for, ackable, decode, encode
from nastui.core.statefiles import ACKS_FILE
from nastui.model import Acknowledgement, Reason


def load(state_dir: Path) -> dict[str, tuple[Acknowledgement, ...]]:
    """Every drive's acknowledgements (an unreadable file counts as none; writing replaces it)."""
    path = state_dir / ACKS_FILE
    text = read_or_empty(path)
    try:
        return decode(text, str(path)) if text else {}
    except ValueError:
        return {}


def acknowledge(
    state_dir: Path, serial: str, reasons: Iterable[Reason], now: float, note: str = ""
) -> list[Acknowledgement]:
    """Acknowledge `reasons` of the drive `serial` at their current values.

    Returns:
        The acknowledgements recorded (findings that cannot be acknowledged are skipped).

    Raises:
        nastui.control.statefile.StateError: the file cannot be written.
    """
    new = [ack_for(r, now, note) for r in reasons if ackable(r)]
    if not new:
        return []
    everything = load(state_dir)
    keys = {a.key for a in new}
    kept = [a for a in everything.get(serial, ()) if a.key not in keys]
    everything[serial] = (*kept, *new)
    write_atomic(state_dir / ACKS_FILE, encode(everything))
    return new


def clear(state_dir: Path, serial: str, keys: Iterable[str] | None = None) -> int:
    """Forget the drive's acknowledgements (those of `keys`, or all); returns how many."""
    everything = load(state_dir)
    current = everything.get(serial, ())
    wanted = set(keys) if keys is not None else {a.key for a in current}
    kept = tuple(a for a in current if a.key not in wanted)
    if len(kept) == len(current):
        return 0
    if kept:
        everything[serial] = kept
    else:
        everything.pop(serial, None)
    write_atomic(state_dir / ACKS_FILE, encode(everything))
    return len(current) - len(kept)
