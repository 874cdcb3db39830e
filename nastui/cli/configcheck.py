"""`nastui config check [FILE]`: validate a configuration and say what it configures."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.config import Config, ConfigError, find_config_path, load_config
from nastui.model import DriveClass


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


def config_check(path: Path | None, env: Mapping[str, str], out: TextIO) -> int:
    """Check `path` (or the file nastui would use); exit 0 when valid, 78 with one line if not."""
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
        print(f"nastui: {exc}", file=sys.stderr)
        return exits.EX_CONFIG
    out.write(f"{path}: OK\n")
    for line in describe(config):
        out.write(f"  {line}\n")
    return exits.OK
