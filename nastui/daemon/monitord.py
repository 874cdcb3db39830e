"""`nastui daemon`: the monitoring daemon's life: start, loop, signals, the way out.

- Start: open the session (`--demo`, `--root`, `--config` mean what they mean everywhere), the
  history file and the notifiers; say in one line what it watches and where alerts go (and
  loudly when they go nowhere: "You probably forgot to configure email alerting").
- Loop: a `Monitor.step` every period (default: the pools interval, 10 s; each collector keeps
  its own schedule inside, so SMART is still read every few minutes and temperatures every
  30 s).
- Way out: SIGTERM or SIGINT (exit 0), `--once` after one cycle, `--cycles N` after N.
- What never stops it: storage (a full disk, a damaged, empty or unusable history file, a bad
  alert book: see `nastui.daemon.keeper`), and a cycle that fails for a reason nobody
  foresaw (an unexpected line in /proc, a bug): that is logged in one line, sent once as a
  CRITICAL `daemon:cycle` alert through the notifiers, and the next cycle tries again.
  Exiting would not help: under `Restart=on-failure` a restart repeats the same failure, and
  meanwhile nothing is watched.
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
from nastui.collectors.latest import LATEST_FILE
from nastui.config import Config
from nastui.control.statefile import StateError
from nastui.daemon.keeper import Keeper
from nastui.daemon.metrics_http import ListenAddress, MetricsServer, MetricsUnavailable
from nastui.daemon.monitor import Monitor
from nastui.daemonlog import Log
from nastui.history.db import HISTORY_FILE
from nastui.notify import notifiers_from
from nastui.session import Source, open_or_exit


@dataclass(frozen=True, slots=True)
class DaemonOptions:
    """The command's own options.

    Attributes:
        once: one cycle, then exit.
        cycles: this many cycles, then exit.
        period: seconds between cycles (default: the configuration's `poll.pools`).
        notify: send notices (False: only log them).
        history: the history file (default: history.sqlite in the state directory).
        prometheus: also write a node_exporter textfile here every cycle.
        metrics_listen: serve `/metrics` here (`nastui.daemon.metrics_http`).
        keep_days: how long history is kept.
    """

    once: bool = False
    cycles: int | None = None
    period: float | None = None
    notify: bool = True
    history: Path | None = None
    prometheus: Path | None = None
    keep_days: float = 90.0
    metrics_listen: ListenAddress | None = None


def run_daemon(
    options: DaemonOptions, source: Source, env: Mapping[str, str], out: TextIO, err: TextIO
) -> int:
    """Run the daemon until told to stop; returns the exit code."""
    session = open_or_exit(source, env)
    try:  # the machine's (/var/lib/nastui as root), or the demo's own scratch: never both
        state = session.writable_state_dir()
    except StateError as exc:
        print(f"nastui: daemon: {exc}", file=err)
        return exits.EX_CANTCREAT
    log = Log(out, env)
    keeper = Keeper.open(options.history or state / HISTORY_FILE, log)  # never refuses
    metrics = None
    if options.metrics_listen is not None:
        metrics = MetricsServer(options.metrics_listen)
        try:
            metrics.start()
        except MetricsUnavailable as exc:
            print(f"nastui: daemon: {exc}", file=err)
            keeper.history.close()
            return exits.EX_UNAVAILABLE
    notifiers = notifiers_from(session.config.alerts, env) if options.notify else []
    monitor = Monitor(
        session,
        keeper,
        notifiers,
        log,
        latest_path=state / LATEST_FILE,
        fleet=session.fleet,
        keep_days=options.keep_days,
        prometheus=options.prometheus,
        metrics=metrics,
    )
    period = options.period or session.config.poll.pools_s
    _start_lines(monitor, session.config, period, notify=options.notify)
    cycles = 1 if options.once else options.cycles
    try:
        return asyncio.run(serve(monitor, period, cycles=cycles))
    finally:
        if metrics is not None:
            metrics.close()
        monitor.history.close()
        if session.fleet is not None:
            session.fleet.close()


def _start_lines(monitor: Monitor, config: Config, period: float, *, notify: bool) -> None:
    log = monitor.log
    source = str(config.path) if config.path else "built-in defaults"
    hosts, upses = len(config.hosts), len(config.ups)
    fleet = f", {hosts} fleet host{'' if hosts == 1 else 's'}" if hosts else ""
    fleet += f", {upses} NUT UPS{'' if upses == 1 else 'es'}" if upses else ""
    log.info(
        f"daemon: pid {os.getpid()}, every {period:g} s{fleet}, configuration {source}, "
        f"history {monitor.keeper.describe()}"
    )
    if not notify:
        log.info("alerts: --no-notify: logged, not sent")
    elif not monitor.notifiers:
        log.warning(
            "alerts: no notifier configured, alerts are only logged: add [alerts.email], "
            f"exec or webhook to {source} and check with `nastui alert test`"
        )
    for notifier in monitor.notifiers:
        log.info(f"alerts: {notifier.name}")
    if monitor.metrics is not None:
        log.info(f"metrics: serving {monitor.metrics.url} (the latest cycle, never a poll)")
        if not monitor.metrics.address.loopback:
            log.warning(
                f"metrics: {monitor.metrics.address} is reachable from the network and has no "
                "authentication: firewall the port, or listen on 127.0.0.1"
            )


async def serve(monitor: Monitor, period: float, *, cycles: int | None = None) -> int:
    """The loop, with SIGTERM/SIGINT to stop; `cycles`: stop after that many."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def on_stop(name: str) -> None:
        monitor.log.info(f"{name}: stopping")
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_stop, sig.name)
    done = 0
    try:
        while not stop.is_set():
            await monitor.cycle()
            done += 1
            if cycles is not None and done >= cycles:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), period)
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    monitor.log.info(f"daemon: stopped (exit {exits.OK})")
    return exits.OK
