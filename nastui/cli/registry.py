"""Every `nastui` subcommand, in the order `nastui --help` lists them.

The table names each command's module without importing it: a run imports only the module of
the command it runs (`nastui snmp-agent`, started by snmpd, must not import the benchmark or
notifier code). To add a command, write a module satisfying `nastui.cli.command.Command` and list
it here with its name and one-line help: this table is the one place they are written.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple, cast

if TYPE_CHECKING:
    from nastui.cli.command import Command


class Entry(NamedTuple):
    """One subcommand: its name, its one-line help and the module under `nastui.cli`."""

    name: str
    help: str
    module: str


COMMANDS: tuple[Entry, ...] = (
    Entry("bays", "the chassis as a table of bays", "cmd_bays"),
    Entry("status", "one-screen summary; exit 0 OK, 1 WARN, 2 CRIT, 3 UNKN", "cmd_status"),
    Entry(
        "drives",
        "every drive: bay, identity, power, temperature, health with reasons",
        "cmd_drives",
    ),
    Entry("smart", "explain a saved smartctl report; acknowledge a drive's findings", "cmd_smart"),
    Entry(
        "locate",
        "light the locate LED of a drive's bay (SES, ledctl, sg_ses, activity blink)",
        "cmd_locate",
    ),
    Entry("pools", "pools with state, scan progress, last scrub and vdev tree", "cmd_pools"),
    Entry("scrub", "start, pause or stop a pool's scrub (md: check)", "cmd_scrub"),
    Entry(
        "selftest",
        "SMART self-tests: start one, their progress and results, the daemon's schedule",
        "cmd_selftest",
    ),
    Entry(
        "swap",
        "replace a drive: plan, prepare, watch the pull and insert, replace, follow, log",
        "cmd_swap",
    ),
    Entry("config", "configuration tools", "cmd_config"),
    Entry(
        "capture",
        "a support bundle of this box (.tar.gz, secrets removed) that --root replays",
        "cmd_capture",
    ),
    Entry(
        "fans",
        "each fan now: RPM, duty, zone and its temperature, who sets its speed (read only)",
        "cmd_fans",
    ),
    Entry(
        "fand",
        "fan control daemon: zone curves or PID, full speed when blind; restores fans on exit",
        "cmd_fand",
    ),
    Entry(
        "bench",
        "disk benchmarks (fio, dd, write-sync-close, fill) with live progress and saved runs",
        "cmd_bench",
    ),
    Entry(
        "daemon",
        "monitoring daemon: collect on schedule, send alerts, keep history, feed snmp-agent",
        "cmd_daemon",
    ),
    Entry(
        "alert",
        "test the notifiers; list, acknowledge and un-acknowledge alerts; the alert log",
        "cmd_alert",
    ),
    Entry(
        "export", "write metrics for Prometheus (node_exporter's textfile collector)", "cmd_export"
    ),
    Entry(
        "snmp-agent",
        "net-snmp pass_persist handler serving the daemon's latest snapshot (NASTUI-MIB)",
        "cmd_snmp_agent",
    ),
    Entry("completion", "print a bash, zsh or fish completion script", "cmd_completion"),
    Entry(
        "manpage", "print the nastui(1) man page (roff), generated from the options", "cmd_manpage"
    ),
)


def command(name: str) -> Command:
    """The command called `name`, its module imported now (argparse has checked it exists)."""
    for entry in COMMANDS:
        if name == entry.name:
            return cast("Command", importlib.import_module(f"nastui.cli.{entry.module}"))
    raise KeyError(name)
