"""Checking a configuration's text: TOML in, a frozen `Config` out (pure), for
`nastui.config.loader.parse_config`.

It parses with tomllib, checks every section (see the `validate_*` modules) and raises one
`ConfigError` for the problem nearest the top of the file, with its line (found by `tomlpos`, as
tomllib gives none). Imported only when there is a file to check: the built-in defaults (the
demo's) need none of it.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from nastui.config.keys import TOP_KEYS
from nastui.config.loader import MAX_DEPTH, ConfigError
from nastui.config.schema import Config
from nastui.config.tomlpos import KeyPath, index_lines
from nastui.config.validate_alerts import read_alerts
from nastui.config.validate_base import Context, Section
from nastui.config.validate_chassis import read_chassis
from nastui.config.validate_collectors import read_collectors, read_pools
from nastui.config.validate_fans import read_fans, read_zones
from nastui.config.validate_hosts import read_hosts
from nastui.config.validate_selftest import read_selftest
from nastui.config.validate_settings import read_hostname, read_poll, read_ui
from nastui.config.validate_thresholds import read_thresholds
from nastui.config.validate_ups import read_ups
from nastui.config.validate_values import dotted

# Sample: Expected '=' after a key in a key/value pair (at line 3, column 9)
_TOML_POSITION = re.compile(r"(?P<message>.*) \(at line (?P<line>\d+), column (?P<column>\d+)\)")
# Sample: Unclosed array (at end of document)
_TOML_AT_END = re.compile(r"(?P<message>.*) \(at end of document\)")
# Sample: stale_after = 1000000...  (digits past Python's 4300-digit conversion limit)
_LONG_NUMBER = re.compile(r"[0-9_]{4000,}")


def parse(text: str, path: Path) -> Config:
    """Check a configuration's text and build the `Config` (pure).

    Args:
        text: the TOML text.
        path: the file it came from (for messages, and relative `password_file` paths).

    Raises:
        ConfigError: for the problem nearest the top of the file, with the others it found.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _syntax_error(path, text, exc) from None
    except ValueError:  # an integer of more digits than Python converts (4300)
        raise _too_long(path, text) from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise _too_deep(path, None) from None
    if (deep := too_deep(data, MAX_DEPTH)) is not None:
        raise _too_deep(path, deep)
    ctx = Context(index_lines(text))
    root = Section(ctx, (), data)
    root.check_keys(TOP_KEYS)
    zones = read_zones(root)
    switches, ignore = read_collectors(root)
    limits = dataclasses.replace(read_thresholds(root), pools=read_pools(root), ignore=ignore)
    config = Config(
        path=path,
        hostname=read_hostname(root),
        chassis=read_chassis(root),
        thresholds=limits,
        collectors=switches,
        poll=read_poll(root),
        fans=read_fans(root, zones),
        zones=zones,
        alerts=read_alerts(root, path.parent),
        hosts=read_hosts(root, path.parent),
        ups=read_ups(root),
        ui=read_ui(root),
        selftest=read_selftest(root),
    )
    problems = [ConfigError(path, p.line, dotted(p.path), p.message) for p in ctx.ordered()]
    if problems:
        first = problems[0]
        raise ConfigError(path, first.line, first.key, first.message, tuple(problems[1:]))
    return config


def too_deep(data: Mapping[str, object], limit: int) -> KeyPath | None:
    """The first key path nested deeper than `limit` tables and arrays; None if none is.

    Iterative, so that no nesting can exhaust the stack here.
    """
    stack: list[tuple[KeyPath, object]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict | list) and len(path) > limit:
            return path
        if isinstance(value, dict):
            stack.extend(((*path, str(k)), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))
    return None


def _too_deep(path: Path, where: KeyPath | None) -> ConfigError:
    key = dotted(where[:2]) if where else ""
    at = f" (under {key})" if key else ""
    message = (
        f"tables and arrays are nested more than {MAX_DEPTH} deep{at}; "
        "a configuration never needs that: check for a runaway [ or {"
    )
    return ConfigError(path, None, key, message)


def _too_long(path: Path, text: str) -> ConfigError:
    """A number of thousands of digits, at its line."""
    match = _LONG_NUMBER.search(text)
    line = text.count("\n", 0, match.start()) + 1 if match else None
    return ConfigError(path, line, "", "a number of thousands of digits: no setting takes one")


def _syntax_error(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> ConfigError:
    """tomllib's message with its position turned into our line (and the column kept)."""
    reason = str(exc)
    line: int | None = None
    if match := _TOML_POSITION.fullmatch(reason):
        reason = f"{match['message']} (column {match['column']})"
        line = int(match["line"])
    elif match := _TOML_AT_END.fullmatch(reason):
        reason = f"{match['message']} (at the end of the file)"
        line = text.count("\n") + (0 if text.endswith("\n") else 1)
    return ConfigError(path, line, "", f"TOML syntax error: {reason[:1].lower()}{reason[1:]}")
