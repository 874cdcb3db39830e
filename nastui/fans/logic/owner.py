"""Who sets a fan's speed now, as nastui can tell from outside fand (pure): `nastui fans`.

fand notices a BIOS taking a hwmon fan back by its `pwmN_enable` leaving manual (1): 0 is no
control (full speed), 2 and up the chip's own automatic modes, which the BIOS sets up. The
same reading says who has the fan now: manual is nastui's while a `nastui fand` runs (someone
else's otherwise: another tool, or a fand killed before it gave the fan back); automatic is the
BIOS's. IPMI and command fans cannot be read back: they are fand's while it runs, else the BMC's
(a command fan's: unknown). A fan no `[[fan]]` names is never nastui's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

MANUAL = 1  # pwmN_enable: 0 full speed, 1 manual, 2+ the chip's automatic modes
BMC_DRIVERS = frozenset({"ipmi-supermicro", "ipmi-dell", "ipmi"})


class Controller(StrEnum):
    """Who sets a fan's speed."""

    FAND = "fand"
    BIOS = "bios"  # the BIOS (the chip's automatic modes) or the BMC
    UNKNOWN = "unknown"
    SIMULATOR = "simulator"


@dataclass(frozen=True, slots=True)
class Control:
    """Who sets a fan's speed, and how that is known (one line)."""

    by: Controller
    detail: str


@dataclass(frozen=True, slots=True)
class FanSetup:
    """What is known of a fan to tell who drives it.

    Attributes:
        driver: the fan's driver ("hwmon", "ipmi-supermicro", "ipmi" for a BMC tachometer, ...).
        configured: a `[[fan]]` names it (a BMC tachometer: it is in a configured zone).
        channel: a configured hwmon fan's pwm channel.
        mode: that channel's `pwmN_enable` read now; None when unreadable.
    """

    driver: str
    configured: bool
    channel: int | None = None
    mode: int | None = None


def fand_words(pids: tuple[int, ...]) -> str:
    """ "nastui fand (pid 812)"."""
    label = "pid" if len(pids) == 1 else "pids"
    return f"nastui fand ({label} {', '.join(map(str, pids))})"


def control_of(setup: FanSetup, fand: tuple[int, ...] | None) -> Control:
    """Who drives the fan; `fand`: the running fand processes' pids, None when unknown."""
    if setup.driver == "sim":
        return Control(Controller.SIMULATOR, "the simulated box: the scenario sets its duty")
    if not setup.configured:
        owner = "the BMC" if setup.driver in BMC_DRIVERS else "the BIOS or another tool"
        by = Controller.BIOS if setup.driver in BMC_DRIVERS else Controller.UNKNOWN
        return Control(by, f"not a [[fan]]: nastui never drives it ({owner})")
    if setup.driver == "hwmon":
        return _hwmon(setup.channel, setup.mode, fand)
    if fand:
        return Control(Controller.FAND, f"{fand_words(fand)}: sent each period, not read back")
    if setup.driver in BMC_DRIVERS:
        if fand is None:
            return Control(Controller.UNKNOWN, "the BMC, or nastui fand (no process list)")
        return Control(Controller.BIOS, "the BMC: no nastui fand runs")
    return Control(Controller.UNKNOWN, "whatever runs its command: no nastui fand runs")


def _hwmon(channel: int | None, mode: int | None, fand: tuple[int, ...] | None) -> Control:
    pwm = f"pwm{channel}_enable" if channel is not None else "pwm_enable"
    if mode is None:
        return Control(Controller.UNKNOWN, f"{pwm} unreadable")
    if mode == MANUAL:
        if fand:
            return Control(Controller.FAND, f"{fand_words(fand)}, {pwm}=1 (manual)")
        if fand is None:
            return Control(Controller.UNKNOWN, f"{pwm}=1 (manual): fand or another tool")
        return Control(
            Controller.UNKNOWN,
            f"{pwm}=1 (manual) but no nastui fand runs: another tool, or a fand killed "
            "before it gave the fan back",
        )
    what = "no control, full speed" if mode == 0 else "the chip's automatic mode (BIOS)"
    taken = f"; taken back from {fand_words(fand)}, which sets it again" if fand else ""
    return Control(Controller.BIOS, f"{pwm}={mode}: {what}{taken}")
