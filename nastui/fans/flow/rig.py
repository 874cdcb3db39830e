"""The daemon's fans: each configured fan with its driver, its limits and the duty last set.

hwmon fans are found here, by chip name and device path (the collectors' `find_chip`), and
handed to the control layer's drivers as plain paths; IPMI and command drivers get the runner
through the `FanWriter`. On the simulator (`--demo`) every fan is a `SimFan` that only records,
and without configured zones each fan zone the simulator reports gets a draft zone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nastui.collectors import hwmon_fans, runner
from nastui.config.fancontrol import FanConfig, FanDriver
from nastui.daemonlog import Repeats
from nastui.fans.io import (
    CommandFan,
    CommandOutcome,
    DellFans,
    FanWriter,
    HwmonPwm,
    SimFan,
    SupermicroZone,
)
from nastui.fans.io import FanDriver as Driver
from nastui.fans.logic.curve import FanLimits
from nastui.fans.logic.preview import drafts_for
from nastui.model import FanZone, HostSnapshot

Builder = Callable[[FanConfig], Driver]
"""Makes the driver of a `[[fan]]`; raises `FanUnavailable` when it cannot be driven."""


class FanUnavailable(Exception):
    """A configured fan that cannot be driven here (no such hwmon chip, a command that cannot
    run): the message says why, in one line."""


@dataclass
class RiggedFan:
    """A fan the daemon drives.

    Attributes:
        config: its `[[fan]]` table.
        driver: how it is written.
        duty: the duty last set; None before the first write, or after a failed one.
        trouble: the last driver error, so it is logged once, not every period.
        taken: what something else did to the fan, corrected by `hold` (logged as runs).
    """

    config: FanConfig
    driver: Driver
    duty: float | None = None
    trouble: str | None = None
    taken: Repeats = field(default_factory=Repeats)

    @property
    def limits(self) -> FanLimits:
        """Its own min, max and start duty (rate limits: the core's defaults)."""
        cfg = self.config
        return FanLimits(min_duty=cfg.min_duty, max_duty=cfg.max_duty, start_duty=cfg.start_duty)


def make_writer(*, dry_run: bool, timeout: float) -> FanWriter:
    """The writer every driver shares, running commands through `collectors.runner`."""

    async def run_command(argv: tuple[str, ...]) -> CommandOutcome:
        return await runner.run(argv, timeout=timeout)

    return FanWriter(run_command, dry_run=dry_run)


def hardware_builder(
    root: Path, writer: FanWriter, ipmi_base: Sequence[str] = ("ipmitool",)
) -> Builder:
    """Builds real drivers; hwmon chips are looked up once, when the builder is made."""
    chips = hwmon_fans.list_chips(root)

    def build(cfg: FanConfig) -> Driver:
        if cfg.driver is FanDriver.HWMON:
            if cfg.hwmon_name is None or cfg.pwm is None:
                raise FanUnavailable("hwmon_name and pwm are needed")
            chip = hwmon_fans.find_chip(chips, cfg.hwmon_name, cfg.hwmon_device)
            if isinstance(chip, str):
                raise FanUnavailable(chip)
            return HwmonPwm(cfg.name, chip.path, cfg.pwm, writer)
        if cfg.driver is FanDriver.IPMI_SUPERMICRO:
            return SupermicroZone(cfg.name, cfg.ipmi_zone or 0, writer, ipmi_base)
        if cfg.driver is FanDriver.IPMI_DELL:
            return DellFans(cfg.name, writer, ipmi_base)
        try:
            return CommandFan(cfg.name, cfg.set_command, writer)
        except ValueError as exc:
            raise FanUnavailable(str(exc)) from None

    return build


def sim_builder(writer: FanWriter) -> Builder:
    """Builds `SimFan`s: the simulator's fans, or a configuration's fans on the demo."""
    return lambda cfg: SimFan(cfg.name, writer)


def demo_plan(
    snapshot: HostSnapshot, zones: Sequence[FanZone], fans: Sequence[FanConfig]
) -> tuple[tuple[FanZone, ...], tuple[FanConfig, ...]]:
    """Zones and fans for the simulator: the configured ones, else drafts from its fans."""
    if zones and fans:
        return tuple(zones), tuple(fans)
    sim_fans = [f for f in snapshot.fans if f.zone is not None]
    drafts = tuple(drafts_for(sim_fans))
    configs = tuple(FanConfig(f.name, FanDriver.COMMAND, f.zone or "") for f in sim_fans)
    return drafts, configs


def describe(cfg: FanConfig) -> str:
    """What drives a fan, for the start-up log."""
    if cfg.driver is FanDriver.HWMON:
        device = f" at {cfg.hwmon_device}" if cfg.hwmon_device else ""
        return f"hwmon {cfg.hwmon_name}{device} pwm{cfg.pwm}"
    if cfg.driver is FanDriver.COMMAND:
        return "command " + " ".join(cfg.set_command) if cfg.set_command else "simulated"
    return f"{cfg.driver} zone {cfg.ipmi_zone}"
