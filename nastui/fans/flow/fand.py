"""`nastui fand`: the fan control daemon's life: start, loop, signals, and the way out.

- Start: open the session (so `--demo`, `--root` and `--config` mean what they mean
  everywhere), build a driver per `[[fan]]` (a fan that cannot be found stops the start, before
  anything is written: exit 69), log what it will drive.
- Loop: a `FanDaemon.step` every period; the configuration is reloaded when its file changes
  (checked each period) or on SIGHUP; an invalid one is refused in one log line and the
  running one kept.
- Way out: SIGTERM or SIGINT (exit 0), an exception (exit 70), or the one period of `--once`:
  every fan is given back (original `pwmN_enable` and `pwmN`, Dell's automatic mode, else full
  speed) before the process ends. `--demo` implies `--dry-run`.
- `--full-speed` (the systemd unit's ExecStopPost, for when the daemon was killed) does not
  open a session nor need a valid configuration: `rescue` drives every hwmon pwm channel
  first, then the IPMI fans of whatever part of the file can be read (bounded: a FIFO or a
  huge file is refused at once), and says what it did. The watchdog's rescue does the same
  with the running configuration, reading no file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.config import Config, find_config_path
from nastui.core.layout import EXAMPLE_HINT
from nastui.daemonlog import Log
from nastui.fans.flow.loop import FanDaemon
from nastui.fans.flow.rescue import file_commands, rescue, running_commands
from nastui.fans.flow.rig import (
    Builder,
    FanUnavailable,
    RiggedFan,
    demo_plan,
    describe,
    hardware_builder,
    make_writer,
    sim_builder,
)
from nastui.fans.flow.watch import Notifier, Watchdog
from nastui.session import Session, Source, open_or_exit


@dataclass(frozen=True, slots=True)
class FandOptions:
    """The command's own options.

    Attributes:
        once: one period, then give the fans back and exit.
        dry_run: print the writes instead of doing them.
        period: seconds between periods (default: the configuration's `poll.fans`).
        full_speed: set every fan to 100 % and exit.
    """

    once: bool = False
    dry_run: bool = False
    period: float | None = None
    full_speed: bool = False


def run_fand(
    options: FandOptions, source: Source, env: Mapping[str, str], out: TextIO, err: TextIO
) -> int:
    """Run the daemon until it is told to stop; returns the exit code."""
    if options.full_speed and not source.demo:
        return full_speed(options, source, env, Log(out, env))
    session = open_or_exit(source, env)
    return asyncio.run(_main(options, source, session, Log(out, env), err, env=env))


def full_speed(options: FandOptions, source: Source, env: Mapping[str, str], log: Log) -> int:
    """Every fan found to full, whatever the configuration's state (`rescue`): the pwm
    channels first, the configuration read (bounded) only after them."""
    root = source.root or Path("/")
    config_path = source.config or find_config_path(env)
    done = asyncio.run(rescue(root, file_commands(config_path), log, dry_run=options.dry_run))
    return exits.OK if done else exits.EX_UNAVAILABLE


async def _main(
    options: FandOptions,
    source: Source,
    session: Session,
    log: Log,
    err: TextIO,
    *,
    env: Mapping[str, str],
) -> int:
    config = session.config
    dry_run = options.dry_run or source.demo
    writer = make_writer(dry_run=dry_run, timeout=config.poll.command_timeout_s)
    builder: Builder
    zones, fans = config.zones, config.fans
    root = None if source.demo else source.root or Path("/")
    if root is None:
        zones, fans = demo_plan(await session.poll(), zones, fans)
        builder = sim_builder(writer)
    else:
        builder = hardware_builder(root, writer)
    if not zones or not fans:
        print(f"nastui: fand: nothing to control: {_nothing(config)}", file=err)
        return exits.EX_CONFIG
    rig: list[RiggedFan] = []
    for cfg in fans:
        try:
            rig.append(RiggedFan(cfg, builder(cfg)))
        except FanUnavailable as exc:
            print(f"nastui: fand: fan {cfg.name}: {exc}", file=err)
            return exits.EX_UNAVAILABLE
    period = options.period or config.poll.fans_s
    daemon = FanDaemon(
        session, zones, rig, builder=builder, writer=writer, log=log, period=period, root=root
    )
    if options.full_speed:
        return exits.OK if await daemon.full_speed() else exits.EX_UNAVAILABLE
    _start_lines(daemon, config, dry_run=dry_run)
    notifier = Notifier(env)
    watchdog = Watchdog(daemon.stuck_after, _on_stuck(daemon, notifier, dry_run=dry_run))
    return await serve(daemon, once=options.once, notifier=notifier, watchdog=watchdog)


def _on_stuck(daemon: FanDaemon, notifier: Notifier, *, dry_run: bool) -> Callable[[str], None]:
    """What the watchdog does, from its own thread, when the loop is stuck: every fan found to
    full speed (as `--full-speed` does: the loop's own drivers may be what is stuck), then
    the process ends (EX_SOFTWARE: systemd restarts it)."""

    def stuck(why: str) -> None:
        log = daemon.log
        try:
            log.error(f"watchdog: {why}; setting every fan to full speed and exiting")
            notifier.status(f"watchdog: {why}; full speed")
            root = daemon.root  # the running configuration's fans: no file is read
            commands = running_commands(daemon.session.config)
            asyncio.run(rescue(root or Path("/"), commands, log, dry_run=dry_run or root is None))
            log.error(f"fand: stopped by the watchdog (exit {exits.EX_SOFTWARE})")
        finally:  # whatever happened above, a stuck daemon must not stay
            os._exit(exits.EX_SOFTWARE)

    return stuck


def _nothing(config: Config) -> str:
    where = str(config.path) if config.path else "the built-in defaults (no configuration file)"
    return f"no [[zone]] and [[fan]] tables in {where}; {EXAMPLE_HINT}, with this box's fans"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _start_lines(daemon: FanDaemon, config: Config, *, dry_run: bool) -> None:
    log = daemon.log
    source = str(config.path) if config.path else "built-in defaults"
    mode = "; dry run: nothing is written" if dry_run else ""
    log.info(
        f"fand: pid {os.getpid()}, {_count(len(daemon.fans), 'fan')} in "
        f"{_count(len(daemon.zones), 'zone')}, "
        f"every {daemon.period:g} s, configuration {source}{mode}"
    )
    for fan in daemon.fans:
        log.info(f"fan {fan.config.name}: zone {fan.config.zone}, {describe(fan.config)}")


async def serve(
    daemon: FanDaemon,
    *,
    once: bool = False,
    notifier: Notifier | None = None,
    watchdog: Watchdog | None = None,
) -> int:
    """The loop, with SIGTERM/SIGINT (stop), SIGHUP (reload) and the restore on every exit;
    `notifier` tells systemd (READY, WATCHDOG, STOPPING), `watchdog` watches the loop."""
    stop, wake = asyncio.Event(), asyncio.Event()
    hup = [False]
    notify = notifier or Notifier({})
    # the loop beats at least once a period, and twice per systemd watchdog interval
    tick = min(daemon.period, notify.interval / 2) if notify.interval else daemon.period

    def beat() -> None:
        if watchdog is not None:
            watchdog.beat()
        notify.ping()

    handled = _handle_signals(daemon.log, stop, wake, hup)
    code, ready = exits.OK, False
    daemon.progress = beat
    if watchdog is not None:
        watchdog.start()
    try:
        while not stop.is_set():
            await daemon.step(stop)
            beat()
            if once:
                break
            if not ready:
                ready = True
                notify.ready(f"driving {len(daemon.fans)} fans every {daemon.period:g} s")
            await _wait(daemon.period, tick, wake, beat)
            if not stop.is_set():
                await daemon.check_config(forced=hup[0])
                hup[0] = False
                if watchdog is not None:  # a reload may have added IPMI fans
                    watchdog.limit = daemon.stuck_after
    except Exception as exc:
        daemon.log.error(f"fand: internal error: {type(exc).__name__}: {exc}; giving fans back")
        code = exits.EX_SOFTWARE
    finally:
        notify.stopping()
        restored = await daemon.restore_all()
        if watchdog is not None:
            watchdog.stop()
        for sig in handled:
            asyncio.get_running_loop().remove_signal_handler(sig)
    if not restored and code == exits.OK:
        code = exits.EX_UNAVAILABLE
    daemon.log.info(f"fand: stopped (exit {code})")
    return code


def _handle_signals(
    log: Log, stop: asyncio.Event, wake: asyncio.Event, hup: list[bool]
) -> tuple[signal.Signals, ...]:
    """SIGTERM and SIGINT set `stop`, SIGHUP sets `hup[0]`; each wakes the wait."""
    loop = asyncio.get_running_loop()

    def on_stop(name: str) -> None:
        log.info(f"{name}: giving the fans back and stopping")
        stop.set()
        wake.set()

    def on_hup() -> None:
        hup[0] = True
        wake.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_stop, sig.name)
    loop.add_signal_handler(signal.SIGHUP, on_hup)
    return (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


async def _wait(period: float, tick: float, wake: asyncio.Event, beat: Callable[[], None]) -> None:
    """Until the next period (or a signal), beating every `tick` seconds."""
    end = time.monotonic() + period
    wake.clear()
    while (left := end - time.monotonic()) > 0 and not wake.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), min(left, tick))
        beat()
