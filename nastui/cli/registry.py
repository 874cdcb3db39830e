"""Every `nastui` subcommand, in the order `nastui --help` lists them.

To add a command, write a module satisfying `nastui.cli.command.Command` and list it here.
"""

from __future__ import annotations

from nastui.cli import (
    cmd_alert,
    cmd_bays,
    cmd_bench,
    cmd_config,
    cmd_daemon,
    cmd_drives,
    cmd_export,
    cmd_fand,
    cmd_locate,
    cmd_pools,
    cmd_scrub,
    cmd_smart,
    cmd_snmp_agent,
    cmd_status,
)
from nastui.cli.command import Command

COMMANDS: tuple[Command, ...] = (
    cmd_bays,
    cmd_status,
    cmd_drives,
    cmd_smart,
    cmd_locate,
    cmd_pools,
    cmd_scrub,
    cmd_config,
    cmd_fand,
    cmd_bench,
    cmd_daemon,
    cmd_alert,
    cmd_export,
    cmd_snmp_agent,
)


def command(name: str) -> Command:
    """The command called `name` (argparse has already checked it exists)."""
    for cmd in COMMANDS:
        if name == cmd.NAME:
            return cmd
    raise KeyError(name)
