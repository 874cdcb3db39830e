"""The Prometheus text exposition format (pure): metric families and their rendering.

`render(snapshot, limits, fleet)` gives the text `nastui export --prometheus FILE` and
`nastui daemon --prometheus FILE` write for node_exporter's textfile collector, and
`families(...)` the same data for the daemon's `/metrics` endpoint. The metrics
(`nastui.core.metrics.families` fills them) follow Prometheus's naming conventions:

- base units: `_seconds`, `_bytes`, `_celsius`, `_volts`, ratios 0..1 (never percent);
- no changing state in a label value: a state is a state set (one series per possible state,
  1 for the current one, 0 for the others), so a pool going from ONLINE to DEGRADED changes
  two values, never the series;
- one label set per entity in every family (`host`+`drive`, `host`+`pool`, `host`+`ups`,
  `host`+`fan`, `host`+`bay`); descriptive labels (model, serial, device name, bay, pool
  kind, fan zone) only on the `_info` families, joined with `* on(host, drive) group_left`;
- every sample a gauge; unknown values have no sample: unknown is never 0
  (`nastui.core.metrics.exposition` writes the text).
"""

from __future__ import annotations

from collections.abc import Sequence

from nastui.core.metrics.exposition import (
    Family,
    escape_help,
    escape_label,
    format_families,
    format_value,
)
from nastui.core.metrics.families import collect
from nastui.model import FleetHost, HostSnapshot, Thresholds

__all__ = [
    "Family",
    "escape_help",
    "escape_label",
    "families",
    "format_families",
    "format_value",
    "render",
]


def families(
    snapshot: HostSnapshot,
    limits: Thresholds | None = None,
    fleet: Sequence[FleetHost] = (),
) -> list[Family]:
    """Every metric family of the local `snapshot` and the `fleet` hosts, in output order.

    Args:
        snapshot: the local host, assessed.
        limits: the thresholds the alerts use, exported as `..._limit_...` gauges so that
            alerting rules compare against the same limits; None leaves them out.
        fleet: the fleet hosts, their snapshots assessed (alerts with acknowledgements
            applied); each is exported under `host="<its configured name>"`.
    """
    return collect(snapshot, limits, fleet)


def render(
    snapshot: HostSnapshot,
    limits: Thresholds | None = None,
    fleet: Sequence[FleetHost] = (),
) -> str:
    """The snapshot (and the fleet) as exposition text."""
    return format_families(families(snapshot, limits, fleet))
