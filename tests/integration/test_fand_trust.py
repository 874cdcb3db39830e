"""`nastui fand` as a real process is slow to trust a sensor again: a drive reading that jumps
60 -> 5 C and sticks there stays lost (full speed), one that alternates valid and garbage,
empty or `nan` keeps the fans at full speed, and a lost reading that comes back steady is
believed only after `trust_after` (5) plausible readings in a row.

Before (issue 20): the jump was believed one period later (20 % for 7 s); the flapping sensor
swung the fans 44 <-> 100 %, 6.3 of 11.9 s below full.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.fandbox import (
    CONFIG,
    ORIGINAL,
    Sampler,
    State,
    fand_argv,
    in_control,
    make_box,
    rewriting,
    running,
    wait_for,
)

pytestmark = pytest.mark.integration

PERIOD = 0.5
FULL = ("1", "255")
AVERAGE = CONFIG.replace("# follows the hottest drive", '\nsource = "average-drives"')


def below_full(state: State) -> bool:
    return state != FULL


def test_a_jump_to_a_stuck_cold_value_is_not_believed(tmp_path: Path) -> None:
    box = make_box(tmp_path, AVERAGE, temps_c=(60, 60))
    with running(box, fand_argv(box, "--period", str(PERIOD))) as daemon:
        wait_for(lambda: box.state() == FULL)  # 60 C: 100 %
        with Sampler(box) as sampler:
            box.temps[1].write_text("5000\n")  # 60 -> 5 C, and it stays there
            wait_for(lambda: "implausible temperature jump 60 -> 5 C" in box.text())
            time.sleep(10 * PERIOD)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=10) == 0
    assert sampler.seconds(below_full) == 0.0, sampler.seconds(below_full)
    assert "zone drives: FAIL-SAFE 100 %: sdb: implausible temperature jump 60 -> 5 C in " in (
        box.text()
    )
    assert box.state() == ORIGINAL


@pytest.mark.parametrize("bad", ["garbage", "", "nan", "-1"], ids=["garbage", "empty", "nan", "-1"])
def test_a_flapping_sensor_keeps_the_fans_at_full_speed(tmp_path: Path, bad: str) -> None:
    box = make_box(tmp_path)
    values = ["38000", bad]
    with running(box, fand_argv(box, "--period", str(PERIOD))) as daemon:
        wait_for(lambda: in_control(box))

        def flap(i: int) -> None:
            box.temps[1].write_text(f"{values[i % 2]}\n")

        with rewriting(flap, every=PERIOD) as flips:
            wait_for(lambda: box.state() == FULL)  # the first bad reading: 100 %
            with Sampler(box) as sampler:
                wait_for(lambda: len(flips) >= 14)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=10) == 0
    assert sampler.span >= 4 * PERIOD
    assert sampler.seconds(below_full) == 0.0, f"{sampler.seconds(below_full):.1f} s below full"
    assert "zone drives: 44 %" not in box.text().split("FAIL-SAFE", 1)[1]


def test_a_lost_sensor_is_believed_again_after_five_steady_readings(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    with running(box, fand_argv(box, "--period", str(PERIOD))) as daemon:
        wait_for(lambda: in_control(box))
        reading = box.temps[1].read_text()
        box.temps[1].unlink()  # sdb's reading is gone
        wait_for(lambda: box.state() == FULL)
        box.temps[1].write_text(reading)  # and back, steady
        took = wait_for(lambda: in_control(box))
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=10) == 0
    assert took >= 4 * PERIOD, f"believed again after {took:.2f} s"
    assert "zone drives: sdb believed again after 5 plausible readings in a row" in box.text()
