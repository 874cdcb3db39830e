"""The small sections: top-level `hostname`, `[poll]` intervals and `[ui]` preferences."""

from __future__ import annotations

from nastui.config.keys import POLL_KEYS, UI_KEYS
from nastui.config.schema import PollConfig, UiConfig
from nastui.config.validate_base import Section
from nastui.config.validate_values import one_of

# Bounds of every interval, in seconds: below POLL_MIN a poll is a busy loop; above the upper
# bound a reading (or a fan daemon's fail-safe) would wait longer than anyone means.
POLL_MIN = 0.1
POLL_MAX = 86400.0
POLL_HIGH = {"fans": 3600.0, "command_timeout": 600.0}
COLORS = ("none", "16", "256", "truecolor")


def read_hostname(root: Section) -> str | None:
    """The name this box is shown under; None: the system host name."""
    return root.text("hostname")


def read_poll(root: Section) -> PollConfig:
    """Seconds between polls, each within POLL_MIN..POLL_MAX (lower for `fans` and
    `command_timeout`)."""
    sec = root.table_at("poll")
    if sec is None:
        return PollConfig()
    sec.check_keys(POLL_KEYS)
    defaults = PollConfig()
    values = {
        field: sec.number(
            key,
            getattr(defaults, field),
            low=POLL_MIN,
            high=POLL_HIGH.get(key, POLL_MAX),
            unit="seconds",
        )
        for key, field in POLL_KEYS.items()
    }
    return PollConfig(**values)


def read_ui(root: Section) -> UiConfig:
    """Display preferences; unset ones are detected at start."""
    sec = root.table_at("ui")
    if sec is None:
        return UiConfig()
    sec.check_keys(UI_KEYS)
    return UiConfig(ascii=sec.boolean("ascii"), colors=_colors(sec))


def _colors(sec: Section) -> str | None:
    value = sec.table.get("colors")
    if value is None:
        return None
    text = str(value).strip().lower() if isinstance(value, str | int) else None
    if text in COLORS:
        return text
    sec.wrong("colors", f"{one_of(COLORS)} (16 and 256 may be written as numbers)")
    return None
