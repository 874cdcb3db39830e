"""A fake `--root` tree to attack, and a driver that runs the read-only commands on it.

`make_tree` builds a small NAS under a directory: four drives (SATA, SAS in an SES enclosure,
one with partitions under md), an md RAID1 (/proc/mdstat, /sys/block/md0/md), hwmon chips with
fans and a CPU package, /proc/self/mountinfo and /proc/diskstats, a fand's /proc/812/cmdline,
/etc/hostname.

`spoil` replaces one path of it by what a hostile user or a broken capture could leave there: a
FIFO (an open that blocks), a link to /dev/zero (a read that never ends), a sparse 1 GiB file,
a symbolic link loop, a link to a missing file, a directory, or an empty file.

`run_commands` runs `drives --json`, `bays --json`, `pools --json`, `status` and `fans --json` on
a tree in one child process (each in process, through `nastui.entry.main`), with a memory limit
and a time limit, and returns each command's exit status and whether it was an internal error.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.fakehwmon import add_chip, add_coretemp
from tests.fakepools import md_tree
from tests.fakesys import SAS_PARENT, SATA_PARENT, FakeDisk, add_enclosure, build

COMMANDS = (
    ("drives", "--json"), ("bays", "--json"), ("pools", "--json"), ("status",), ("fans", "--json"),
)  # fmt: skip
KINDS = ("fifo", "zero", "sparse", "loop", "dangling", "directory", "empty")
# nastui's own state files, and what else they can hold: JSON nested past the stack, not UTF-8
STATE_FILES = (
    "acks.json", "leds.json", "selftests.json", "swap.json", "swap.json.bak", "swaps.json",
    "swap.lock",
)  # fmt: skip
STATE_KINDS = (*KINDS, "nested", "binary")
STATE_COMMANDS = (
    ("drives", "--json"), ("status",), ("swap",), ("swap", "log"), ("selftest", "status"),
    ("alert", "list"),
)  # fmt: skip
MEMORY_LIMIT = 3 << 30  # bytes of address space for the child: the machine is shared
MDSTAT = """Personalities : [raid1]
md0 : active raid1 sdb1[1] sda1[0]
      244005888 blocks super 1.2 [2/2] [UU]

unused devices: <none>
"""
MOUNTINFO = (
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
    "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
)
DISKSTATS = (
    "   8       0 sda 1000 0 80000 100 2000 0 160000 200 0 300 300 0 0 0 0 0 0\n"
    "   8      16 sdb 1000 0 80000 100 2000 0 160000 200 0 300 300 0 0 0 0 0 0\n"
)
# The driver: each command in process, its stderr kept, the exit statuses as JSON on stdout.
_DRIVER = """
import contextlib, io, json, sys, time
from nastui.entry import main
root, config = sys.argv[1], sys.argv[2]
out = []
for argv in json.loads(sys.argv[3]):
    err = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["--root", root, "--config", config, *argv])
    out.append([argv, code, err.getvalue(), time.monotonic() - started])
print(json.dumps(out))
"""


def make_tree(base: Path) -> tuple[Path, Path]:
    """The tree and a configuration for it; returns (root, config)."""
    disks = [
        FakeDisk("sda", SATA_PARENT.format(n=0), model="HGST HUS726040AL",
                 by_id=["ata-HGST_HUS726040ALE614_SERA"], temp_millic=31000, partitions=1),
        FakeDisk("sdb", SATA_PARENT.format(n=1), model="HGST HUS726060AL",
                 by_id=["ata-HGST_HUS726060ALE614_SERB"], partitions=1,
                 wwid="naa.5000cca22bc1a6e3"),
        FakeDisk("sdc", SAS_PARENT.format(h=2, n=5), vendor="HGST", model="HUH721212AL4204",
                 vpd_serial="8DG3J2ZD", sas_address="0x5000cca2"),
        FakeDisk("sdd", SATA_PARENT.format(n=3), model="HGST HUS726040AL",
                 by_id=["ata-HGST_HUS726040ALE614_SERD"], by_path="pci-0000:00:1f.2-ata-4"),
    ]  # fmt: skip
    root = build(base / "root", disks, extra_block=("loop0",))
    add_enclosure(root, {0: None, 1: "sdc"}, host=2)
    md_tree(root, MDSTAT, {"md0": {"sync_action": "idle", "array_state": "clean"}})
    add_chip(root, fans={1: 900, 2: 1200}, pwms={1: (128, 2)})
    add_coretemp(root, 45.0)
    for name, text in (
        ("proc/self/mountinfo", MOUNTINFO),
        ("proc/diskstats", DISKSTATS),
        ("proc/812/cmdline", "/usr/bin/python3\0/usr/local/bin/nastui\0fand\0"),
        ("etc/hostname", "fuzzbox\n"),
    ):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    config = base / "config.toml"
    config.write_text(
        '[chassis]\npreset = "desktop-4"\n'
        '[[chassis.bay]]\nbay = 0\nserial = "SERA"\n'
        '[[chassis.bay]]\nbay = 2\nserial = "SERB"\n'
    )
    return root, config


def paths_of(root: Path) -> list[Path]:
    """Every file, link and directory under `root` (not following links), sorted."""
    found: list[Path] = []
    for directory, dirs, files in os.walk(root):
        here = Path(directory)
        found.extend(here / name for name in (*dirs, *files))
    return sorted(found)


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink()
        return
    for child in sorted(path.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if child.is_symlink() or not child.is_dir():
            child.unlink()
        else:
            child.rmdir()
    path.rmdir()


def spoil(path: Path, kind: str) -> None:
    """Replace `path` (whatever it is) by `kind` (one of KINDS)."""
    if path.is_symlink() or path.exists():
        _remove(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "sparse":
        with path.open("wb") as handle:
            handle.truncate(1 << 30)
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "dangling":
        path.symlink_to(path.name + ".missing")
    elif kind == "directory":
        path.mkdir()
    elif kind == "nested":
        path.write_bytes(b'{"version": 1, "drives": ' + b"[" * 100_000)
    elif kind == "binary":
        path.write_bytes(b'{"version": 1, "swap": "\xff\xfe\x00"}')
    else:
        path.write_bytes(b"")


def make_state(directory: Path) -> Path:
    """A state directory holding each of STATE_FILES (an empty JSON object; the lock empty)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in STATE_FILES:
        (directory / name).write_text("" if name == "swap.lock" else "{}\n")
    return directory


@dataclass(frozen=True)
class Ran:
    """One command on the tree: its argv, exit status, stderr and seconds taken."""

    argv: tuple[str, ...]
    code: int
    stderr: str
    seconds: float

    @property
    def internal_error(self) -> bool:
        """A bug in nastui (exit 70, or a traceback or "internal error" on stderr)."""
        text = self.stderr
        return self.code == 70 or "internal error" in text or "Traceback" in text


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_commands(
    root: Path,
    config: Path,
    state: Path,
    timeout: float,
    commands: tuple[tuple[str, ...], ...] = COMMANDS,
) -> tuple[list[Ran], float]:
    """`commands` (the four read-only ones) on the tree, with `state / "state"` as the state
    directory; (what each did, seconds for all).

    Raises:
        subprocess.TimeoutExpired: they did not finish in `timeout` seconds (a hang).
    """
    empty = state / "empty-path"
    empty.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": str(empty),  # no smartctl, zpool, btrfs of this machine answers
        "PYTHONPATH": os.environ.get("PYTHONPATH", str(Path(__file__).resolve().parents[1])),
        "NASTUI_STATE_DIR": str(state / "state"),
        "NO_COLOR": "1",
        "TZ": "UTC",
    }
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(root), str(config), json.dumps(commands)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        preexec_fn=_limits,
        check=False,
    )
    took = time.monotonic() - started
    if done.returncode != 0:
        return [Ran(("driver",), done.returncode, done.stderr[-2000:], took)], took
    rows = json.loads(done.stdout.splitlines()[-1])
    return [Ran(tuple(a), c, e, s) for a, c, e, s in rows], took
