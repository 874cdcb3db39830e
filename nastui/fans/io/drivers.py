"""Fan drivers: hwmon PWM, Supermicro and Dell BMCs over IPMI, a command, the simulator's fans.

Each driver has four calls, all through a `FanWriter`:
- `set(duty)`: take control if not yet taken and set `duty` percent (checked 0..100);
- `hold()`: every period the duty is unchanged, keep what was set against whatever else
  writes the fan (a BIOS, a BMC, another tool): hwmon reads `pwmN_enable` and `pwmN` back and
  writes them again when they differ, and says what it found; IPMI and command fans cannot be
  read back, so their last commands are sent again;
- `full()`: 100 % now (the fail-safe after any error);
- `restore()`: give the fan back as it was found: hwmon's original `pwmN_enable` and `pwmN`;
  Dell's automatic mode; where nothing can be read back (Supermicro, commands) full speed.
A driver that was never `set` restores nothing: it never touched the fan.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from nastui.fans.io import argv
from nastui.fans.io.writer import FanWriter

MANUAL = "1"  # pwmN_enable: 0 full speed, 1 manual, 2+ the chip's automatic modes


class FanDriver(Protocol):
    """What the daemon drives a fan through."""

    name: str

    async def set(self, duty: float) -> None:
        """Set `duty` percent. Raises ValueError (bad duty) or DriverError."""
        ...

    async def hold(self) -> str | None:
        """Keep the duty last set; what was found changed ("pwm2_enable=5, pwm2=60"), or
        None. Raises DriverError."""
        ...

    async def full(self) -> None:
        """Full speed now. Raises DriverError."""
        ...

    async def restore(self) -> None:
        """Give the fan back as found (or at full speed). Raises DriverError."""
        ...


class HwmonPwm:
    """A `pwmN` channel of a hwmon chip, in manual mode while nastui drives it."""

    def __init__(self, name: str, directory: Path, channel: int, writer: FanWriter) -> None:
        """Drive `directory/pwm<channel>` (the chip's hwmon directory, found by name)."""
        self.name = name
        self.pwm = directory / f"pwm{channel}"
        self.enable = directory / f"pwm{channel}_enable"
        self._writer = writer
        self._taken = False
        self._original: tuple[str | None, str | None] = (None, None)
        self._has_enable = True
        self._value: int | None = None  # the pwm value last written
        self._readback: str | None = None  # and how the chip reads it back (some round it)

    @property
    def original(self) -> tuple[str | None, str | None]:
        """(`pwmN_enable`, `pwmN`) as found before the first write; None where unreadable."""
        return self._original

    async def set(self, duty: float) -> None:
        """Manual mode (re-asserted if something switched it back), then the duty."""
        value = argv.pwm_value(duty)
        w = self._writer
        if not self._taken:
            self._original = (w.read(self.enable), w.read(self.pwm))
            # Some drivers (pwm-fan, many GPUs) have no pwmN_enable: always manual.
            self._has_enable = self.enable.exists() or not self.pwm.exists()
        if self._has_enable and (
            not self._taken or (not w.dry_run and w.read(self.enable) != MANUAL)
        ):
            w.write(self.enable, int(MANUAL))
        self._taken = True
        self._put(value)

    def _put(self, value: int) -> None:
        w = self._writer
        w.write(self.pwm, value)
        self._value = value
        self._readback = None if w.dry_run else w.read(self.pwm)

    async def hold(self) -> str | None:
        """`pwmN_enable` and `pwmN` read back; written again (manual, the last value) when
        anything else changed them. Returns what was found then, None when they were kept."""
        w = self._writer
        if self._value is None or w.dry_run:
            return None
        enable = w.read(self.enable) if self._has_enable else MANUAL
        value = w.read(self.pwm)
        if enable == MANUAL and value is not None and value == self._readback:
            return None
        if self._has_enable:
            w.write(self.enable, int(MANUAL))
        self._put(self._value)
        found = [f"{self.pwm.name}={_shown(value)}"]
        if self._has_enable:
            found.insert(0, f"{self.enable.name}={_shown(enable)}")
        return ", ".join(found)

    async def full(self) -> None:
        """Manual mode at 255."""
        await self.set(100.0)

    async def restore(self) -> None:
        """The original `pwmN`, then the original `pwmN_enable`; 255 if they were unreadable."""
        if not self._taken:
            return
        self._value = None
        enable, value = self._original
        if enable is None or not enable.isdigit():
            self._writer.write(self.pwm, 255)
            return
        if value is not None and value.isdigit():
            self._writer.write(self.pwm, int(value))
        self._writer.write(self.enable, int(enable))
        self._taken = False


def _shown(value: str | None) -> str:
    """A value read back, for the log: unreadable, empty or garbage said as such."""
    if value is None:
        return "unreadable"
    return repr(value) if not value.isdigit() else value


class Resend:
    """The commands that set a BMC's or a command fan's state last: `hold` sends them again
    (nothing can be read back), `restore` forgets them."""

    def __init__(self, writer: FanWriter) -> None:
        self._writer = writer
        self.last: tuple[tuple[str, ...], ...] = ()

    async def run(self, *commands: tuple[str, ...]) -> None:
        """Run `commands` in order, and keep them as the state to hold."""
        self.last = ()
        for command in commands:
            await self._writer.run(command)
        self.last = commands

    async def hold(self) -> str | None:
        """The last commands again; nothing can be read back, so nothing is reported."""
        for command in self.last:
            await self._writer.run(command)
        return None


class SupermicroZone:
    """A Supermicro X9/X10/X11 fan zone: fan mode Full, then the zone's duty."""

    def __init__(
        self, name: str, zone: int, writer: FanWriter, base: Sequence[str] = argv.IPMITOOL
    ) -> None:
        self.name = name
        self.zone = zone
        self._writer = writer
        self._base = tuple(base)
        self._full_mode = False
        self._sent = Resend(writer)

    async def set(self, duty: float) -> None:
        """Full mode once (the BMC otherwise overrides the zone duty), then the duty."""
        command = argv.supermicro_zone_duty(self.zone, duty, self._base)
        if not self._full_mode:
            await self._writer.run(argv.supermicro_full_mode(self._base))
            self._full_mode = True
        await self._sent.run(command)  # held: the duty again, not Full mode (100 % at once)

    async def hold(self) -> str | None:
        """The zone's duty sent again (or Full mode, after `full`)."""
        return await self._sent.hold()

    async def full(self) -> None:
        """Fan mode Full: every fan at 100 %."""
        await self._sent.run(argv.supermicro_full_mode(self._base))
        self._full_mode = True

    async def restore(self) -> None:
        """Nothing to read back: full speed, with the BMC's own Full mode."""
        if self._full_mode:
            await self.full()
        self._sent.last = ()


class DellFans:
    """A Dell iDRAC's fans, all together: manual mode, then the duty."""

    def __init__(self, name: str, writer: FanWriter, base: Sequence[str] = argv.IPMITOOL) -> None:
        self.name = name
        self._writer = writer
        self._base = tuple(base)
        self._manual = False
        self._sent = Resend(writer)

    async def set(self, duty: float) -> None:
        """Manual mode once, then the duty."""
        command = argv.dell_duty(duty, self._base)
        if not self._manual:
            await self._writer.run(argv.dell_manual(self._base))
            self._manual = True
        await self._sent.run(command)
        self._sent.last = (argv.dell_manual(self._base), command)  # held: both, in order

    async def hold(self) -> str | None:
        """Manual mode and the duty sent again (an iDRAC reset takes manual mode away)."""
        return await self._sent.hold()

    async def full(self) -> None:
        """Manual mode at 100 %."""
        self._manual = False
        await self.set(100.0)

    async def restore(self) -> None:
        """Automatic mode: the iDRAC's own fan control again."""
        self._sent.last = ()
        if self._manual:
            await self._writer.run(argv.dell_automatic(self._base))
            self._manual = False


class CommandFan:
    """A fan set by running a command, "{duty}" in its argv replaced by the percent."""

    def __init__(self, name: str, template: Sequence[str], writer: FanWriter) -> None:
        argv.command_argv(template, 100.0)  # the template must hold {duty}: fail at start
        self.name = name
        self._template = tuple(template)
        self._writer = writer
        self._used = False
        self._sent = Resend(writer)

    async def set(self, duty: float) -> None:
        """Run the command with `duty`."""
        command = argv.command_argv(self._template, duty)
        self._used = True
        await self._sent.run(command)

    async def hold(self) -> str | None:
        """The command run again with the same duty."""
        return await self._sent.hold()

    async def full(self) -> None:
        """Run the command with 100."""
        await self.set(100.0)

    async def restore(self) -> None:
        """Nothing to read back: full speed."""
        if self._used:
            await self.full()
        self._sent.last = ()


class SimFan:
    """A simulated fan (`--demo`): every write is only recorded."""

    def __init__(self, name: str, writer: FanWriter) -> None:
        self.name = name
        self._writer = writer

    async def set(self, duty: float) -> None:
        """Record the duty."""
        self._writer.note(f"sim fan {self.name} = {argv.check_duty(duty):g} %")

    async def hold(self) -> str | None:
        """Nothing to hold: the simulator's fans obey."""
        return None

    async def full(self) -> None:
        """Record full speed."""
        await self.set(100.0)

    async def restore(self) -> None:
        """Record the hand-back."""
        self._writer.note(f"sim fan {self.name} back to the simulator")
