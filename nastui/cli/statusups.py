"""The `[[ups]]` UPSes in `nastui status`: each read once over NUT (bounded by its
`timeout`), its alerts among the box's (on battery, battery low, upsd not answering: the same
keys as the daemon's), a line each in the summary, and `ups[]` in `--json`.

A one-shot command polls no `[[host]]` (SNMP hosts are the fleet's business), but the UPSes a
box is configured with are its own power: a NAS on battery is the box's state, and a Nagios
check of it must say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nastui.core.fleetview import UNREACHABLE, fleet_alert_list, ups_state, ups_text, with_alerts
from nastui.model import Acknowledgement, FleetHost, HostSnapshot
from nastui.session import Session, run_async


def read_upses(session: Session) -> tuple[FleetHost, ...]:
    """Every configured `[[ups]]` read once, all at the same time (none configured: none)."""
    upses = session.config.ups
    if not upses:
        return ()
    from nastui.collectors.nut import NutFleet  # only with a UPS to read

    fleet = NutFleet(upses, session.clock, limits=session.config.thresholds)
    return run_async(fleet.poll())


def with_ups_alerts(
    snapshot: HostSnapshot, hosts: Sequence[FleetHost], acks: Sequence[Acknowledgement]
) -> HostSnapshot:
    """`snapshot` with the UPSes' alerts among its own, worst first, each acknowledged as the
    daemon and `alert ack` see it (an acknowledged one no longer raises the exit code)."""
    return with_alerts(snapshot, fleet_alert_list(hosts, acks, snapshot.taken_at))


def ups_lines(hosts: Sequence[FleetHost]) -> list[str]:
    """ "ups      rack online 100% 42 min", one per UPS ("unreachable: why" when upsd did not
    answer)."""
    lines = []
    for i, host in enumerate(hosts):
        label = "ups      " if i == 0 else "         "
        state, _ = ups_state(host)
        why = f": {host.error or 'no answer'}" if state == UNREACHABLE else ""
        lines.append(f"{label}{host.name} {state}{why}")
    return lines


def ups_data(hosts: Sequence[FleetHost]) -> list[dict[str, Any]]:
    """The UPSes for `status --json`."""
    found = []
    for host in hosts:
        ups = host.snapshot.ups[0] if host.snapshot is not None and host.snapshot.ups else None
        found.append(
            {
                "name": host.name,
                "address": host.address,
                "reachable": host.error is None and ups is not None,
                "error": host.error,
                "status": ups.status.value if ups is not None else None,
                "charge_percent": ups.charge_percent if ups is not None else None,
                "runtime_s": ups.runtime_s if ups is not None else None,
                "summary": ups_text(ups) if ups is not None else None,
            }
        )
    return found
