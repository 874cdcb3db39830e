"""`nastui daemon` killed with SIGKILL while it sends, then restarted: nothing lost, and at most
the one delivery in flight repeated.

The daemon runs the simulator's failing-drive box (several hosts: one batch per host and cycle,
delivered one after another) with an exec hook that logs every notice it is given
(`tests.daemonrig`). Before: the book was written only after every batch of the cycle was
sent, so a kill after the first batches sent them all again after the restart (29 of 30
random kills repeated something; a kill as the second delivery returned repeated two).
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.daemonrig import DaemonRig, Told, stop

pytestmark = pytest.mark.integration

SCENARIO = "failing-drive"
SEED = int(os.environ.get("NASTUI_KILL_SEED", "20"))
KILLS = int(os.environ.get("NASTUI_KILLS", "12"))


def repeated(told: Iterable[Told]) -> set[int]:
    """The deliveries (hook runs) that told a firing alert already told before."""
    seen: set[tuple[str, str, str]] = set()
    again: set[int] = set()
    for row in sorted(told, key=lambda t: t.wall):
        ident = (row.host, row.kind, row.key)
        if row.kind == "firing" and ident in seen:
            again.add(row.batch)
        seen.add(ident)
    return again


def firing(told: Iterable[Told]) -> set[tuple[str, str]]:
    return {(t.host, t.key) for t in told if t.kind == "firing"}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, str]]:
    """What a daemon that is never killed tells in three cycles."""
    rig = DaemonRig(tmp_path_factory.mktemp("reference"), scenario=SCENARIO)
    done = rig.run("--cycles", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    told = rig.told()
    assert len({t.batch for t in told}) > 2  # several hosts: several deliveries a cycle
    return firing(told)


def test_a_kill_as_a_delivery_returns_repeats_only_that_one(
    tmp_path: Path, reference: set[tuple[str, str]]
) -> None:
    rig = DaemonRig(tmp_path, scenario=SCENARIO)
    rig.switch.write_text("kill 2")  # the second delivery's hook kills the daemon as it ends
    proc = rig.start("--cycles", "3")
    assert proc.wait(timeout=120) == -signal.SIGKILL, rig.output()
    before = rig.told()
    assert len({t.batch for t in before}) == 2
    again = rig.run("--cycles", "3")
    assert again.returncode == 0, again.stdout + again.stderr
    told = rig.told()
    assert len(repeated(told)) <= 1, told
    assert firing(told) == reference  # nothing lost


def test_random_kills_lose_nothing_and_repeat_at_most_the_delivery_in_flight(
    tmp_path: Path, reference: set[tuple[str, str]]
) -> None:
    rng = random.Random(SEED)
    repeats = []
    for n in range(KILLS):
        rig = DaemonRig(tmp_path / str(n), hook_delay=0.05, scenario=SCENARIO)
        proc = rig.start("--cycles", "6")
        time.sleep(rng.uniform(0.4, 3.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        again = rig.run("--cycles", "3")
        assert again.returncode == 0, again.stdout + again.stderr
        told = rig.told()
        repeats.append(len(repeated(told)))
        seed = f"seed {SEED}, kill {n}"
        assert len(repeated(told)) <= 1, (seed, told)
        assert firing(told) == reference, seed  # nothing lost
    assert sum(repeats) <= KILLS


def test_stop_is_clean(tmp_path: Path) -> None:
    rig = DaemonRig(tmp_path, scenario=SCENARIO)
    proc = rig.start()
    assert rig.wait_for(lambda: bool(rig.told()), 60), rig.output()
    assert stop(proc) == 0
