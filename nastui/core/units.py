"""Numbers for humans: sizes, rates, durations and ages (pure, shared by every front end)."""

from __future__ import annotations

_BINARY = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def size(n: float | None, *, unknown: str = "?") -> str:
    """Bytes in binary units: 1536 -> "1.5 KiB", 8e13 -> "72.8 TiB"."""
    if n is None:
        return unknown
    value = float(n)
    for unit in _BINARY:
        if abs(value) < 1024 or unit == _BINARY[-1]:
            if unit == "B":
                return f"{value:.0f} B"
            return f"{value:.1f} {unit}" if abs(value) < 100 else f"{value:.0f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def rate(bytes_per_s: float | None, *, unknown: str = "?") -> str:
    """A transfer rate: "1.1 GiB/s"."""
    return unknown if bytes_per_s is None else size(bytes_per_s) + "/s"


def duration(seconds: float | None, *, unknown: str = "?") -> str:
    """A duration in its two largest units: "4h12m", "3d02h", "45s"."""
    if seconds is None:
        return unknown
    s = max(0, round(seconds))
    days, rest = divmod(s, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d{hours:02d}h"
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


def age(seconds: float | None, *, unknown: str = "never") -> str:
    """How long ago: "just now", "5 min ago", "3 h ago", "12 days ago"."""
    if seconds is None:
        return unknown
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} days ago"
