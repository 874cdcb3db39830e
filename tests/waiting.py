"""Waiting for a condition, never for a fixed time.

A test that sleeps 3 s and then looks fails on a machine busy enough that the program needed
4 s, and wastes 2.9 s on one that needed 0.1. `wait_for` polls a condition until it holds, up to
a generous deadline (`DEADLINE_S`: a loaded 2-core machine starts an interpreter in seconds,
not milliseconds), and returns as soon as it holds. The deadline is a bound, not a measure:
figures go to tests/perf/.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

DEADLINE_S = 60.0
T = TypeVar("T")


def wait_for(
    condition: Callable[[], T],
    *,
    timeout: float = DEADLINE_S,
    step: float = 0.05,
    what: str = "the condition",
    shown: Callable[[], object] | None = None,
) -> T:
    """The first truthy value of `condition()`, asked every `step` seconds; the test fails
    after `timeout` naming `what` (and `shown()`: what was there instead)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            seen = f":\n{shown()}" if shown is not None else ""
            pytest.fail(f"{what} did not hold within {timeout:g} s{seen}")
        time.sleep(step)


def settled(
    read: Callable[[], T], *, quiet: float = 0.3, timeout: float = DEADLINE_S, step: float = 0.05
) -> T:
    """`read()` once it has stayed the same for `quiet` seconds (a screen done drawing); the
    test fails if it never does within `timeout`."""
    last = read()
    since = time.monotonic()
    deadline = since + timeout
    while time.monotonic() - since < quiet:
        if time.monotonic() > deadline:
            pytest.fail(f"still changing after {timeout:g} s:\n{last}")
        time.sleep(step)
        now = read()
        if now != last:
            last, since = now, time.monotonic()
    return last
