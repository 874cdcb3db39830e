"""`nastui swap start` killed with SIGKILL at every step of its preparation, then `nastui swap`
and `nastui swap abort`: the swap is on disk saying which write may have run, a second start
is refused naming the abort, and the abort puts the member back, skipping with a line what
never ran.

The box is the fake /sys, /proc and /dev tree of `tests.cli.test_swap_root` (an md RAID1 on
partitions, bay 0's sda1 prepared pull first), with a fake `mdadm` on PATH that keeps the array
in the tree's /proc/mdstat as the real one would (`--fail` marks the member faulty, `--remove`
takes a faulty one out, `--add` puts a missing one back, each refusing what the real one
refuses) and SIGKILLs its parent, the nastui process, at its Nth call: before doing anything
("before") or once it has done it ("after"); and a fake `ledctl` that can kill it as the LED is
lit, once every write answered. Before the write-ahead, a kill anywhere in the
preparation left the member failed with no swap.json: every case here failed.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nastui import exits
from nastui.cli.args import parse_args
from nastui.cli.main import run_headless
from nastui.core.statefiles import SWAP_FILE
from nastui.swap.logic.codec import LOG_FILE, decode_swap
from nastui.swap.logic.state import SwapPhase
from tests.cli.test_swap_root import MDSTAT, by_id, disk
from tests.fakepools import install, md_tree
from tests.fakesys import build

pytestmark = pytest.mark.integration

OLD = f"{by_id(0)}-part1"
FAIL = f"mdadm /dev/md0 --fail {OLD}"
REMOVE = f"mdadm /dev/md0 --remove {OLD}"
ADD = f"mdadm /dev/md0 --add {OLD}"

_MDADM = """#!{python}
import json, os, signal, sys
from pathlib import Path
here = Path(__file__).resolve().parent
rig = json.loads((here / "rig.json").read_text())
mdstat = Path(rig["mdstat"])
state = json.loads((here / "md0.json").read_text())  # {{"sda1": "in" | "faulty" | "out"}}
array, action, member = sys.argv[1:4]
with open(here / "calls.log", "a") as log:
    log.write("mdadm " + " ".join(sys.argv[1:]) + "\\n")
count = len((here / "calls.log").read_text().splitlines())
kill = count == rig["kill_at"]
if kill and rig["when"] == "before":
    os.kill(os.getppid(), signal.SIGKILL)
    sys.exit(0)
name = rig["names"].get(member, member)
now = state.get(name, "out")
want = {{"--fail": ("in", "faulty"), "--remove": ("faulty", "out"), "--add": ("out", "in")}}
before, after = want[action]
if now != before:
    why = "Device or resource busy" if now != "out" else "No such device"
    sys.stderr.write(f"mdadm: {{action[2:]}} failed for {{member}}: {{why}}\\n")
    sys.exit(1)
state[name] = after
(here / "md0.json").write_text(json.dumps(state))
shown = {{"in": ["sda1[0]"], "faulty": ["sda1[0](F)"], "out": []}}[after]
text = rig["template"].replace("sdb1[1] sda1[0]", " ".join(["sdb1[1]", *shown]))
if after != "in":
    text = text.replace("[2/2] [UU]", "[2/1] [_U]")
tmp = mdstat.with_suffix(".tmp")
tmp.write_text(text)
os.replace(tmp, mdstat)
if kill:
    os.kill(os.getppid(), signal.SIGKILL)
"""

_LEDCTL = """#!{python}
import json, os, signal, sys
from pathlib import Path
here = Path(__file__).resolve().parent
with open(here / "led.log", "a") as log:
    log.write("ledctl " + " ".join(sys.argv[1:]) + "\\n")
if json.loads((here / "rig.json").read_text()).get("kill_led"):
    os.kill(os.getppid(), signal.SIGKILL)
"""


class Rig:
    """The fake box, its state directory and the fake mdadm."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tools = install(tmp_path, monkeypatch)
        self.state = tmp_path / "state"
        monkeypatch.setenv("NASTUI_STATE_DIR", str(self.state))
        self.root = build(tmp_path / "root", [disk("sda", 0), disk("sdb", 1)])
        md_tree(self.root, MDSTAT)
        self.config = tmp_path / "config.toml"
        bays = "".join(
            f'[[chassis.bay]]\nbay = {n}\nserial = "WD-WCC7K{n}000"\n\n' for n in range(2)
        )
        self.config.write_text(f'[chassis]\npreset = "rv-4324"\n\n{bays}')
        self.bin = self.tools.bin_dir
        (self.bin / "md0.json").write_text(json.dumps({"sda1": "in"}))
        for name, text in (("mdadm", _MDADM), ("ledctl", _LEDCTL)):
            script = self.bin / name
            script.write_text(text.format(python=sys.executable))
            script.chmod(0o755)

    def arm(self, kill_at: int, when: str, *, kill_led: bool = False) -> None:
        """Kill the parent at the `kill_at`th mdadm call from now (0: never), or (`kill_led`)
        as it lights the LED."""
        rig = {
            "mdstat": str(self.root / "proc/mdstat"),
            "template": MDSTAT,
            "names": {OLD: "sda1"},
            "kill_at": len(self.calls) + kill_at if kill_at else 0,
            "when": when,
            "kill_led": kill_led,
        }
        (self.bin / "rig.json").write_text(json.dumps(rig))

    @property
    def calls(self) -> list[str]:
        log = self.bin / "calls.log"
        return log.read_text().splitlines() if log.exists() else []

    @property
    def leds(self) -> list[str]:
        log = self.bin / "led.log"
        return log.read_text().splitlines() if log.exists() else []

    @property
    def member(self) -> str:
        return str(json.loads((self.bin / "md0.json").read_text())["sda1"])

    def process(self, *action: str) -> subprocess.CompletedProcess[str]:
        """`python -m nastui swap ACTION...`, a real process."""
        argv = ["--root", str(self.root), "--config", str(self.config)]
        return subprocess.run(
            [sys.executable, "-m", "nastui", *argv, "swap", *action],
            capture_output=True,
            text=True,
            timeout=120,
            env=os.environ.copy(),
            check=False,
        )

    def nastui(self, *argv: str) -> tuple[int, str]:
        out = io.StringIO()
        args = parse_args(["--root", str(self.root), "--config", str(self.config), *argv])
        return run_headless(args, out), out.getvalue()


@pytest.fixture
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Rig:
    return Rig(tmp_path, monkeypatch)


# (call killed at, before or after it did its work) -> (member after the kill, undo calls)
CASES = {
    (1, "before"): ("in", []),
    (1, "after"): ("faulty", [REMOVE, ADD]),
    (2, "before"): ("faulty", [REMOVE, ADD]),
    (2, "after"): ("out", [ADD]),
}


@pytest.mark.parametrize(("kill_at", "when"), sorted(CASES))
def test_a_start_killed_at_each_write_is_kept_and_undone_by_abort(
    rig: Rig, kill_at: int, when: str, capsys: pytest.CaptureFixture[str]
) -> None:
    member, undo = CASES[(kill_at, when)]
    rig.arm(kill_at, when)
    done = rig.process("start", "0", "--pull-first")
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr
    assert rig.calls == [FAIL, REMOVE][:kill_at]
    assert rig.member == member
    # the record on disk: preparing, the killed write begun and not answered
    swap = decode_swap((rig.state / SWAP_FILE).read_text())
    assert swap is not None and swap.phase is SwapPhase.PREPARING
    assert (swap.prep_started, swap.prep_done) == (kill_at, kill_at - 1)
    # `nastui swap` says so, naming each write
    code, text = rig.nastui("swap")
    assert code == exits.OK, capsys.readouterr().err
    assert "INTERRUPTED while preparing" in text
    assert f"may or may not have run: {FAIL if kill_at == 1 else REMOVE}" in text
    assert (f"ran: {FAIL}" in text) is (kill_at == 2)
    assert (f"not run: {REMOVE}" in text) is (kill_at == 1)
    code, text = rig.nastui("status")
    assert "swap INTERRUPTED while preparing: bay 0" in text
    # a second start is refused, naming the abort; it runs nothing
    code, _ = rig.nastui("swap", "start", "0", "--pull-first")
    assert code == exits.EX_USAGE
    assert "`nastui swap abort` undoes it" in capsys.readouterr().err
    calls = len(rig.calls)
    # the abort undoes exactly what may have run, and skips with a line what never did
    rig.arm(0, "never")
    code, text = rig.nastui("swap", "abort")
    assert code == exits.OK, capsys.readouterr().err
    assert rig.calls[calls:] == undo
    assert rig.member == "in"
    assert ("not needed" in text) is (len(undo) < 2), text
    assert "swap aborted" in text
    assert decode_swap((rig.state / SWAP_FILE).read_text()) is None
    log = json.loads((rig.state / LOG_FILE).read_text())["log"]
    assert [r["phase"] for r in log] == ["aborted"]
    # and it is over: a new start prepares from scratch
    rig.arm(0, "never")
    code, text = rig.nastui("swap", "start", "0", "--pull-first")
    assert code == exits.OK, capsys.readouterr().err
    assert "swap prepared: bay 0" in text and rig.member == "out"


def test_a_start_killed_as_it_lights_the_led_is_undone_whole(
    rig: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every write answered, the kill comes as the LED is lit: the swap is still preparing
    (both writes ran), kept as holding the LED, and the abort re-adds the member and puts the
    LED out."""
    rig.arm(0, "never", kill_led=True)
    assert rig.process("start", "0", "--pull-first").returncode == -signal.SIGKILL
    assert rig.calls == [FAIL, REMOVE] and rig.member == "out"
    assert [line.split("=")[0] for line in rig.leds] == ["ledctl --listed-only locate"]
    swap = decode_swap((rig.state / SWAP_FILE).read_text())
    assert swap is not None and swap.phase is SwapPhase.PREPARING and swap.led
    assert (swap.prep_started, swap.prep_done) == (2, 2)
    rig.arm(0, "never")
    code, text = rig.nastui("swap")
    assert f"ran: {FAIL}" in text and f"ran: {REMOVE}" in text
    code, text = rig.nastui("swap", "abort")
    assert code == exits.OK, capsys.readouterr().err
    assert rig.calls[2:] == [ADD] and rig.member == "in"
    assert rig.leds[-1].split("=")[0] == "ledctl --listed-only locate_off"
    assert decode_swap((rig.state / SWAP_FILE).read_text()) is None


@pytest.mark.parametrize(("kill_at", "when"), sorted(CASES))
def test_an_abort_killed_at_each_undo_is_run_again_to_the_end(
    rig: Rig, kill_at: int, when: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The abort survives SIGKILL too: killed at either undo write, the swap is still kept
    preparing, and the next abort finishes, skipping what the first one did."""
    rig.arm(1, "after")
    assert rig.process("start", "0", "--pull-first").returncode == -signal.SIGKILL
    assert rig.member == "faulty"
    rig.arm(kill_at, when)
    assert rig.process("abort").returncode == -signal.SIGKILL
    swap = decode_swap((rig.state / SWAP_FILE).read_text())
    assert swap is not None and swap.phase is SwapPhase.PREPARING
    left = {"faulty": [REMOVE, ADD], "out": [ADD], "in": []}[rig.member]
    rig.arm(0, "never")
    calls = len(rig.calls)
    code, text = rig.nastui("swap", "abort")
    assert code == exits.OK, capsys.readouterr().err
    assert rig.calls[calls:] == left and rig.member == "in"
    assert "swap aborted" in text


def test_an_abort_whose_undo_failed_keeps_the_swap_for_the_next(
    rig: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    """An abort whose re-add failed keeps the swap, saying to run it again; run again once the
    member can go back, it skips the remove and re-adds."""
    rig.arm(2, "after")
    assert rig.process("start", "0", "--pull-first").returncode == -signal.SIGKILL
    assert rig.member == "out"
    (rig.bin / "md0.json").write_text(json.dumps({"sda1": "in"}))  # busy: --add fails
    rig.arm(0, "never")
    code, _ = rig.nastui("swap", "abort")
    assert code == exits.EX_UNAVAILABLE
    assert "`nastui swap abort` again" in capsys.readouterr().err
    swap = decode_swap((rig.state / SWAP_FILE).read_text())
    assert swap is not None and swap.phase is SwapPhase.PREPARING
    (rig.bin / "md0.json").write_text(json.dumps({"sda1": "out"}))
    calls = len(rig.calls)
    code, _ = rig.nastui("swap", "abort")
    assert code == exits.OK, capsys.readouterr().err
    assert rig.calls[calls:] == [ADD] and rig.member == "in"


def test_a_failed_write_keeps_the_swap_preparing_and_abort_skips_what_never_ran(
    rig: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    """mdadm refuses the fail (the fake holds the member faulty while mdstat shows it in
    service): the start stops there, exit 69, the swap kept preparing with the fail as maybe
    run; the abort finds the member in service and runs nothing."""
    (rig.bin / "md0.json").write_text(json.dumps({"sda1": "faulty"}))
    rig.arm(0, "never")
    code, _ = rig.nastui("swap", "start", "0", "--pull-first")
    assert code == exits.EX_UNAVAILABLE
    assert "`nastui swap abort` (it undoes what may have run)" in capsys.readouterr().err
    assert rig.calls == [FAIL]
    swap = decode_swap((rig.state / SWAP_FILE).read_text())
    assert swap is not None and swap.phase is SwapPhase.PREPARING
    assert (swap.prep_started, swap.prep_done) == (1, 0)
    code, text = rig.nastui("swap", "abort")
    assert code == exits.OK, capsys.readouterr().err
    assert rig.calls == [FAIL]
    assert text.count("undo skipped: ") == 2 and "is in service (ONLINE)" in text


def test_a_prepared_md_swap_aborted_before_the_pull_re_adds_its_member(
    rig: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    """A start that ran to the end (fail, remove), then an abort with the drive still in: the
    remove is skipped (the member is out of the array already) and the member is added back."""
    rig.arm(0, "never")
    code, text = rig.nastui("swap", "start", "0", "--pull-first")
    assert code == exits.OK, capsys.readouterr().err
    assert "swap prepared: bay 0" in text and rig.member == "out"
    calls = len(rig.calls)
    code, text = rig.nastui("swap", "abort")
    assert code == exits.OK, capsys.readouterr().err
    assert rig.calls[calls:] == [ADD]
    assert rig.member == "in" and "not needed" in text and "swap aborted" in text
