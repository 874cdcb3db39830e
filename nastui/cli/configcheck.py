"""`nastui config check [FILE]`: validate a configuration and say what it configures."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.config import Config, ConfigError, find_config_path, load_config
from nastui.model import DriveClass
from nastui.session import Source, open_session
from nastui.sim import UnknownScenario


def _overrides(count: int) -> str:
    return f"; {count} temperature override(s) by model or bay" if count else ""


def describe(config: Config) -> list[str]:
    """What a valid configuration sets up, a line per section."""
    chassis = config.chassis
    layout = chassis.layout
    lines = [
        f"chassis   {layout.name} ({layout.bay_count} bays, {len(chassis.bindings)} bound to "
        f"drives, {len(chassis.empty)} empty on purpose)"
        + ("" if chassis.configured else " [default: no [chassis] table]"),
    ]
    temps = config.thresholds.temps
    lines.append(
        "limits    "
        + ", ".join(
            f"{cls.value.upper()} {temps[cls].warning:.0f}/{temps[cls].critical:.0f} °C"
            for cls in DriveClass
        )
        + f"; scrub every {config.thresholds.scrub_max_age_days:.0f} days"
        + _overrides(len(config.thresholds.temp_overrides))
    )
    lines.append(
        f"fans      {len(config.fans)} fan(s) in {len(config.zones)} zone(s)"
        if config.fans
        else "fans      none configured (fan control off)"
    )
    email = config.alerts.email
    lines.append(
        f"alerts    email to {', '.join(email.to)} via {email.host}:{email.port}"
        if email
        else "alerts    no email configured"
    )
    if config.alerts.apprise:
        names = ", ".join(t.name for t in config.alerts.apprise)
        lines.append(f"apprise   {len(config.alerts.apprise)} target(s): {names}")
    lines.append(f"hosts     {len(config.hosts)} remote host(s) for the fleet view")
    switches = config.collectors
    ignored = len(config.thresholds.ignore)
    lines.append(
        f"collect   zfs {switches.zfs.value}, md {switches.md.value}, btrfs {switches.btrfs.value}"
        f"; {ignored} ignore rule(s)"
    )
    cap = config.thresholds.pools
    overrides = f", {len(cap.per_pool)} pool(s) with their own" if cap.per_pool else ""
    lines.append(
        f"capacity  warn at {cap.capacity.warning:g}%, critical at {cap.capacity.critical:g}%"
        + overrides
    )
    if config.ups:
        lines.append(f"ups       {len(config.ups)} UPS(es) read over NUT")
    return lines


def config_check(
    path: Path | None, env: Mapping[str, str], out: TextIO, source: Source | None = None
) -> int:
    """Check `path` (or the file nastui would use); exit 0 when valid, 78 with one line per
    problem found if not.
    With `source` (the box the command runs on, or the demo's), also what `status` would say
    of its bay bindings there: exit 1 when some match no drive (each a CRITICAL there)."""
    if path is None:
        path = find_config_path(env)
        if path is None:
            out.write(
                "no configuration file found ($NASTUI_CONFIG, /etc/nastui/config.toml, "
                "~/.config/nastui/config.toml): built-in defaults apply\n"
            )
            return exits.OK
    try:
        config = load_config(path)
    except ConfigError as exc:
        for problem in exc.every():  # all of them, in the file's order: fix them in one go
            print(f"nastui: {problem}", file=sys.stderr)
        return exits.EX_CONFIG
    host, unmatched = ("", []) if source is None else unmatched_bindings(source, path, env)
    if unmatched:
        out.write(
            f"{path}: valid, but {len(unmatched)} bay binding(s) match no drive on {host}: "
            f"{', '.join(unmatched)}; `nastui status` reports each as CRITICAL (configured drive "
            "not found): comment them out or fix them\n"
        )
    else:
        out.write(f"{path}: OK\n")
    for line in describe(config):
        out.write(f"  {line}\n")
    return exits.WARNING if unmatched else exits.OK


def unmatched_bindings(source: Source, path: Path, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """(the host, the bindings of `path` that match no drive on the box `source` reads, e.g.
    "bay 1 (serial PK1334PBHDJ2SR)"), read by one poll as `nastui status` would."""
    here = dataclasses.replace(source, config=path, history=False, fleet=False)
    try:
        session = open_session(here, env)
    except (ConfigError, UnknownScenario):
        return "", []
    snapshot = session.poll_now()
    missing = [
        f"bay {slot.bay} ({slot.wanted or 'unknown'})"
        for slot in snapshot.slots
        if slot.expected and slot.drive is None
    ]
    return snapshot.host, missing
