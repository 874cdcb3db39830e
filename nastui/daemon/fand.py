"""`nastui fand`: the fan control daemon's life: start, loop, signals, and the way out.

- Start: open the session (so `--demo`, `--root` and `--config` mean what they mean
  everywhere), build a driver per `[[fan]]` (a fan that cannot be found stops the start, before
  anything is written: exit 69), log what it will drive.
- Loop: a `FanDaemon.step` every period; the configuration is reloaded when its file changes
  (checked each period) or on SIGHUP; an invalid one is refused in one log line and the
  running one kept.
- Way out: SIGTERM or SIGINT (exit 0), an exception (exit 70), or the one period of `--once`:
  every fan is given back (original `pwmN_enable` and `pwmN`, Dell's automatic mode, else full
  speed) before the process ends. `--full-speed` only sets every fan to 100 % and exits (the
  systemd unit's ExecStopPost, for when the daemon was killed). `--demo` implies `--dry-run`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.config import Config
from nastui.daemon.fanlog import Log
from nastui.daemon.fanloop import FanDaemon
from nastui.daemon.fanrig import (
    Builder,
    RiggedFan,
    demo_plan,
    describe,
    hardware_builder,
    make_writer,
    sim_builder,
)
from nastui.session import Session, Source, open_or_explain


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
    session = open_or_explain(source, env, err)
    if isinstance(session, int):
        return session
    return asyncio.run(_main(options, source, session, Log(out, env), err))


async def _main(
    options: FandOptions, source: Source, session: Session, log: Log, err: TextIO
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
        driver = builder(cfg)
        if isinstance(driver, str):
            print(f"nastui: fand: fan {cfg.name}: {driver}", file=err)
            return exits.EX_UNAVAILABLE
        rig.append(RiggedFan(cfg, driver))
    period = options.period or config.poll.fans_s
    daemon = FanDaemon(
        session, zones, rig, builder=builder, writer=writer, log=log, period=period, root=root
    )
    if options.full_speed:
        return exits.OK if await daemon.full_speed() else exits.EX_UNAVAILABLE
    _start_lines(daemon, config, dry_run=dry_run)
    return await serve(daemon, once=options.once)


def _nothing(config: Config) -> str:
    where = str(config.path) if config.path else "the built-in defaults (no configuration file)"
    return f"no [[zone]] and [[fan]] tables in {where}; see config.example.toml"


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


async def serve(daemon: FanDaemon, *, once: bool = False) -> int:
    """The loop, with SIGTERM/SIGINT (stop), SIGHUP (reload) and the restore on every exit."""
    loop = asyncio.get_running_loop()
    stop, wake = asyncio.Event(), asyncio.Event()
    hup = [False]

    def on_stop(name: str) -> None:
        daemon.log.info(f"{name}: giving the fans back and stopping")
        stop.set()
        wake.set()

    def on_hup() -> None:
        hup[0] = True
        wake.set()

    handled = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    for sig in handled[:2]:
        loop.add_signal_handler(sig, on_stop, sig.name)
    loop.add_signal_handler(signal.SIGHUP, on_hup)
    code = exits.OK
    try:
        while not stop.is_set():
            await daemon.step()
            if once:
                break
            wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), daemon.period)
            if not stop.is_set():
                await daemon.check_config(forced=hup[0])
                hup[0] = False
    except Exception as exc:
        daemon.log.error(f"fand: internal error: {type(exc).__name__}: {exc}; giving fans back")
        code = exits.EX_SOFTWARE
    finally:
        restored = await daemon.restore_all()
        for sig in handled:
            loop.remove_signal_handler(sig)
    if not restored and code == exits.OK:
        code = exits.EX_UNAVAILABLE
    daemon.log.info(f"fand: stopped (exit {code})")
    return code
