"""A swap's emergencies as alerts, for the daemon's alert flow (pure).

    swap:wrong-pull:BAY          CRITICAL  a drive other than the swap's was pulled: put it back
    swap:wrong-pull:KEY          CRITICAL  the same for a drive in no known bay
    swap:member-down:POOL:NAME   CRITICAL  another member of the pool failed mid-swap (not one
                                           wrongly pulled: `swapstate.failed_members`)

Each is one alert like any other, so the engine (`nastui.core.alerting`) sends it once, then
RECOVERED when the drive is back. A wrongly pulled drive's bay, when bound by serial, also
raises `bay:N:missing` from the assessment; the swap's alert says more (which bay to put back,
which swap it is), so it takes that alert's place while it stands: one CRITICAL per pull.
"""

from __future__ import annotations

from collections.abc import Sequence

from nastui.core.swapstate import Swap, failed_members, wrongly_pulled
from nastui.model import Alert, Health, HostSnapshot, Subject

__all__ = ["swap_alerts", "with_swap_alerts"]


def swap_alerts(swap: Swap, snapshot: HostSnapshot) -> list[Alert]:
    """The CRITICAL alerts of a swap in progress against `snapshot` (none once it is over)."""
    if not swap.active:
        return []
    now = snapshot.taken_at
    out = []
    pulled = wrongly_pulled(swap, snapshot)
    for key, bay in pulled:
        where = f"bay {bay}" if bay is not None else f"drive {key}"
        out.append(
            Alert(
                key=f"swap:wrong-pull:{bay if bay is not None else key}",
                health=Health.CRITICAL,
                subject=Subject.BAY if bay is not None else Subject.DRIVE,
                name=where,
                message=f"WRONG DRIVE PULLED: {where} ({key}) is out during the swap of "
                f"{swap.old.label}: put it back in {where} now",
                since=now,
            )
        )
    if swap.pool is None:
        return out
    for pool, name, state, bay, _ in failed_members(swap, snapshot):
        where = f" (bay {bay})" if bay is not None else ""
        out.append(
            Alert(
                key=f"swap:member-down:{pool}:{name}",
                health=Health.CRITICAL,
                subject=Subject.POOL,
                name=pool,
                message=f"ANOTHER MEMBER FAILED during the swap of {swap.old.label}: "
                f"{name}{where} is {state}: pull nothing else, let the rebuild finish",
                since=now,
            )
        )
    return out


def with_swap_alerts(alerts: Sequence[Alert], swap: Swap, snapshot: HostSnapshot) -> list[Alert]:
    """`alerts` with the swap's added, each wrong pull's `bay:N:missing` left out."""
    extra = swap_alerts(swap, snapshot)
    covered = {
        f"bay:{a.key.removeprefix('swap:wrong-pull:')}:missing"
        for a in extra
        if a.key.startswith("swap:wrong-pull:")
    }
    local = ("", snapshot.host)
    return [a for a in alerts if a.key not in covered or a.host not in local] + extra
