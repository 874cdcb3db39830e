"""`fand --full-speed`: every fan to full, whatever state the configuration is in.

It runs when the daemon did not end cleanly (the systemd unit's ExecStopPost) and when its
watchdog finds the loop stuck, so it depends on as little as possible, and full speed is
written before any configuration is looked at (a configuration that is a FIFO, on a hung mount
or huge cannot delay it):
- hwmon first: every `pwmN` of every chip in /sys/class/hwmon, configured or not (a fan nastui
  does not drive at full speed is only loud): `pwmN_enable` = 1 (manual) where the file
  exists, then `pwmN` = 255. Only names matching `pwm<digits>` and `pwm<digits>_enable` are
  written.
- then IPMI and command fans. The watchdog takes them from the running configuration, already
  in memory: it reads no file. `--full-speed` reads the file only now, through
  `config.load_config` (a regular file of at most 256 KiB, opened without blocking) on a
  thread it waits for at most IO_TIMEOUT_S. Its `[[fan]]` tables with an IPMI driver get their
  board's fixed full-speed commands (Supermicro fan mode Full; Dell manual mode at 100 %) when
  the file can be read as TOML at all, even if the configuration is otherwise invalid. A
  command-driver fan's own command is only run when the whole configuration is valid: an
  invalid file's argv is not trusted.
Each file write, the file read and each command is bounded in time, so a hung chip cannot stop
the others.
"""

from __future__ import annotations

import re
import shlex
import threading
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from nastui.collectors import runner
from nastui.config import Config, ConfigError, load_config
from nastui.config.fancontrol import FanConfig, FanDriver
from nastui.config.loader import MAX_FILE_BYTES
from nastui.daemonlog import Log
from nastui.fans.io import DriverError, FanWriter, argv
from nastui.safeio import read_bounded

IO_TIMEOUT_S = 5.0
COMMAND_TIMEOUT_S = 20.0
FULL_PWM = 255
_PWM = re.compile(r"pwm(?P<n>\d{1,3})")  # Sample: pwm2
_IPMI = {FanDriver.IPMI_SUPERMICRO.value, FanDriver.IPMI_DELL.value}

T = TypeVar("T")
Command = tuple[str, tuple[str, ...]]  # (what, argv)
Commands = Callable[[list[str]], list[Command]]  # notes out, commands back


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


def running_commands(config: Config) -> Commands:
    """The full-speed commands of a configuration already loaded (the watchdog's): no read."""
    return lambda notes: _config_commands(config.fans)


def file_commands(path: Path | None) -> Commands:
    """The full-speed commands of the configuration file at `path`, as far as it reads
    (`--full-speed`): read when called, which `rescue` does after the pwm writes."""

    def commands(notes: list[str]) -> list[Command]:
        if path is None:
            notes.append("no configuration file: IPMI and command fans, if any, not driven")
            return []
        return _file_commands(path, notes)

    return commands


def _file_commands(path: Path, notes: list[str]) -> list[Command]:
    try:
        config = load_config(path)
    except ConfigError as exc:
        notes.append(f"configuration invalid ({exc}): only its IPMI fans are driven")
        return [(f"fan {name}", cmd) for name, cmd in _lenient_ipmi(path, notes)]
    except Exception as exc:  # any failure to load: drive what can be found anyway
        notes.append(f"configuration unreadable ({type(exc).__name__}): no IPMI fans driven")
        return []
    return _config_commands(config.fans)


def _config_commands(fans: Sequence[FanConfig]) -> list[Command]:
    found: list[Command] = []
    for fan in fans:
        if fan.driver is FanDriver.COMMAND:
            found.append((f"fan {fan.name}", argv.command_argv(fan.set_command, 100.0)))
        elif fan.driver is not FanDriver.HWMON:
            found.extend((f"fan {fan.name}", cmd) for cmd in _ipmi_full(fan.driver.value))
    return found


def _lenient_ipmi(path: Path, notes: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The IPMI fans of a file that is TOML but not a valid configuration."""
    try:
        data = tomllib.loads(read_bounded(path, MAX_FILE_BYTES).decode("utf-8"))
    except Exception as exc:  # not TOML, too deep, not a regular file: nothing to learn
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


def within(call: Callable[[], T], timeout: float) -> T | Exception:
    """`call()` on its own thread: its result, or why there is none (what it raised, or a
    TimeoutError when it did not finish within `timeout` s; the thread is then abandoned)."""
    result: list[T] = []
    failure: list[Exception] = []

    def run() -> None:
        try:
            result.append(call())
        except Exception as exc:  # handed to the caller, who says what failed
            failure.append(exc)

    thread = threading.Thread(target=run, name="fand-rescue-io", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return TimeoutError(f"no answer within {timeout:g} s")
    return failure[0] if failure else result[0]


def bounded(call: Callable[[], None], timeout: float) -> str | None:
    """Run a write on its own thread; None when it finished in time, else why not."""
    outcome = within(call, timeout)
    if isinstance(outcome, DriverError | OSError):
        return str(outcome)
    if isinstance(outcome, Exception):
        raise outcome
    return None


def drive_pwm(writer: FanWriter, pwm: Path) -> str | None:
    """Manual mode (where the chip has the switch), then 255; None when both went."""
    enable = pwm.with_name(f"{pwm.name}_enable")
    first = bounded(lambda: writer.write(enable, 1), IO_TIMEOUT_S) if enable.exists() else None
    # the duty is written even if the switch failed: some chips take it in their own modes
    return bounded(lambda: writer.write(pwm, FULL_PWM), IO_TIMEOUT_S) or first


async def rescue(
    root: Path,
    commands: Commands,
    log: Log,
    *,
    dry_run: bool = False,
    timeout: float = IO_TIMEOUT_S,
) -> bool:
    """Every pwm channel under `root` to full speed, then the fans of `commands` (asked only
    after the pwm writes, and waited for at most `timeout` s), logging each step; True when
    something was driven and all went."""
    writer = FanWriter(dry_run=dry_run)
    mode = "dry run: " if dry_run else ""
    pwms = pwm_files(root)
    ok = True
    for pwm in pwms:
        chip = writer.read(pwm.parent / "name") or pwm.parent.name  # O_NONBLOCK: never hangs
        trouble = drive_pwm(writer, pwm)
        done = "; ".join(writer.take())
        if trouble:
            ok = False
            log.error(f"hwmon {chip} {pwm.name}: full speed failed: {trouble}")
        else:
            log.info(f"hwmon {chip} {pwm.name}: full speed [{mode}{done}]")
    notes: list[str] = []
    found = within(lambda: commands(notes), timeout)
    if isinstance(found, Exception):  # a configuration that could not be read in time
        notes.append(f"configuration not read ({found}): IPMI and command fans not driven")
        found, ok = [], False
    found = list(dict.fromkeys(found))  # two fans of one BMC: its commands once
    for note in list(notes):
        log.warning(f"fand --full-speed: {note}")
    if not pwms and not found:
        log.error("fand --full-speed: no fan found (no hwmon pwm file, no IPMI fan configured)")
        return False
    return await _run_commands(found, log, dry_run=dry_run) and ok


async def _run_commands(commands: Sequence[Command], log: Log, *, dry_run: bool) -> bool:
    ok = True
    for what, command in commands:
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
