"""Pool capacity (pure): how full a pool is against its limits, and when it will be full.

Usage is the pool's used share of its usable space (`Pool.used_percent`: ZFS from `zfs list`,
btrfs from its allocation, md from the filesystem mounted on the array). The store keeps it as
the metric "used:POOL" (percent), and the daemon's history keeps it for months; the time to
full is a least-squares line through the samples of the last `window_s` (default a week).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from nastui.core.units import duration
from nastui.model import CapacityLimits, Health, Pool, PoolPolicy

METRIC_PREFIX = "used:"
WINDOW_S = 7 * 86400.0
MIN_SPAN_S = 3600.0  # less than an hour of samples says nothing about a trend
HORIZON_S = 5 * 365 * 86400.0  # beyond five years: "not filling up" in practice


class Capacity(NamedTuple):
    """A pool's usage finding: health, message and the whole percent (the alert's value)."""

    health: Health
    text: str
    percent: int


def metric(pool: str) -> str:
    """The store and history metric of a pool's usage (percent)."""
    return f"{METRIC_PREFIX}{pool}"


def capacity(pool: Pool, policy: PoolPolicy) -> Capacity | None:
    """The capacity finding of `pool`: WARNING or CRITICAL at or over its limits, else None
    (None too when its usage is unknown)."""
    used = pool.used_percent
    if used is None:
        return None
    limits = policy.capacity_for(pool.name)
    if used >= limits.critical:
        health, limit = Health.CRITICAL, f"critical {limits.critical:g}%"
    elif used >= limits.warning:
        health, limit = Health.WARNING, f"warning {limits.warning:g}%"
    else:
        return None
    return Capacity(health, f"{used:.0f}% full ({limit})", int(used))


def time_to_full(
    samples: Sequence[tuple[float, float]], now: float, window_s: float = WINDOW_S
) -> float | None:
    """Seconds until usage reaches 100 %, from (time, percent) samples; None when the samples
    of the window span less than an hour, usage is not growing, or it would take over five
    years."""
    recent = [(t, v) for t, v in samples if now - window_s <= t <= now]
    if len(recent) < 2 or recent[-1][0] - recent[0][0] < MIN_SPAN_S:
        return None
    n = len(recent)
    mean_t = sum(t for t, _ in recent) / n
    mean_v = sum(v for _, v in recent) / n
    spread = sum((t - mean_t) ** 2 for t, _ in recent)
    slope = sum((t - mean_t) * (v - mean_v) for t, v in recent) / spread
    if slope <= 0:
        return None
    at_now = mean_v + slope * (now - mean_t)
    left = max(0.0, (100.0 - at_now) / slope)
    return left if left <= HORIZON_S else None


def full_text(seconds: float | None) -> str:
    """ "full in ~12d" for a time to full; "" when there is none."""
    return f"full in ~{duration(seconds)}" if seconds is not None else ""


def capacity_limits_of(pool: Pool, policy: PoolPolicy) -> CapacityLimits:
    """The capacity limits that apply to `pool`."""
    return policy.capacity_for(pool.name)
