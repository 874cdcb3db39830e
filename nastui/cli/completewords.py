"""The values a completion script asks for while a command line is typed: scenario names, and
the pools, bays and drives of the box the line is about.

The generated scripts (`nastui.cli.completion`) run `_NASTUI_COMPLETE=KIND nastui WORDS...`,
WORDS being what is typed so far; `entry.main` hands that here before any parsing, and the
words go to stdout, one a line. Which box: the demo's when WORDS say `--demo` or
`--scenario NAME` (one simulated poll), else this box as the daemon last saw it (its
latest.json), else what its configuration names (the chassis's bays, the bound drives'
serials). Nothing is ever collected from the hardware here: a TAB must not run smartctl.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.latest import LatestError, default_latest_path, read_latest
from nastui.config import Config, ConfigError, find_config_path, load_config
from nastui.core.layout import build_chassis
from nastui.model import HostSnapshot
from nastui.sim import SCENARIOS, UnknownScenario

ENV = "_NASTUI_COMPLETE"
KINDS = ("scenarios", "pools", "bays", "drives", "targets")


@dataclass(frozen=True, slots=True)
class Typed:
    """The global options found among the words typed so far (the rest is ignored)."""

    demo: bool = False
    scenario: str | None = None
    config: Path | None = None
    root: Path | None = None


def typed(words: Sequence[str]) -> Typed:
    """The global options in `words`, read leniently: a line being typed is seldom complete."""
    found: dict[str, str] = {}
    demo = False
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name == "--demo":
            demo = True
        elif name in ("--scenario", "--config", "--root"):
            given = value if eq else (words[i + 1] if i + 1 < len(words) else "")
            if given:
                found[name] = given
    scenario = found.get("--scenario")
    return Typed(
        demo=demo or scenario is not None,
        scenario=scenario,
        config=Path(found["--config"]) if "--config" in found else None,
        root=Path(found["--root"]) if "--root" in found else None,
    )


def words(kind: str, line: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The completions of `kind` (one of KINDS) for the command line `line`."""
    if kind == "scenarios":
        return sorted(SCENARIOS)
    if kind not in KINDS:
        return []
    options = typed(line)
    snapshot = _demo(options, env) if options.demo else _latest(env)
    if snapshot is not None:
        return _from_snapshot(kind, snapshot)
    config = _config(options, env)
    return _from_config(kind, config) if config is not None else []


def _demo(options: Typed, env: Mapping[str, str]) -> HostSnapshot | None:
    from nastui.session import Source, open_session

    source = Source(True, options.scenario, 0, None, options.config, history=False, fleet=False)
    try:
        session = open_session(source, {k: v for k, v in env.items() if k != ENV})
    except (ConfigError, UnknownScenario):
        return None
    return session.poll_now()


def _latest(env: Mapping[str, str]) -> HostSnapshot | None:
    try:
        return read_latest(default_latest_path(env, os.geteuid()))
    except LatestError:
        return None


def _config(options: Typed, env: Mapping[str, str]) -> Config | None:
    """The configuration nastui would use (built-in defaults without a file)."""
    try:
        return load_config(options.config or find_config_path(env))
    except ConfigError:
        return None


def _from_snapshot(kind: str, snapshot: HostSnapshot) -> list[str]:
    pools = [p.name for p in snapshot.pools]
    bays = [str(s.bay) for s in snapshot.slots]
    drives = [d.identity.serial for d in snapshot.drives if d.identity.serial]
    drives += [d.dev for d in snapshot.drives if d.dev]
    return {"pools": pools, "bays": bays, "drives": drives, "targets": bays + drives}[kind]


def _from_config(kind: str, config: Config) -> list[str]:
    bays = [str(b.number) for b in build_chassis(config.chassis.layout).bays]
    drives = [b.serial for b in config.chassis.bindings if b.serial]
    return {"pools": [], "bays": bays, "drives": drives, "targets": bays + drives}[kind]


def main(kind: str, argv: Sequence[str], env: Mapping[str, str]) -> int:
    """Print the words, one a line; never fails (a completion must not print an error)."""
    try:
        found = words(kind, argv, env)
    except Exception:  # a TAB never shows a traceback; it just offers nothing
        found = []
    print("\n".join(dict.fromkeys(found)))
    return 0
