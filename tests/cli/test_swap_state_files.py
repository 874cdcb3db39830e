"""The swap's state files under attack: two `swap start` at once, a swap.json that is not UTF-8,
nested past Python's stack, a FIFO, or emptied.

Before: two starts at once both took a drive out of the array (20 tries, 2 bad); a non-UTF-8 or
deeply nested swap.json was an internal error (exit 70); an emptied one silently forgot the
running swap. Now the swap lock (flock on swap.lock) refuses the second start naming the
first's target, a bad file is one line (exit 65, and a line in `status`), and an emptied file is
read from swap.json.bak, saying so.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from nastui import exits
from nastui.cli.args import parse_args
from nastui.cli.main import run_headless
from nastui.swap.io.store import SwapBusy, SwapStore
from tests.cli.test_swap_root import MDSTAT, by_id, disk
from tests.fakepools import FakeTools, install, md_tree
from tests.fakesys import build


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, FakeTools, Path]:
    tools = install(tmp_path, monkeypatch)
    state = tmp_path / "state"
    monkeypatch.setenv("NASTUI_STATE_DIR", str(state))
    root = build(tmp_path / "root", [disk("sda", 0), disk("sdb", 1)])
    md_tree(root, MDSTAT)
    config = tmp_path / "config.toml"
    bays = "".join(f'[[chassis.bay]]\nbay = {n}\nserial = "WD-WCC7K{n}000"\n\n' for n in range(2))
    config.write_text(f'[chassis]\npreset = "rv-4324"\n\n{bays}')
    return root, config, tools, state


def start(root: Path, config: Path, bay: int) -> subprocess.Popen[str]:
    argv = ["--root", str(root), "--config", str(config), "swap", "start", str(bay), "--pull-first"]
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(Path.cwd()))}
    return subprocess.Popen(
        [sys.executable, "-m", "nastui", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_two_starts_at_once_take_out_one_drive(
    box: tuple[Path, Path, FakeTools, Path],
) -> None:
    root, config, tools, _ = box
    for n in (0, 1):
        old = f"{by_id(n)}-part1"
        # the first start is slower to fail a member than a second start waits for the lock
        tools.answer("mdadm", f"/dev/md0 --fail {old}", delay=10.0)
        tools.answer("mdadm", f"/dev/md0 --remove {old}")
    first = start(root, config, 0)
    deadline = time.monotonic() + 60
    while not tools.calls and time.monotonic() < deadline:  # the first is inside mdadm
        assert first.poll() is None, first.communicate()
        time.sleep(0.05)
    second = start(root, config, 1)
    out, err = second.communicate(timeout=120)
    assert second.returncode == exits.EX_USAGE, (out, err)
    assert "is preparing a swap of bay 0 WDC WD40EFRX-68N32N0 WD-WCC7K0000" in err, err
    assert "swap.lock is held): wait for it, then `nastui swap`" in err
    out, err = first.communicate(timeout=120)
    assert first.returncode == exits.OK, err
    old = f"{by_id(0)}-part1"
    assert tools.calls == [f"mdadm /dev/md0 --fail {old}", f"mdadm /dev/md0 --remove {old}"]


def nastui(root: Path, config: Path, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    args = parse_args(["--root", str(root), "--config", str(config), *argv])
    return run_headless(args, out), out.getvalue()


def started(box: tuple[Path, Path, FakeTools, Path]) -> Path:
    """A swap of bay 0 prepared; the state directory."""
    root, config, tools, state = box
    old = f"{by_id(0)}-part1"
    tools.answer("mdadm", f"/dev/md0 --fail {old}")
    tools.answer("mdadm", f"/dev/md0 --remove {old}")
    assert nastui(root, config, "swap", "start", "0", "--pull-first")[0] == exits.OK
    return state


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (
            b'{"version": 1, "swap": "\xff\xfe"}',
            "swap.json is not UTF-8 text (invalid start byte at byte 24)",
        ),
        (b"[" * 100_000, "swap.json is not a swap nastui can read"),
        (b'{"version": 1, "swap": ' + b"{" * 50_000, "swap.json is not a swap nastui can read"),
    ],
    ids=["not-utf8", "nested-arrays", "nested-objects"],
)
def test_a_swap_file_nastui_did_not_write_is_one_line(
    box: tuple[Path, Path, FakeTools, Path],
    capsys: pytest.CaptureFixture[str],
    content: bytes,
    says: str,
) -> None:
    root, config, _, _ = box
    state = started(box)
    capsys.readouterr()
    (state / "swap.json").write_bytes(content)
    code, _ = nastui(root, config, "swap")
    err = capsys.readouterr().err
    assert code == exits.EX_DATAERR
    assert says in err and err.count("\n") == 1, err
    assert "look at it, then remove it" in err
    code, text = nastui(root, config, "status")
    assert "swap: the swap file cannot be read: `nastui swap` says why" in text
    assert "internal error" not in capsys.readouterr().err


def test_a_fifo_for_a_swap_file_never_hangs(
    box: tuple[Path, Path, FakeTools, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, config, _, state = box
    state.mkdir()
    os.mkfifo(state / "swap.json")
    code, _ = nastui(root, config, "swap")
    assert code == exits.EX_DATAERR
    assert "swap.json is a FIFO, not a regular file" in capsys.readouterr().err


def test_an_emptied_swap_file_is_read_from_its_backup_and_says_so(
    box: tuple[Path, Path, FakeTools, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, config, _, _ = box
    state = started(box)
    assert (state / "swap.json.bak").read_bytes() == (state / "swap.json").read_bytes()
    (state / "swap.json").write_bytes(b"")  # a full disk, an editor, a hand
    code, text = nastui(root, config, "status")
    assert "swap: " in text and "swap.json was empty: the swap was read from swap.json.bak" in text
    assert "swap in progress: bay 0 WDC WD40EFRX-68N32N0 WD-WCC7K0000, prepared" in text
    capsys.readouterr()
    code, text = nastui(root, config, "swap")
    assert code == exits.OK and "swap prepared: bay 0" in text
    assert "swap.json was empty: the swap was read from swap.json.bak" in capsys.readouterr().err
    # the follow wrote both again: the next read is a plain one
    assert SwapStore(state).load() is not None
    code, text = nastui(root, config, "swap", "start", "1", "--pull-first")
    assert code == exits.EX_USAGE  # the swap was not forgotten: one at a time


def test_an_emptied_swap_file_without_a_backup_is_said(
    box: tuple[Path, Path, FakeTools, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, config, _, _ = box
    state = started(box)
    (state / "swap.json").write_bytes(b"\n")
    (state / "swap.json.bak").unlink()
    capsys.readouterr()
    code, _ = nastui(root, config, "swap", "start", "1")
    err = capsys.readouterr().err
    assert code == exits.EX_DATAERR
    assert "swap.json is empty and its backup cannot be used" in err
    assert "if a swap was running, check the pool (`nastui pools`) before removing it" in err


def test_the_lock_names_its_holder_and_is_released(tmp_path: Path) -> None:
    store = SwapStore(tmp_path)
    busy = pytest.raises(SwapBusy, match=rf"pid {os.getpid()}\) is preparing a swap of bay 10")
    with store.lock("starting a swap of 10") as held:
        held.say("preparing a swap of bay 10 sdk")
        with busy, SwapStore(tmp_path).lock("starting a swap of 11"):
            pass
    with SwapStore(tmp_path).lock("starting a swap of 11"):
        pass
    assert (tmp_path / "swap.lock").stat().st_mode & 0o777 == 0o644


def test_a_start_waits_out_a_moment_of_following(
    box: tuple[Path, Path, FakeTools, Path],
) -> None:
    """The interface or a `nastui swap` holds the lock for a moment while following: a start
    then waits (up to 3 s) instead of being refused."""
    root, config, tools, state = box
    old = f"{by_id(0)}-part1"
    tools.answer("mdadm", f"/dev/md0 --fail {old}")
    tools.answer("mdadm", f"/dev/md0 --remove {old}")
    held = SwapStore(state).acquire("following the swap")
    threading.Timer(0.5, held.release).start()
    assert nastui(root, config, "swap", "start", "0", "--pull-first")[0] == exits.OK
