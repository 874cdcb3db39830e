"""`FanCollector`: every fan with its RPM, duty and zone, and the temperatures fans follow.

- Configured fans (`[[fan]]`): hwmon ones read back from their chip (found by name and device);
  IPMI ones (a BMC zone) listed with their zone, and the BMC's fan tachometers beside them.
- Fans nobody configured: every spinning tachometer on a non-drive hwmon chip, shown only.
- Sensors: the CPU package from coretemp/k10temp, and the BMC's analog sensors.
The BMC is asked when it is this machine's (/dev/ipmi0 under root "/") or a fan uses an IPMI
driver, or when a target is given; at most every `poll.fans` seconds, as ipmitool is slow.
What cannot be read is one `CollectorError` each; the rest is reported.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors import hwmon_fans
from nastui.collectors.ipmi import IpmiReading, IpmiTarget, fans_and_sensors, local_bmc, read_ipmi
from nastui.config import Config
from nastui.config.fancontrol import FanDriver
from nastui.model import CollectorError, Fan, HostSnapshot, Sensor

# Supermicro names zone 0's headers FAN1..FAN6 and zone 1's (peripheral) FANA..FAND.
IPMI_DRIVERS = (FanDriver.IPMI_SUPERMICRO, FanDriver.IPMI_DELL)
_SUPERMICRO_ZONE = {0: re.compile(r"^fan\s*\d+$", re.I), 1: re.compile(r"^fan\s*[a-z]$", re.I)}


@dataclass(frozen=True, slots=True)
class FanReport:
    """What the fan collector found in one poll."""

    fans: tuple[Fan, ...] = ()
    sensors: tuple[Sensor, ...] = ()
    errors: tuple[CollectorError, ...] = ()

    def add_to(self, snapshot: HostSnapshot) -> HostSnapshot:
        """`snapshot` with these fans, sensors and errors added to its own."""
        return dataclasses.replace(
            snapshot,
            fans=snapshot.fans + self.fans,
            sensors=snapshot.sensors + self.sensors,
            errors=snapshot.errors + self.errors,
        )


class FanCollector:
    """Reads fans and fan-relevant sensors under `root`; keeps the last BMC reading a while."""

    def __init__(
        self, config: Config, root: Path = Path("/"), *, ipmi: IpmiTarget | None = None
    ) -> None:
        """Set up.

        Args:
            config: the fans (`[[fan]]`), poll interval and command timeout.
            root: where /sys and /dev are.
            ipmi: the BMC to read; None: this machine's, when it has one (see module docstring).
        """
        self._config = config
        self._root = root
        wants_bmc = any(f.driver in IPMI_DRIVERS for f in config.fans)
        if ipmi is None and root == Path("/") and (wants_bmc or local_bmc(root)):
            ipmi = IpmiTarget()
        self._ipmi = ipmi
        self._bmc: tuple[float, list[IpmiReading], str | None] | None = None

    async def collect(self, now: float) -> FanReport:
        """One poll of every fan and sensor."""
        chips = hwmon_fans.list_chips(self._root)
        fans, taken, errors = self._hwmon_fans(chips)
        fans += hwmon_fans.other_fans(chips, taken)
        sensors = hwmon_fans.cpu_temperatures(chips)
        readings, problem = await self._bmc_readings(now)
        if problem is not None:
            errors.append(CollectorError("ipmi", problem))
        bmc_fans, bmc_sensors = fans_and_sensors(readings)
        fans += self._ipmi_fans(bmc_fans)
        sensors += bmc_sensors
        return FanReport(tuple(fans), tuple(sensors), tuple(errors))

    async def add_to(self, snapshot: HostSnapshot) -> HostSnapshot:
        """Collect at the snapshot's time and add the fans, sensors and errors to it."""
        return (await self.collect(snapshot.taken_at)).add_to(snapshot)

    def _hwmon_fans(
        self, chips: list[hwmon_fans.Chip]
    ) -> tuple[list[Fan], set[tuple[Path, int]], list[CollectorError]]:
        fans: list[Fan] = []
        taken: set[tuple[Path, int]] = set()
        errors: list[CollectorError] = []
        for cfg in self._config.fans:
            if cfg.driver is not FanDriver.HWMON or cfg.hwmon_name is None or cfg.pwm is None:
                continue
            chip = hwmon_fans.find_chip(chips, cfg.hwmon_name, cfg.hwmon_device)
            if isinstance(chip, str):
                errors.append(CollectorError(f"fan:{cfg.name}", f"fan {cfg.name}: {chip}"))
                fans.append(Fan(cfg.name, zone=cfg.zone, driver="hwmon"))
                continue
            taken.add((chip.path, cfg.pwm))
            fan = hwmon_fans.read_fan(chip, cfg.pwm, cfg.name)
            fans.append(dataclasses.replace(fan, zone=cfg.zone))
        return fans, taken, errors

    def _ipmi_fans(self, tachs: list[Fan]) -> list[Fan]:
        """The configured BMC-driven fans, then the BMC's tachometers (in a configured zone
        when the board's naming says which)."""
        fans: list[Fan] = []
        zone_of: dict[int, str] = {}
        for cfg in self._config.fans:
            if cfg.driver in (FanDriver.IPMI_SUPERMICRO, FanDriver.IPMI_DELL, FanDriver.COMMAND):
                fans.append(
                    Fan(cfg.name, zone=cfg.zone, driver=cfg.driver.value, controllable=True)
                )
            if cfg.driver is FanDriver.IPMI_SUPERMICRO and cfg.ipmi_zone is not None:
                zone_of.setdefault(cfg.ipmi_zone, cfg.zone)
        for tach in tachs:
            fans.append(dataclasses.replace(tach, zone=_tach_zone(tach.name, zone_of)))
        return fans

    async def _bmc_readings(self, now: float) -> tuple[list[IpmiReading], str | None]:
        if self._ipmi is None:
            return [], None
        cached = self._bmc
        if cached is not None and 0 <= now - cached[0] < self._config.poll.fans_s:
            return cached[1], cached[2]
        readings, problem = await read_ipmi(self._ipmi, self._config.poll.command_timeout_s)
        self._bmc = (now, readings, problem)
        return readings, problem


def _tach_zone(name: str, zone_of: dict[int, str]) -> str | None:
    for ipmi_zone, zone in zone_of.items():
        pattern = _SUPERMICRO_ZONE.get(ipmi_zone)
        if pattern is not None and pattern.match(name):
            return zone
    return None
