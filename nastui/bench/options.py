"""The settings a front end lets you step through (pure): each option, its choices, and the
next or previous value, so the TUI's options form is a list of keys and no free typing.

Sizes and times come from short lists of sensible values; a choice that does not fit the profile
(a whole-device size for a directory) is still offered, and the guard or the profile says why it
cannot run. `BOUNDS` are the values every numeric setting may take, from any front end
(`check_bounds`: the command line checks each option as it is read, `plan` every settings).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nastui.bench.profiles import DEFAULT_FILE, PROFILES
from nastui.bench.sizes import size_label
from nastui.model import BenchSettings

G = 1 << 30


@dataclass(frozen=True, slots=True)
class Option:
    """One setting: its field, label, choices and how a value reads."""

    field: str
    label: str
    choices: tuple[Any, ...]
    text: Callable[[Any], str]
    profiles: frozenset[str] | None = None  # None: every profile


def _on_off(value: Any) -> str:
    return "on" if value else "off"


def _size(value: Any) -> str:
    return "whole device" if value is None else size_label(int(value))


def _secs(value: Any) -> str:
    return "until done" if value is None else f"{value:g} s"


def _ints(value: Any) -> str:
    return ",".join(str(v) for v in value)


def _sizes(value: Any) -> str:
    return ",".join(size_label(v) for v in value)


K, M = 1 << 10, 1 << 20
FIO_TIMED = frozenset({"cdm", "sweep", "randrw"})
JOB_SETS_ITS_OWN = frozenset(PROFILES) - {"custom"}  # a custom job's file sets these itself
OPTIONS: tuple[Option, ...] = (
    Option("profile", "profile", tuple(PROFILES), str),
    Option(
        "size_bytes",
        "test size",
        (None, 64 * M, 256 * M, G, 4 * G, 16 * G, 64 * G),
        _size,
        frozenset({"cdm", "sweep", "randrw", "wsc", "dd"}),
    ),
    Option("runtime_s", "time per job", (None, 5.0, 10.0, 30.0, 60.0, 300.0), _secs, FIO_TIMED),
    Option("ramp_s", "ramp time", (0.0, 2.0, 5.0, 10.0), _secs, FIO_TIMED),
    Option("direct", "direct I/O", (True, False), _on_off, JOB_SETS_ITS_OWN),
    Option("refill", "incompressible data", (True, False), _on_off, JOB_SETS_ITS_OWN),
    Option("cache_matrix", "write cache on and off", (False, True), _on_off),
    Option(
        "iodepths",
        "queue depths",
        ((1, 2, 4, 8, 16, 32), (1, 2, 4, 8, 16, 32, 64, 128), (1, 4, 16)),
        _ints,
        frozenset({"sweep"}),
    ),
    Option("numjobs", "numjobs", ((1,), (1, 2, 4), (1, 2, 4, 8)), _ints, frozenset({"sweep"})),
    Option("rw", "pattern", ("randread", "randwrite", "randrw"), str, frozenset({"sweep"})),
    Option("file_bytes", "file size", (G, 4 * G, 16 * G, 70 * G), _size, frozenset({"fill"})),
    Option(
        "record_sizes",
        "record sizes",
        ((4 * K, 64 * K, M, 16 * M), (4 * K, 16 * K, 64 * K, 256 * K, M, 4 * M, 16 * M)),
        _sizes,
        frozenset({"wsc"}),
    ),
)


# Settings the command line takes that the form does not offer, and the profiles they matter for.
_NOT_IN_THE_FORM: dict[str, frozenset[str]] = {
    "bs_bytes": frozenset({"sweep", "randrw"}),
    "job_text": frozenset({"custom"}),
}


def profiles_taking(field: str) -> frozenset[str] | None:
    """The profiles a setting matters for (None: every one): the allowlist a front end checks
    an option against, so one a profile ignores is refused rather than dropped."""
    if field in _NOT_IN_THE_FORM:
        return _NOT_IN_THE_FORM[field]
    return next((o.profiles for o in OPTIONS if o.field == field), None)


def options_for(profile: str) -> tuple[Option, ...]:
    """The options that matter for `profile`."""
    return tuple(o for o in OPTIONS if o.profiles is None or profile in o.profiles)


def value_of(settings: BenchSettings, option: Option) -> Any:
    """The option's current value."""
    return getattr(settings, option.field)


def value_text(option: Option, value: Any, *, device: bool) -> str:
    """How `value` reads on a target that is a whole device or not: a test size left unset is
    the whole device on a device, the default test file in a directory ("1G (default)"), as
    the bench screen's settings line says."""
    if option.field == "size_bytes" and value is None and not device:
        return f"{size_label(DEFAULT_FILE)} (default)"
    return option.text(value)


def stepped(settings: BenchSettings, option: Option, step: int) -> BenchSettings:
    """`settings` with `option` moved `step` choices along (wrapping); a new profile brings its
    own defaults (a custom job's text is kept)."""
    current = value_of(settings, option)
    choices = option.choices
    index = choices.index(current) if current in choices else -1
    value = choices[(index + step) % len(choices)]
    if option.field == "profile":
        return dataclasses.replace(PROFILES[value].defaults, job_text=settings.job_text)
    return dataclasses.replace(settings, **{option.field: value})
