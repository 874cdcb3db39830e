"""A swap's emergencies as alerts, for the daemon's alert flow (pure).

    swap:wrong-pull:BAY          CRITICAL  a drive other than the swap's was pulled: put it back
    swap:wrong-pull:KEY          CRITICAL  the same for a drive in no known bay
    swap:member-down:POOL:NAME   CRITICAL  another member of the pool failed mid-swap (not one
                                           wrongly pulled: `state.failed_members`)
    swap:bay-open:BAY            WARNING   the swap's own bay without its configured drive: the
                                           drive was pulled as planned (in place of the
                                           assessment's CRITICAL `bay:N:missing`)

Each is one alert like any other, so the engine (`nastui.core.alerting`) sends it once, then
RECOVERED when the drive is back. A wrongly pulled drive's bay, when bound by serial, also
raises `bay:N:missing` from the assessment; the swap's alert says more (which bay to put back,
which swap it is), so it takes that alert's place while it stands: one CRITICAL per pull. The
right pull is not an emergency: while the swap runs, its own bay's `bay:N:missing` becomes the
WARNING `swap:bay-open:N` (`explained_by_swap`, for every surface: daemon, status, interface).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from nastui.model import Alert, Health, HostSnapshot, Subject
from nastui.swap.logic.state import Swap, failed_members, wrongly_pulled

__all__ = ["explained_by_swap", "swap_alerts", "with_swap_alerts"]


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


def explained_by_swap(alerts: Sequence[Alert], swap: Swap, snapshot: HostSnapshot) -> list[Alert]:
    """`alerts` with the running swap's own bay's `bay:N:missing` (this host's) as the WARNING
    `swap:bay-open:N`: its drive is out as the swap planned. Unchanged without a running swap."""
    bay = swap.old.bay
    if not swap.active or bay is None:
        return list(alerts)
    key, local = f"bay:{bay}:missing", ("", snapshot.host)
    return [
        dataclasses.replace(
            a,
            key=f"swap:bay-open:{bay}",
            health=Health.WARNING,
            message=f"{swap.old.model or 'drive'} {swap.old.serial or swap.old.dev} is out for "
            f"its swap ({swap.phase.value}): `nastui swap` follows it",
        )
        if a.key == key and a.host in local
        else a
        for a in alerts
    ]


def with_swap_alerts(alerts: Sequence[Alert], swap: Swap, snapshot: HostSnapshot) -> list[Alert]:
    """`alerts` as the swap explains them (`explained_by_swap`), with the swap's emergencies
    added and each wrong pull's `bay:N:missing` left out."""
    alerts = explained_by_swap(alerts, swap, snapshot)
    extra = swap_alerts(swap, snapshot)
    covered = {
        f"bay:{a.key.removeprefix('swap:wrong-pull:')}:missing"
        for a in extra
        if a.key.startswith("swap:wrong-pull:")
    }
    local = ("", snapshot.host)
    return [a for a in alerts if a.key not in covered or a.host not in local] + extra
