"""`FanDaemon`: one control period at a time, and giving the fans back.

Each `step`: poll the session (collect -> assess -> store) and read hwmon drive temperatures
afresh (`temps`: the backend's schedule is slower than a control period), both on the
reader thread and bounded in time (`reads`: reads not done by the deadline are lost
sensors, every zone at 100 %); turn each zone's temperature into a duty (`fans.logic.zone`: curve
with hysteresis or PID; blind, stale or implausible -> 100 %; a sensor once lost is believed
again only after the zone's `trust_after` plausible readings in a row, logged when it is),
each fan's duty from its zone's (`fans.logic.curve.fan_duty`: its limits, rate limit, spin-up
kick), and write the fans whose duty changed. Every change is logged. Every other fan is held
(`hold`: hwmon's `pwmN_enable` and `pwmN` read back and written again when a BIOS or another
tool changed them; IPMI and command fans sent their last commands again): each correction is
logged, the first in full and repeats as a count at most once a minute and when the daemon
stops. A write that fails is retried at full speed at once.
`restore_all` hands every fan back as it was found (or at full speed).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nastui.config import Config, ConfigError, load_config
from nastui.config.fancontrol import FanConfig, FanDriver
from nastui.daemonlog import Log
from nastui.fans.flow.reads import BoundedReader, Stall
from nastui.fans.flow.rescue import within
from nastui.fans.flow.rig import Builder, FanUnavailable, RiggedFan, describe
from nastui.fans.flow.temps import refresh_temperatures
from nastui.fans.io import DriverError, FanWriter
from nastui.fans.logic.curve import FULL, fan_duty
from nastui.fans.logic.preview import stale_after, staleness_period
from nastui.fans.logic.zone import (
    Blind,
    Reading,
    Trust,
    ZoneDecision,
    ZoneState,
    believed_again,
    lose_all,
    vetted_reading,
    zone_step,
)
from nastui.model import FanZone, HostSnapshot
from nastui.session import Session

FileStamp = tuple[int, int, int]
RELOAD_TIMEOUT_S = 5.0  # a configuration read and checked within this, or the reload refused


def file_stamp(config: Config) -> FileStamp | None:
    """(mtime ns, size, inode) of the configuration file; None without one."""
    if config.path is None:
        return None
    try:
        st = config.path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass
class ZoneTrack:
    """A zone, its controller state, its sensors' trust and the last decision logged."""

    zone: FanZone
    state: ZoneState = field(default_factory=ZoneState)
    last: tuple[float, bool] | None = None
    trusts: dict[str, Trust] = field(default_factory=dict)


class FanDaemon:
    """The control loop's state: zones, fans, the writer, the log."""

    def __init__(
        self,
        session: Session,
        zones: Sequence[FanZone],
        fans: Sequence[RiggedFan],
        *,
        builder: Builder,
        writer: FanWriter,
        log: Log,
        period: float,
        root: Path | None = None,
    ) -> None:
        """Set up; `root` ("/" or `--root`) makes each period re-read hwmon drive
        temperatures (None: the simulator, whose readings are its own)."""
        self.session = session
        self.root = root
        self.zones = {z.name: ZoneTrack(z) for z in zones}
        self.fans = list(fans)
        self._build = builder
        self._writer = writer
        self.log = log
        self.period = period
        self._stamp = file_stamp(session.config)
        self.progress: Callable[[], None] = lambda: None  # the watchdogs' beat, set by `serve`
        self.monotonic: Callable[[], float] = time.monotonic  # paces the correction counts
        self.reads = BoundedReader(self._read, self.reads_deadline)

    @property
    def stuck_after(self) -> float:
        """Seconds without progress after which the loop counts as stuck (the watchdog): two
        periods, the reads' deadline, and, with IPMI or command fans, two command timeouts (a
        failed write, then its full-speed retry; `progress` is called after each fan)."""
        commands = any(f.config.driver is not FanDriver.HWMON for f in self.fans)
        timeout = self.session.config.poll.command_timeout_s
        return 2 * self.period + self.reads_deadline + (2 * timeout if commands else 0.0)

    @property
    def reads_deadline(self) -> float:
        """Seconds a period's reads may take: a period, plus the command timeout (smartctl)."""
        return self.period + self.session.config.poll.command_timeout_s

    @property
    def stale_period(self) -> float:
        """A "period" for staleness: the longer of the control period and the temperature poll."""
        return staleness_period(self.period, self.session.config.poll.temperature_s)

    async def step(self, stop: asyncio.Event | None = None) -> HostSnapshot | Stall:
        """One control period; returns the snapshot it acted on (a `Stall`: none came in time,
        or `stop` was set while waiting for it)."""
        self.reads.deadline = self.reads_deadline
        got = await self.reads.read(stop)
        if isinstance(got, Stall):
            now = self.session.clock.now()
            blind = Blind(got.why)
            for track in self.zones.values():
                track.trusts = lose_all(track.trusts)  # no reading came: each sensor is lost
            decisions = {name: self._zone(t, blind, now) for name, t in self.zones.items()}
        else:
            decisions = {name: self._zone_of(t, got) for name, t in self.zones.items()}
        for fan in self.fans:
            decision = decisions.get(fan.config.zone)
            zone_duty = decision.duty if decision is not None else FULL
            duty = fan_duty(zone_duty, fan.duty, fan.limits)
            if duty != fan.duty:
                await self._write(fan, duty)
            else:
                await self._hold(fan)
            self.progress()
        return got

    async def _read(self) -> HostSnapshot:
        """The period's reads (on the reader thread): the poll, then hwmon drive temperatures."""
        snapshot = await self.session.poll()
        if self.root is not None:
            snapshot = refresh_temperatures(snapshot, self.root, snapshot.taken_at)
        return snapshot

    def _zone_of(self, track: ZoneTrack, snapshot: HostSnapshot) -> ZoneDecision:
        zone, now = track.zone, snapshot.taken_at
        max_age = stale_after(zone, self.stale_period)
        drives, sensors = snapshot.drives, snapshot.sensors
        reading, trusts = vetted_reading(
            zone.sources, drives, sensors, now, max_age, trusts=track.trusts, need=zone.trust_after
        )
        for sensor in believed_again(track.trusts, trusts):
            self.log.info(
                f"zone {zone.name}: {sensor} believed again after {zone.trust_after} "
                "plausible readings in a row"
            )
        track.trusts = trusts
        return self._zone(track, reading, now)

    def _zone(self, track: ZoneTrack, reading: Reading | Blind | None, now: float) -> ZoneDecision:
        zone = track.zone
        decision, track.state = zone_step(zone, track.state, reading, now)
        key = (decision.duty, decision.failsafe)
        if key != track.last:
            track.last = key
            if decision.failsafe:
                why = decision.reason.removeprefix("fail-safe: ")
                self.log.warning(f"zone {zone.name}: FAIL-SAFE 100 %: {why}")
            else:
                self.log.info(f"zone {zone.name}: {decision.duty:g} % ({decision.reason})")
        return decision

    async def _write(self, fan: RiggedFan, duty: float) -> None:
        before = "-" if fan.duty is None else f"{fan.duty:g}"
        try:
            await fan.driver.set(duty)
        except (DriverError, ValueError) as exc:
            self._writer.take()
            await self._fail_safe(fan, str(exc))
            return
        fan.duty, fan.trouble = duty, None
        self.log.info(f"fan {fan.config.name}: {before} -> {duty:g} %{self._writes()}")

    async def _hold(self, fan: RiggedFan) -> None:
        """Keep the fan's duty against whatever else writes it; each correction logged (the
        first of a run in full, then a count at most once a minute)."""
        try:
            found = await fan.driver.hold()
        except (DriverError, ValueError) as exc:
            self._writer.take()
            await self._fail_safe(fan, str(exc))
            return
        done = self._writes()
        now = self.monotonic()
        first, counts = fan.taken.seen(found, now) if found else (False, fan.taken.due(now))
        self._tell_counts(fan, counts)
        if first:
            self.log.warning(f"fan {fan.config.name}: taken back (found {found}); set again{done}")

    def _tell_counts(self, fan: RiggedFan, counts: list[tuple[str, int, float]]) -> None:
        for found, times, seconds in counts:
            self.log.warning(
                f"fan {fan.config.name}: taken back {times} more "
                f"time{'' if times == 1 else 's'} in {seconds:.0f} s (found {found}); "
                "set again each time"
            )

    async def _fail_safe(self, fan: RiggedFan, why: str) -> None:
        """After a failed write: full speed, or at least say it could not be done."""
        if why != fan.trouble:
            self.log.error(f"fan {fan.config.name}: write failed: {why}; trying full speed")
        fan.trouble = why
        try:
            await fan.driver.full()
        except DriverError as exc:
            self._writer.take()
            fan.duty = None  # unknown: write again next period
            self.log.error(f"fan {fan.config.name}: full speed failed too: {exc}")
            return
        fan.duty = FULL
        self.log.warning(f"fan {fan.config.name}: full speed (fail-safe){self._writes()}")

    def _writes(self) -> str:
        done = self._writer.take()
        if not done:
            return ""
        return f" [{'dry run: ' if self._writer.dry_run else ''}{'; '.join(done)}]"

    async def restore_all(self) -> bool:
        """Give every fan back (original `pwmN_enable`, or full speed); True if all went."""
        ok = True
        for fan in self.fans:
            self._tell_counts(fan, fan.taken.due(self.monotonic(), final=True))
            ok = await self._restore(fan) and ok
        return ok

    async def _restore(self, fan: RiggedFan) -> bool:
        try:
            await fan.driver.restore()
        except DriverError as exc:
            self._writer.take()
            self.log.error(f"fan {fan.config.name}: restore failed: {exc}; trying full speed")
            await self._fail_safe(fan, str(exc))
            return False
        done = self._writes()
        if done:
            self.log.info(f"fan {fan.config.name}: restored{done}")
        return True

    async def full_speed(self) -> bool:
        """Every fan at full speed now (the systemd unit's ExecStopPost); True if all went."""
        ok = True
        for fan in self.fans:
            try:
                await fan.driver.full()
            except DriverError as exc:
                self._writer.take()
                self.log.error(f"fan {fan.config.name}: full speed failed: {exc}")
                ok = False
                continue
            self.log.info(f"fan {fan.config.name}: full speed{self._writes()}")
        return ok

    async def check_config(self, *, forced: bool = False) -> None:
        """Reload the configuration if its file changed (or `forced`: SIGHUP)."""
        config = self.session.config
        stamp = file_stamp(config)
        if not forced and stamp == self._stamp:
            return
        self._stamp = stamp
        if config.path is None:
            self.log.info("no configuration file to reload")
            return
        path = config.path
        # on a thread, waited for at most RELOAD_TIMEOUT_S: a large (bounded) file takes a
        # second or two to check, and one on a hung mount may never come back
        fresh = await asyncio.to_thread(within, lambda: load_config(path), RELOAD_TIMEOUT_S)
        if isinstance(fresh, Exception) or not fresh.zones or not fresh.fans:
            why = _refusal(fresh, path)
            self.log.warning(f"configuration not reloaded, keeping the running one: {why}")
            return
        await self.apply(fresh)
        self.log.info(f"configuration reloaded from {config.path}")

    async def apply(self, config: Config) -> None:
        """Run on `config` from now on: changed zones start afresh, changed fans are rebuilt."""
        self.session.config = config
        old_zones = self.zones
        self.zones = {z.name: _track(z, old_zones.get(z.name)) for z in config.zones}
        kept: list[RiggedFan] = []
        old_fans = {f.config.name: f for f in self.fans}
        for cfg in config.fans:
            old = old_fans.pop(cfg.name, None)
            if old is not None and _output(old.config) == _output(cfg):
                old.config = cfg  # the same output: new limits or zone, same driver
                kept.append(old)
                continue
            try:
                driver = self._build(cfg)
            except FanUnavailable as exc:
                self.log.warning(f"fan {cfg.name}: {exc}; keeping it as it was")
                if old is not None:
                    kept.append(old)
                continue
            if old is not None:
                await self._restore(old)
            self.log.info(f"fan {cfg.name}: {describe(cfg)}")
            kept.append(RiggedFan(cfg, driver))
        for gone in old_fans.values():
            await self._restore(gone)
        self.fans = kept


def _track(zone: FanZone, old: ZoneTrack | None) -> ZoneTrack:
    """A reloaded zone's track: kept when unchanged; a changed one starts afresh but keeps
    its sensors' trust (a reload never makes a lost sensor believed)."""
    if old is None:
        return ZoneTrack(zone)
    return old if old.zone == zone else ZoneTrack(zone, trusts=old.trusts)


def _refusal(fresh: Config | Exception, path: Path) -> str:
    """Why a reload is refused: the file's problem, a failure to load it (a bug too), or a
    file with nothing to control (an emptied or half-saved one, as at start)."""
    if isinstance(fresh, ConfigError):
        return str(fresh)
    if isinstance(fresh, Exception):
        return f"{path.name}: cannot be loaded ({type(fresh).__name__}: {fresh})"
    return f"{path.name}: no [[zone]] and [[fan]] tables: nothing to control"


def _output(cfg: FanConfig) -> tuple[object, ...]:
    """What a fan's driver writes to: unchanged, a reload keeps the driver (and its state)."""
    return (cfg.driver, cfg.hwmon_name, cfg.hwmon_device, cfg.pwm, cfg.ipmi_zone, cfg.set_command)
