"""`nastui fans [--json]`: what the fans do now. Each fan's RPM, duty, zone and who sets its speed
(nastui's fand, the BIOS or BMC, or unknown: `nastui.fans.logic.owner`); a stalled one (0 RPM
at a duty above 0) flagged; then each zone: what it follows, that temperature now and the duty
its curve gives for it (`nastui.fans.logic.preview.zone_now`, the fan screen's preview). Reads
only: `pwmN_enable` and /proc/PID/cmdline besides the poll; never writes a fan.

    vm: 1 fan, 1 zone; no nastui fand runs
    FAN    ZONE      RPM  DUTY  SET BY
    front  drives   1100   39%  BIOS/BMC
        pwm2_enable=5: the chip's automatic mode (BIOS)
    zone drives: hottest-drive, curve
        hottest drive sdb 38 C: the curve gives 44% now; its fans run at 39%
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from nastui import exits
from nastui.cli.command import glyphs_of, poll_once, write_json
from nastui.collectors import hwmon_fans
from nastui.collectors.procs import fand_pids
from nastui.config import Config
from nastui.core.fleetview import pick_form
from nastui.core.glyphs import Glyphs
from nastui.fans.logic.owner import Control, Controller, FanSetup, control_of, fand_words
from nastui.fans.logic.preview import drafts_for, staleness_period, zone_now
from nastui.fans.logic.zone import Blind, Reading, ZoneDecision
from nastui.model import Fan, FanZone, HostSnapshot, ZoneMode
from nastui.session import Session, Source

WIDTH = 80
# Within 80 columns: `nastui config init -` prints the annotated example, fans and zones in it
NO_FANS = "no fans found: add [[fan]] and [[zone]] tables, as `nastui config init -` shows"
BY = {
    Controller.FAND: "fand",
    Controller.BIOS: "BIOS/BMC",
    Controller.UNKNOWN: "unknown",
    Controller.SIMULATOR: "simulator",
}


def add_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    """--json."""
    parser.add_argument("--json", action="store_true", help="fans and zones as JSON")


@dataclass(frozen=True, slots=True)
class FanNow:
    """A fan as read now and who sets its speed (`mode`: its `pwmN_enable`, hwmon only)."""

    fan: Fan
    control: Control
    mode: int | None = None


@dataclass(frozen=True, slots=True)
class ZoneNow:
    """A zone, what it follows now and the duty it gets (`configured`: a `[[zone]]` is it;
    else a draft on the default curve, as the fan screen drafts it)."""

    zone: FanZone
    configured: bool
    reading: Reading | Blind | None
    decision: ZoneDecision


def zones_now(config: Config, snapshot: HostSnapshot) -> list[ZoneNow]:
    """The configured zones, then a draft for each zone a fan names that none configures."""
    zones = [(z, True) for z in config.zones]
    zones += [(z, False) for z in drafts_for(snapshot.fans, (z.name for z in config.zones))]
    period = staleness_period(config.poll.fans_s, config.poll.temperature_s)
    return [ZoneNow(z, known, *zone_now(z, snapshot, period)) for z, known in zones]


def _setup(fan: Fan, config: Config, chips: list[hwmon_fans.Chip]) -> FanSetup:
    """What tells who drives `fan`: its `[[fan]]` and, for hwmon, its `pwmN_enable` now."""
    wanted = next((c for c in config.fans if c.name == fan.name), None)
    if wanted is None:
        return FanSetup(fan.driver, fan.driver == "ipmi" and fan.zone is not None)
    if wanted.driver.value != "hwmon" or wanted.hwmon_name is None or wanted.pwm is None:
        return FanSetup(wanted.driver.value, True)
    chip = hwmon_fans.find_chip(chips, wanted.hwmon_name, wanted.hwmon_device)
    mode = hwmon_fans.pwm_mode(chip, wanted.pwm) if isinstance(chip, hwmon_fans.Chip) else None
    return FanSetup("hwmon", True, wanted.pwm, mode)


def fans_now(
    session: Session, snapshot: HostSnapshot, demo: bool
) -> tuple[list[FanNow], tuple[int, ...] | None]:
    """Each fan with who drives it, and the running fands' pids (None: cannot tell; the demo
    never looks at this machine's processes)."""
    root = session.tree.root if session.tree is not None else Path("/")
    pids = None if demo else fand_pids(root)
    chips = [] if demo else hwmon_fans.list_chips(root)
    found = []
    for fan in snapshot.fans:
        setup = _setup(fan, session.config, chips)
        found.append(FanNow(fan, control_of(setup, pids), setup.mode))
    return found, pids


def zone_entry(now: ZoneNow, fans: list[FanNow]) -> dict[str, Any]:
    """A zone as JSON-ready data."""
    reading, decision = now.reading, now.decision
    return {
        "name": now.zone.name,
        "configured": now.configured,
        "mode": now.zone.mode.value,
        "sources": [s.value for s in now.zone.sources],
        "setpoint_c": now.zone.setpoint_c if now.zone.mode is ZoneMode.PID else None,
        "temperature_c": reading.celsius if isinstance(reading, Reading) else None,
        "temperature_from": reading.what if isinstance(reading, Reading) else None,
        "duty_percent": decision.duty,
        "failsafe": decision.failsafe,
        "reason": decision.reason,
        "fans": [f.fan.name for f in fans if f.fan.zone == now.zone.name],
    }


def fan_entry(now: FanNow) -> dict[str, Any]:
    """A fan as JSON-ready data."""
    fan = now.fan
    return {
        "name": fan.name,
        "rpm": fan.rpm,
        "duty_percent": fan.duty_percent,
        "stalled": fan.stalled,
        "zone": fan.zone,
        "driver": fan.driver,
        "controllable": fan.controllable,
        "controller": now.control.by.value,
        "control_detail": now.control.detail,
        "pwm_enable": now.mode,
    }


def fans_data(
    snapshot: HostSnapshot, fans: list[FanNow], zones: list[ZoneNow], pids: tuple[int, ...] | None
) -> dict[str, Any]:
    """Everything `nastui fans --json` prints."""
    return {
        "host": snapshot.host,
        "taken_at": snapshot.taken_at,
        "fand_pids": list(pids) if pids is not None else None,
        "fans": [fan_entry(f) for f in fans],
        "zones": [zone_entry(z, fans) for z in zones],
        "errors": [{"source": e.source, "message": e.message} for e in fan_errors(snapshot)],
    }


def fan_errors(snapshot: HostSnapshot) -> list[Any]:
    """What the fan collector could not read (a configured chip missing, the BMC)."""
    return [e for e in snapshot.errors if e.source.split(":")[0] in ("fan", "ipmi")]


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ")


def _heading(snapshot: HostSnapshot, zones: int, pids: tuple[int, ...] | None, demo: bool) -> str:
    count = f"{len(snapshot.fans)} fan{'s' * (len(snapshot.fans) != 1)}"
    head = f"{snapshot.host}: {count}, {zones} zone{'s' * (zones != 1)}"
    if demo:
        return f"{head}; simulated (nastui fand --demo only prints)"
    if pids is None:
        return f"{head}; whether nastui fand runs is unknown (no process list)"
    return f"{head}; {fand_words(pids)} runs" if pids else f"{head}; no nastui fand runs"


def _fan_rows(fans: list[FanNow], glyphs: Glyphs) -> list[str]:
    name_w = min(20, max(3, *(len(f.fan.name) for f in fans)))
    zone_w = min(12, max(4, *(len(f.fan.zone or "-") for f in fans)))
    lines = [f"{'FAN':<{name_w}}  {'ZONE':<{zone_w}} {'RPM':>6} {'DUTY':>5}  SET BY"]
    for now in fans:
        fan = now.fan
        name = pick_form([fan.name], name_w, ellipsis=glyphs.ellipsis)
        zone = pick_form([fan.zone or "-"], zone_w, ellipsis=glyphs.ellipsis)
        rpm = str(fan.rpm) if fan.rpm is not None else "?"
        duty = f"{fan.duty_percent:.0f}%" if fan.duty_percent is not None else "?"
        row = f"{name:<{name_w}}  {zone:<{zone_w}} {rpm:>6} {duty:>5}  {BY[now.control.by]}"
        lines.append(row)
        if fan.stalled:
            lines.append(f"    ! STALLED: 0 RPM at {fan.duty_percent:.0f}% duty: dead or unplugged")
        if now.control.by is not Controller.SIMULATOR:
            lines += _wrap(now.control.detail, "    ")
    return lines


def _running(zone: str, fans: list[FanNow]) -> str:
    """ "; its fans run at 45%" (a range when they differ; nothing when none reads a duty)."""
    duties = sorted(
        f.fan.duty_percent for f in fans if f.fan.zone == zone and f.fan.duty_percent is not None
    )
    if not duties:
        return ""
    low, high = f"{duties[0]:.0f}", f"{duties[-1]:.0f}"
    return f"; its fans run at {low if low == high else f'{low}-{high}'}%"


def _zone_lines(now: ZoneNow, fans: list[FanNow], glyphs: Glyphs) -> list[str]:
    zone, reading, decision = now.zone, now.reading, now.decision
    follows = "+".join(s.value for s in zone.sources) or "hottest-drive"
    how = "PID" if zone.mode is ZoneMode.PID else "curve"
    if not now.configured:
        how = "the default curve (a draft: no [[zone]] table)"
    lines = _wrap(f"zone {zone.name}: {follows}, {how}", "")
    if isinstance(reading, Blind):
        text = f"FAIL-SAFE 100%: {reading.why}"
    elif reading is None:
        text = f"every drive asleep: minimum duty {decision.duty:.0f}%"
    else:
        temp = f"{reading.what} {reading.celsius:.0f} {glyphs.degree}C"
        if zone.mode is ZoneMode.PID:
            aim = f"set point {zone.setpoint_c:.0f} {glyphs.degree}C"
            text = f"{temp}, {aim}: {decision.duty:.0f}% from a fresh start"
        else:
            text = f"{temp}: the curve gives {decision.duty:.0f}% now"
    return lines + _wrap(text + _running(zone.name, fans), "    ")


def render_fans(
    snapshot: HostSnapshot,
    data: tuple[list[FanNow], list[ZoneNow], tuple[int, ...] | None],
    demo: bool,
    glyphs: Glyphs,
) -> str:
    """The fans, then the zones, then what could not be read; one line when there is no fan."""
    fans, zones, pids = data
    errors = [line for e in fan_errors(snapshot) for line in _wrap(f"{e.source}: {e.message}", "")]
    if not fans:
        return "\n".join([NO_FANS, *errors]) + "\n"
    lines = [_heading(snapshot, len(zones), pids, demo), *_fan_rows(fans, glyphs)]
    for zone in zones:
        lines += _zone_lines(zone, fans, glyphs)
    return "\n".join(lines + errors).replace("°", glyphs.degree) + "\n"


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Collect once and show the fans."""
    session, snapshot = poll_once(args)
    demo = Source.from_options(args).demo
    fans, pids = fans_now(session, snapshot, demo)
    zones = zones_now(session.config, snapshot)
    if args.json:
        write_json(fans_data(snapshot, fans, zones, pids), out)
    else:
        out.write(render_fans(snapshot, (fans, zones, pids), demo, glyphs_of(args, session)))
    return exits.OK
