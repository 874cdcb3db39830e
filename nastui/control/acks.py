"""Acknowledging drive findings and alerts: the write side of `nastui.core.ack`.

Both kinds live in the state directory's `acks.json` (the real box's, or the demo's own).
`acknowledge` records the current value of each chosen finding as the drive's new baseline;
`add_alert_ack` keeps an alert's acknowledgement. Every poll reads the file back
(`nastui.session`): a finding shows as acknowledged until its value grows past the baseline,
an alert until it grows, its health rises, or the acknowledgement expires.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from nastui.control.statefile import read_or_empty, write_atomic
from nastui.core.ack import ack_for, ackable, decode, decode_alerts, encode
from nastui.core.statefiles import ACKS_FILE
from nastui.model import Acknowledgement, Reason

DriveAcks = dict[str, tuple[Acknowledgement, ...]]


def load_all(state_dir: Path) -> tuple[DriveAcks, tuple[Acknowledgement, ...]]:
    """Every drive's acknowledgements and the alert acknowledgements (an unreadable file
    counts as none; writing replaces it)."""
    path = state_dir / ACKS_FILE
    text = read_or_empty(path)
    if not text:
        return {}, ()
    try:
        return decode(text, str(path)), decode_alerts(text, str(path))
    except ValueError:
        return {}, ()


def load(state_dir: Path) -> DriveAcks:
    """Every drive's acknowledgements."""
    return load_all(state_dir)[0]


def _write(state_dir: Path, drives: DriveAcks, alerts: Iterable[Acknowledgement]) -> None:
    write_atomic(state_dir / ACKS_FILE, encode(drives, alerts), 0o644)


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
    everything, alerts = load_all(state_dir)
    keys = {a.key for a in new}
    kept = [a for a in everything.get(serial, ()) if a.key not in keys]
    everything[serial] = (*kept, *new)
    _write(state_dir, everything, alerts)
    return new


def clear(state_dir: Path, serial: str, keys: Iterable[str] | None = None) -> int:
    """Forget the drive's acknowledgements (those of `keys`, or all); returns how many."""
    everything, alerts = load_all(state_dir)
    current = everything.get(serial, ())
    wanted = set(keys) if keys is not None else {a.key for a in current}
    kept = tuple(a for a in current if a.key not in wanted)
    if len(kept) == len(current):
        return 0
    if kept:
        everything[serial] = kept
    else:
        everything.pop(serial, None)
    _write(state_dir, everything, alerts)
    return len(current) - len(kept)


def add_alert_ack(state_dir: Path, ack: Acknowledgement) -> None:
    """Keep an alert acknowledgement (replacing one with the same key).

    Raises:
        nastui.control.statefile.StateError: the file cannot be written.
    """
    drives, alerts = load_all(state_dir)
    _write(state_dir, drives, (*(a for a in alerts if a.key != ack.key), ack))


def remove_alert_ack(state_dir: Path, key: str) -> bool:
    """Forget an alert acknowledgement; False if there was none.

    Raises:
        nastui.control.statefile.StateError: the file cannot be written.
    """
    drives, alerts = load_all(state_dir)
    kept = tuple(a for a in alerts if a.key != key)
    if len(kept) == len(alerts):
        return False
    _write(state_dir, drives, kept)
    return True
