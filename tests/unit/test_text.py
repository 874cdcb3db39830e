"""Units, glyph choice and bay states: the small pure pieces every front end draws with."""

from __future__ import annotations

import pytest

from nastui.core import units
from nastui.core.baystate import BayState, bay_state
from nastui.core.glyphs import ASCII, UNICODE, choose_ascii, glyphs_for
from nastui.model import (
    BaySlot,
    Drive,
    DriveIdentity,
    Health,
    PowerState,
    Reason,
    Verdict,
)


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (None, "?"),
        (0, "0 B"),
        (1023, "1023 B"),
        (1536, "1.5 KiB"),
        (4_000_787_030_016, "3.6 TiB"),
        (24 * 4_000_787_030_016, "87.3 TiB"),
        (150 * 1024**4, "150 TiB"),
    ],
)
def test_size(n: int | None, text: str) -> None:
    assert units.size(n) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, "?"), (0, "0s"), (59.6, "1m00s"), (3725, "1h02m"), (3 * 86400 + 7200, "3d02h")],
)
def test_duration(seconds: float | None, text: str) -> None:
    assert units.duration(seconds) == text


def test_age_and_rate() -> None:
    assert units.age(None) == "never"
    assert units.age(30) == "just now"
    assert units.age(300) == "5 min ago"
    assert units.age(7200) == "2 h ago"
    assert units.age(12 * 86400) == "12 days ago"
    assert units.rate(1.1 * 1024**3) == "1.1 GiB/s"


@pytest.mark.parametrize(
    ("env", "ascii_only"),
    [
        ({"TERM": "vt100", "LANG": "en_US.UTF-8"}, True),
        ({"TERM": "linux", "LANG": "C.UTF-8"}, True),
        ({"TERM": "vt220", "LANG": "en_US.UTF-8"}, True),
        ({"TERM": "xterm-256color", "LANG": "en_US.UTF-8"}, False),
        ({"TERM": "xterm-256color", "LANG": "C"}, True),
        ({"TERM": "xterm-256color"}, True),
        ({"TERM": "xterm", "LC_ALL": "de_DE.UTF-8", "LANG": "C"}, False),
        ({"TERM": "xterm", "LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}, True),
        # PEP 538 coerced a C locale: the terminal was not set up for UTF-8.
        ({"TERM": "xterm", "LC_CTYPE": "C.UTF-8"}, True),
        ({"TERM": "tmux-256color", "LC_CTYPE": "en_GB.UTF-8"}, False),
    ],
)
def test_choose_ascii(env: dict[str, str], ascii_only: bool) -> None:
    assert choose_ascii(env) is ascii_only


def test_forced_choice_wins() -> None:
    assert choose_ascii({"TERM": "xterm", "LANG": "en_US.UTF-8"}, forced=True)
    assert not choose_ascii({"TERM": "vt100"}, forced=False)


def test_ascii_glyphs_are_ascii() -> None:
    for name in ASCII.__slots__:
        value = getattr(ASCII, name)
        if isinstance(value, str):
            assert value.isascii(), name
    assert glyphs_for(True) is ASCII and glyphs_for(False) is UNICODE


def sick(health: Health, power: PowerState = PowerState.ACTIVE) -> Drive:
    return Drive(
        "sda", DriveIdentity(), power=power, verdict=Verdict(health, (Reason(health, "x"),))
    )


def test_bay_states() -> None:
    slot = BaySlot(0, "A")
    assert bay_state(BaySlot(0, None), None) is BayState.EMPTY
    assert bay_state(BaySlot(0, None, expected=True), None) is BayState.MISSING
    assert bay_state(slot, sick(Health.OK)) is BayState.OK
    assert bay_state(slot, sick(Health.WARNING)) is BayState.WARNING
    assert bay_state(slot, sick(Health.OK, PowerState.STANDBY)) is BayState.STANDBY
    assert bay_state(slot, sick(Health.UNKNOWN, PowerState.STANDBY)) is BayState.STANDBY
    assert bay_state(slot, sick(Health.CRITICAL, PowerState.STANDBY)) is BayState.CRITICAL


def test_bay_state_labels_and_marks_are_distinct_ascii() -> None:
    labels = [s.label for s in BayState]
    marks = [s.mark for s in BayState]
    assert len(set(labels)) == len(labels) and len(set(marks)) == len(marks)
    assert all(m.isascii() and len(m) == 1 for m in marks)
    assert all(len(label) <= 4 for label in labels)
