"""The fleet collector: every configured `[[host]]` walked over SNMP at once, one `FleetHost` each.

`FleetCollector.poll()` walks the system group and the host's profile roots on every host
concurrently through one `SnmpEngine`, parses the walk with the profile, assesses the snapshot
and returns the hosts in configuration order. A host that fails keeps its previous good snapshot
and last contact, with `error` set to one line; a profile parser that raises is such a failure,
never a crash. A dead host costs its own timeout * (retries + 1), never the others' time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from nastui.collectors.snmp import SnmpEngine
from nastui.collectors.snmp_profiles.base import SYSTEM, Profile, Walk
from nastui.collectors.snmp_target import SnmpError, host_label, target_for
from nastui.config.remote import HostConfig, SnmpProfile
from nastui.core.assess import assess
from nastui.core.clock import Clock
from nastui.model import FleetHost, HostSnapshot, Thresholds

SYS_DESCR = (*SYSTEM, 1, 0)
WALK_BUDGET_S = 30.0  # a live but endless walk is abandoned after this long
ProfileLookup = Callable[[SnmpProfile], Profile]


def _default_profiles(profile: SnmpProfile) -> Profile:
    from nastui.collectors.snmp_profiles import profile_for

    return profile_for(profile)


def description(walk: Walk) -> str | None:
    """sysDescr.0 as one line of text, when the walk has it."""
    value = walk.get(SYS_DESCR)
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        return None
    line = " ".join(value.split())
    return line or None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.strip("'\"") if isinstance(exc, KeyError) else text


class FleetCollector:
    """A `FleetSource` over SNMP.

    Args:
        hosts: the configured hosts, in the order `poll` returns them.
        clock: the time stamps (`polled_at`, `last_contact`, the parser's `now`).
        engine: the SNMP engine to share; None: one of its own, closed by `close()`.
        limits: thresholds the snapshots are assessed with (default: the built-in ones).
        profiles: profile lookup (default `nastui.collectors.snmp_profiles.profile_for`).
        env: where `*_password_env` variables are read (default `os.environ`).
        walk_budget_s: the longest one host's walk may take, however lively the agent.
    """

    def __init__(
        self,
        hosts: Sequence[HostConfig],
        clock: Clock,
        engine: SnmpEngine | None = None,
        *,
        limits: Thresholds | None = None,
        profiles: ProfileLookup | None = None,
        env: Mapping[str, str] | None = None,
        walk_budget_s: float = WALK_BUDGET_S,
    ) -> None:
        self.hosts = tuple(hosts)
        self.clock = clock
        self._own_engine = engine is None
        self.engine = engine if engine is not None else SnmpEngine()
        self.limits = limits if limits is not None else Thresholds()
        self._profiles = profiles or _default_profiles
        self._env = env
        self.walk_budget_s = walk_budget_s
        self._latest: dict[str, FleetHost] = {}

    async def poll(self) -> tuple[FleetHost, ...]:
        """Poll every host once, all at the same time; one `FleetHost` per host, in order."""
        polled_at = self.clock.now()
        results = await asyncio.gather(*(self._poll(host, polled_at) for host in self.hosts))
        self._latest = {host.name: host for host in results}
        return tuple(results)

    def close(self) -> None:
        """Close the engine if this collector made it."""
        if self._own_engine:
            self.engine.close()

    async def _poll(self, host: HostConfig, polled_at: float) -> FleetHost:
        try:
            return await self._read(host, polled_at)
        except (SnmpError, TimeoutError, LookupError) as exc:
            error = (
                f"still answering after {self.walk_budget_s:g} s: the walk was abandoned"
                if isinstance(exc, TimeoutError)
                else _one_line(exc)
            )
        previous = self._latest.get(host.name)
        return FleetHost(
            host.name,
            host_label(host.address, host.port),
            host.profile.value,
            snapshot=previous.snapshot if previous else None,
            polled_at=polled_at,
            last_contact=previous.last_contact if previous else None,
            error=error,
            description=previous.description if previous else None,
        )

    def _last_snapshot(self, name: str) -> HostSnapshot | None:
        """The host's last good snapshot: its alerts keep their first-seen times."""
        previous = self._latest.get(name)
        return previous.snapshot if previous else None

    async def _read(self, host: HostConfig, polled_at: float) -> FleetHost:
        target = target_for(host, self._env)
        profile = self._profiles(host.profile)
        walk = await asyncio.wait_for(
            self.engine.awalk(target, (SYSTEM, *profile.roots)), self.walk_budget_s
        )
        now = self.clock.now()
        try:
            raw = profile.parse(host.name, walk, now)
        except Exception as exc:  # a parser bug or an odd agent: this host's error, not a crash
            raise SnmpError(
                f"the {profile.name} profile could not read {target.label}'s answer: "
                f"{type(exc).__name__}: {_one_line(exc)}"
            ) from None
        return FleetHost(
            host.name,
            host_label(host.address, host.port),
            host.profile.value,
            snapshot=assess(raw, self.limits, now, previous=self._last_snapshot(host.name)),
            polled_at=polled_at,
            last_contact=now,
            error=None,
            description=description(walk),
        )
