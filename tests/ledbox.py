"""A small box for locate-LED tests: a fake /sys tree with an SES enclosure, `ledctl` and
`sg_ses` answered from canned results (real captured failures where it matters), a snapshot as
the drive collector sees the tree, a drive pulled from it as the kernel shows a hot pull, and a
digest of the whole tree to tell that nothing but one file changed."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

from nastui.collectors.drives import DriveCollector
from nastui.collectors.runner import CommandResult
from nastui.control.blink import Blinker
from nastui.control.locate_ladder import LadderLocator
from nastui.model import BaySlot, HostSnapshot, LedState
from tests.conftest import FIXTURES
from tests.fakesys import SAS_PARENT, FakeDisk, add_enclosure, build
from tests.rootfuzz import paths_of

NOW = 1_700_000_000.0
LOCAL = FIXTURES / "enclosure/local"
ENCLOSURE = "sys/class/enclosure/1:0:24:0"
OK = CommandResult(("x",), 0, "", "", 0.1)


def captured(name: str) -> CommandResult:
    """A real `ledctl`/`sg_ses` failure captured on this lab's machine."""
    record = json.loads((LOCAL / f"{name}.json").read_text())
    return CommandResult(
        tuple(record["argv"]), record["returncode"], record["stdout"], record["stderr"], 0.1
    )


class FakeTools:
    """Answers ledctl and sg_ses from canned results; records every argv."""

    def __init__(self, answers: dict[str, CommandResult | None]) -> None:
        self.answers = answers
        self.argv: list[tuple[str, ...]] = []

    async def __call__(self, argv: tuple[str, ...], *, timeout: float) -> CommandResult:
        self.argv.append(tuple(argv))
        answer = self.answers.get(argv[0])
        if answer is None:
            return CommandResult(tuple(argv), 127, "", "", 0.0, error=f"{argv[0]} not found")
        return answer


def led_tree(tmp_path: Path) -> Path:
    """sdb (SAS, SERB) in slot 3 of an SES enclosure whose slot 4 is empty; sdc (SAS, SERC)
    in no enclosure slot, with bytes to read for an activity blink."""
    disks = [
        FakeDisk(
            "sdb",
            SAS_PARENT.format(h=1, n=3),
            vendor="HGST",
            model="HUH721212AL4204",
            vpd_serial="SERB",
            sas_address="0x5000cca253066623",
        ),
        FakeDisk(
            "sdc",
            SAS_PARENT.format(h=1, n=5),
            vendor="HGST",
            model="HUH721212AL4204",
            vpd_serial="SERC",
        ),
    ]
    tree = build(tmp_path / "root", disks)
    add_enclosure(tree, {3: "sdb", 4: None})
    (tree / "dev/sdc").write_bytes(os.urandom(4 << 20))
    return tree


def locate_file(root: Path, slot: int) -> Path:
    """The `locate` file of an enclosure slot of `led_tree`."""
    return root / ENCLOSURE / f"Slot{slot:02d}/locate"


async def snapshot_of(
    root: Path, tmp_path: Path, *, extra: tuple[BaySlot, ...] = ()
) -> HostSnapshot:
    """The box as the drive collector sees it: located drives in their bays, SERC in bay 5
    (a bay laid out by hand), and `extra` slots (an empty bay)."""
    report = await DriveCollector(root, run=FakeTools({}), state_dir=tmp_path / "state").collect(
        NOW
    )
    slots = tuple(
        BaySlot(bay, key, led=report.leds.get(bay, LedState.UNKNOWN))
        for key, (bay, _) in report.located.items()
    )
    if any(d.key == "SERC" for d in report.drives):
        slots += (BaySlot(5, "SERC"),)
    return HostSnapshot("box", NOW, slots=slots + extra, drives=report.drives)


def ladder(
    root: Path,
    tmp_path: Path,
    snapshot: HostSnapshot,
    tools: FakeTools,
    *,
    blinker: Blinker | None = None,
    blink_seconds: float = 120.0,
) -> LadderLocator:
    """The real machine's locator over the tree, with the tools faked."""
    return LadderLocator(
        root,
        run=tools,
        latest=lambda: snapshot,
        state_dir=tmp_path / "state",
        blinker=blinker,
        blink_seconds=blink_seconds,
    )


def pull(root: Path, dev: str) -> None:
    """Take `dev` out as the kernel shows a hot pull: its block and SCSI device directories,
    its /dev node and the enclosure slot's `device` link go; the slot itself (and its `locate`
    file) stays, the enclosure's status turning to "not installed"."""
    device = (root / "sys/block" / dev / "device").resolve()
    for component in (root / "sys/class/enclosure").glob("*/*"):
        link = component / "device"
        if link.is_symlink() and link.resolve() == device:
            link.unlink()
            (component / "status").write_text("not installed\n")
    (root / "sys/block" / dev).unlink()
    shutil.rmtree(device)
    (root / "dev" / dev).unlink()


def tree_digest(root: Path, *, skip: tuple[Path, ...] = ()) -> dict[str, str]:
    """Every path under `root` (links not followed) -> what it is: a file's sha256, a link's
    target, a directory, a FIFO (never opened); `skip` (followed to where it leads) left out."""
    digest = {}
    left_out = {p.resolve() for p in skip}
    for path in paths_of(root):
        if path in left_out:
            continue
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            what = "link:" + str(path.readlink())
        elif stat.S_ISREG(mode):
            what = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            what = f"mode:{stat.S_IFMT(mode):o}"
        digest[str(path.relative_to(root))] = what
    return digest
