"""The fleet: other NAS boxes and UPSes polled over SNMP, one `FleetHost` per configured host."""

from __future__ import annotations

from dataclasses import dataclass

from nastui.model.snapshot import HostSnapshot


@dataclass(frozen=True, slots=True)
class FleetHost:
    """The latest word from one remote host.

    Attributes:
        name: the configured name (`[[host]] name`).
        address: "address:port" as polled.
        profile: the SNMP profile it is read with ("synology", "ups", ...).
        snapshot: what the last successful poll found (drives, pools, UPS); None before the
            first answer. Its `alerts` are the assessed ones.
        polled_at: Unix time of the last poll attempt.
        last_contact: Unix time of the last answer; None if it never answered.
        error: why the last poll failed, one line naming the host and the fix; None when it
            answered.
        description: the host's sysDescr, when read.
    """

    name: str
    address: str
    profile: str
    snapshot: HostSnapshot | None = None
    polled_at: float | None = None
    last_contact: float | None = None
    error: str | None = None
    description: str | None = None

    @property
    def reachable(self) -> bool:
        """The last poll got an answer."""
        return self.error is None and self.last_contact is not None
