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
from pathlib import Path
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
    read: Callable[[], T],
    *,
    quiet: float = 0.3,
    ready: Callable[[], bool] | None = None,
    timeout: float = DEADLINE_S,
    step: float = 0.05,
) -> T:
    """`read()` once it has stayed the same for `quiet` seconds and `ready()` holds (a screen
    done drawing, its program asleep); the test fails if that never happens within `timeout`."""
    last = read()
    since = time.monotonic()
    deadline = since + timeout
    while True:
        now = time.monotonic()
        if now - since >= quiet and (ready is None or ready()):
            return last
        if now > deadline:
            pytest.fail(f"not settled after {timeout:g} s:\n{last}")
        time.sleep(step)
        again = read()
        if again != last:
            last, since = again, time.monotonic()


def tree_asleep(pid: int) -> bool:
    """Every thread of `pid` and of its descendants is asleep (waiting for input, a timer or a
    child), none running or waiting for a CPU: the program has done what it was given. A
    process that is gone runs nothing."""
    if not Path(f"/proc/{pid}").exists():
        return True
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        for task in tasks:
            state = (task / "stat").read_text().rpartition(")")[2].split()[0]
            if state not in ("S", "I"):
                return False
        children = [int(c) for t in tasks for c in (t / "children").read_text().split()]
    except (FileNotFoundError, ProcessLookupError):  # it changed meanwhile: ask again
        return False
    return all(tree_asleep(child) for child in children)
