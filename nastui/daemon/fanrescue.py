"""`fand --full-speed`: every fan to full, whatever state the configuration is in.

It runs when the daemon did not end cleanly (the systemd unit's ExecStopPost) and when its
watchdog finds the loop stuck, so it depends on as little as possible:
- hwmon: every `pwmN` of every chip in /sys/class/hwmon, configured or not (a fan nastui does
  not drive at full speed is only loud): `pwmN_enable` = 1 (manual) where the file exists, then
  `pwmN` = 255. Only names matching `pwm<digits>` and `pwm<digits>_enable` are written.
- IPMI: the `[[fan]]` tables with an IPMI driver get their board's fixed full-speed commands
  (Supermicro fan mode Full; Dell manual mode at 100 %) when the file can be read as TOML at
  all, even if the configuration is otherwise invalid. A command-driver fan's own command is
  only run when the whole configuration is valid: an invalid file's argv is not trusted.
Each file write and command is bounded in time, so a hung chip cannot stop the others.
"""

from __future__ import annotations

import re
import shlex
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors import runner
from nastui.config import ConfigError, FanDriver, load_config
from nastui.config.loader import MAX_FILE_BYTES
from nastui.control.fans import DriverError, FanWriter, argv
from nastui.daemon.fanlog import Log

IO_TIMEOUT_S = 5.0
COMMAND_TIMEOUT_S = 20.0
FULL_PWM = 255
_PWM = re.compile(r"pwm(?P<n>\d{1,3})")  # Sample: pwm2
_IPMI = {FanDriver.IPMI_SUPERMICRO.value, FanDriver.IPMI_DELL.value}


@dataclass(frozen=True, slots=True)
class Plan:
    """What to drive: hwmon pwm files, IPMI/command argvs, and what was skipped (and why)."""

    pwms: tuple[Path, ...]
    commands: tuple[tuple[str, tuple[str, ...]], ...]  # (what, argv)
    notes: tuple[str, ...]


def pwm_files(root: Path) -> list[Path]:
    """Every `pwmN` file of every hwmon chip under `root` (directory listings only)."""
    found: list[Path] = []
    try:
        entries = sorted((root / "sys/class/hwmon").iterdir())
    except OSError:
        return found
    for entry in entries:
        try:
            chip = entry.resolve(strict=True)
            names = sorted(p.name for p in chip.iterdir())
        except OSError:
            continue
        found.extend(chip / n for n in names if _PWM.fullmatch(n))
    return found


def plan(root: Path, config_path: Path | None) -> Plan:
    """The pwm files under `root`, and the commands the configuration (as far as it reads) asks."""
    notes: list[str] = []
    commands: list[tuple[str, tuple[str, ...]]] = []
    if config_path is None:
        notes.append("no configuration file: IPMI and command fans, if any, not driven")
    else:
        commands = _commands(config_path, notes)
    unique = list(dict.fromkeys(commands))
    return Plan(tuple(pwm_files(root)), tuple(unique), tuple(notes))


def _commands(path: Path, notes: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    try:
        config = load_config(path)
    except ConfigError as exc:
        notes.append(f"configuration invalid ({exc}): only its IPMI fans are driven")
        return [(f"fan {name}", cmd) for name, cmd in _lenient_ipmi(path, notes)]
    except Exception as exc:  # any failure to load: drive what can be found anyway
        notes.append(f"configuration unreadable ({type(exc).__name__}): no IPMI fans driven")
        return []
    found: list[tuple[str, tuple[str, ...]]] = []
    for fan in config.fans:
        if fan.driver is FanDriver.COMMAND:
            found.append((f"fan {fan.name}", argv.command_argv(fan.set_command, 100.0)))
        elif fan.driver is not FanDriver.HWMON:
            found.extend((f"fan {fan.name}", cmd) for cmd in _ipmi_full(fan.driver.value))
    return found


def _lenient_ipmi(path: Path, notes: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The IPMI fans of a file that is TOML but not a valid configuration."""
    try:
        with path.open("rb") as file:
            data = tomllib.loads(file.read(MAX_FILE_BYTES).decode("utf-8"))
    except Exception as exc:  # not TOML, too deep, unreadable: nothing to learn from it
        notes.append(f"{path.name} cannot be read as TOML ({type(exc).__name__}): no IPMI fans")
        return []
    fans = data.get("fan")
    found: list[tuple[str, tuple[str, ...]]] = []
    for index, fan in enumerate(fans if isinstance(fans, list) else []):
        if not isinstance(fan, dict):
            continue
        driver = str(fan.get("driver", "")).strip().lower()
        name = fan.get("name")
        label = name if isinstance(name, str) and name.strip() else f"[{index + 1}]"
        if driver in _IPMI:
            found.extend((label, cmd) for cmd in _ipmi_full(driver))
        elif driver == FanDriver.COMMAND.value:
            notes.append(f"fan {label}: its command is not run from an invalid configuration")
    return found


def _ipmi_full(driver: str) -> list[tuple[str, ...]]:
    """The fixed full-speed commands of an IPMI driver (allowlisted argv, no user input)."""
    if driver == FanDriver.IPMI_SUPERMICRO.value:
        return [argv.supermicro_full_mode()]
    return [argv.dell_manual(), argv.dell_duty(100.0)]


def bounded(call: Callable[[], None], timeout: float) -> str | None:
    """Run `call` on its own thread; None when it finished in time, else why not."""
    failure: list[str] = []

    def run() -> None:
        try:
            call()
        except (DriverError, OSError) as exc:
            failure.append(str(exc))

    thread = threading.Thread(target=run, name="fand-rescue-io", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return f"no answer within {timeout:g} s"
    return failure[0] if failure else None


def drive_pwm(writer: FanWriter, pwm: Path) -> str | None:
    """Manual mode (where the chip has the switch), then 255; None when both went."""
    enable = pwm.with_name(f"{pwm.name}_enable")
    first = bounded(lambda: writer.write(enable, 1), IO_TIMEOUT_S) if enable.exists() else None
    # the duty is written even if the switch failed: some chips take it in their own modes
    return bounded(lambda: writer.write(pwm, FULL_PWM), IO_TIMEOUT_S) or first


async def rescue(the_plan: Plan, log: Log, *, dry_run: bool = False) -> bool:
    """Carry out `the_plan`, logging each step; True when something was driven and all went."""
    writer = FanWriter(dry_run=dry_run)
    for note in the_plan.notes:
        log.warning(f"fand --full-speed: {note}")
    ok = bool(the_plan.pwms or the_plan.commands)
    if not ok:
        log.error("fand --full-speed: no fan found (no hwmon pwm file, no IPMI fan configured)")
    mode = "dry run: " if dry_run else ""
    for pwm in the_plan.pwms:
        chip = writer.read(pwm.parent / "name") or pwm.parent.name  # O_NONBLOCK: never hangs
        trouble = drive_pwm(writer, pwm)
        done = "; ".join(writer.take())
        if trouble:
            ok = False
            log.error(f"hwmon {chip} {pwm.name}: full speed failed: {trouble}")
        else:
            log.info(f"hwmon {chip} {pwm.name}: full speed [{mode}{done}]")
    for what, command in the_plan.commands:
        shown = shlex.join(command)
        if dry_run:
            log.info(f"{what}: full speed [dry run: {shown}]")
            continue
        result = await runner.run(command, timeout=COMMAND_TIMEOUT_S)
        if result.ok:
            log.info(f"{what}: full speed [{shown}]")
        else:
            ok = False
            log.error(f"{what}: full speed failed: {result.describe()}")
    return ok
