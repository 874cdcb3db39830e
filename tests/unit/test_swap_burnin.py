"""The burn-in's commands and verdicts; `nastui swap burnin` on the demo."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from nastui import exits
from nastui.cli.args import parse_args
from nastui.cli.main import run_headless
from nastui.sim.swap import new_serial
from nastui.swap.logic.burnin import burnin_argv, parse_badblocks, parse_fio

BADBLOCKS_OK = """Checking for bad blocks in read-write mode
From block 0 to 4095
Testing with pattern 0xaa: done
Reading and comparing: done
Testing with pattern 0x00: done
Reading and comparing: done
Pass completed, 0 bad blocks found. (0/0/0 errors)
"""


def fio(error: int, written: int, read: int) -> str:
    job = {"jobname": "nastui-burnin", "error": error}
    job |= {"write": {"io_bytes": written}, "read": {"io_bytes": read}}
    return "note: a warning line first\n" + json.dumps({"fio version": "fio-3.33", "jobs": [job]})


def test_commands_are_allowlisted() -> None:
    assert burnin_argv("badblocks", "/dev/sdz") == (
        "badblocks", "-wv", "-b", "4096", "-f", "/dev/sdz",
    )  # fmt: skip
    assert "--verify=crc32c" in burnin_argv("fio", "/dev/sdz")
    with pytest.raises(ValueError, match="unknown burn-in tool"):
        burnin_argv("dd", "/dev/sdz")


def test_badblocks_verdicts() -> None:
    assert parse_badblocks(BADBLOCKS_OK, 0) == (
        True,
        "0 bad blocks (0/0/0 read/write/compare errors)",
    )
    bad = BADBLOCKS_OK.replace("0 bad blocks found. (0/0/0", "3 bad blocks found. (0/0/3")
    assert parse_badblocks("4093\n4094\n4095\n" + bad, 0)[0] is False
    cut = "Testing with pattern 0xaa: badblocks: Input/output error during test data write\n"
    assert parse_badblocks(cut, 1) == (
        False,
        "badblocks did not finish (exit 1): Testing with pattern 0xaa: badblocks: "
        "Input/output error during test data write",
    )


def test_fio_verdicts() -> None:
    mib = 1024 * 1024
    assert parse_fio(fio(0, mib, mib), 0) == (
        True,
        f"{mib} bytes written, {mib} read back and verified (crc32c)",
    )
    assert parse_fio(fio(84, mib, 4096), 1)[0] is False  # EILSEQ: a verify mismatch
    assert parse_fio(fio(0, 0, 0), 0)[0] is False
    assert parse_fio("fio: failed", 1) == (False, "fio gave no result (exit 1)")


def test_burnin_on_the_demo_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path))
    monkeypatch.delenv("NASTUI_CONFIG", raising=False)

    def nastui(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        return run_headless(parse_args(["--scenario", "failing-drive", *argv]), out), out.getvalue()

    assert nastui("swap", "burnin", "--confirm", "X")[0] == exits.EX_USAGE  # no swap
    nastui("swap", "start", "10")
    assert nastui("swap", "burnin", "--confirm", "X")[0] == exits.EX_USAGE  # no new drive yet
    nastui("swap", "sim", "pull", "10")
    nastui("swap", "sim", "insert", "10")
    serial = new_serial(10, "new", 0)
    assert nastui("swap", "burnin", "--confirm", "WRONG")[0] == exits.EX_USAGE
    code, text = nastui("swap", "burnin", "--fio", "--confirm", serial)
    assert code == exits.OK
    assert "--verify=crc32c" in text and "nothing found (simulated)" in text
    code, text = nastui("swap")
    assert "burn-in passed: nothing found (simulated)" in text
    swap = json.loads(nastui("swap", "status", "--json")[1])["swap"]
    assert swap["burnin"] == "passed: nothing found (simulated)"
    assert any("burn-in fio" in line for _, line in swap["events"])


def test_a_failed_burnin_blocks_the_replace_and_goes_with_the_drive() -> None:
    import dataclasses

    from nastui.swap.flow.steps import Trouble, not_ready
    from nastui.swap.logic.state import SwapPhase, advance
    from tests.unit.test_swap_state import start, without

    swap, snap = start()
    new = dataclasses.replace(swap.old, key="NEWKEY", serial="NEWSERIAL")
    swap = dataclasses.replace(swap, phase=SwapPhase.INSERTED, new=new)
    failed = dataclasses.replace(swap, burnin="!failed: 3 bad blocks (0/0/3 errors)")
    assert failed.blocked and not swap.blocked
    assert not_ready(failed, "NEWSERIAL") == (
        "the new drive cannot be used: failed: 3 bad blocks (0/0/3 errors)",
        Trouble.USAGE,
    )
    # the new drive taken out again: its burn-in goes with it
    gone = advance(failed, without(snap, swap.old.key))
    assert gone.new is None and gone.burnin is None


def test_the_log_line_says_how_the_burnin_went() -> None:
    from nastui.swap.view import record_line

    record = {"bay": 10, "pool": "tank", "phase": "done", "started_at": 0.0, "rebuild_s": 60.0}
    record |= {"old": {"model": "M", "serial": "OLD"}, "new": {"model": "M", "serial": "NEW"}}
    assert record_line(record).endswith("M OLD -> M NEW  rebuild 1m00s")
    record["burnin"] = "passed: 0 bad blocks (0/0/0 read/write/compare errors)"
    assert record_line(record).endswith("rebuild 1m00s  burn-in passed")
