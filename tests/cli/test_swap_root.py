"""`nastui swap` on the real collectors, over a fake /sys, /proc and /dev tree (`--root`) with
fake `mdadm`/`sgdisk` on PATH: an md RAID1 on partitions, prepared pull first (the exact mdadm
calls), the pull seen as the drive leaving sysfs, the new drive seen arriving; and, since the
tree's device nodes are not real block devices, the guard's inspection cannot clear the new
drive: the replace is refused and nothing is written (fail safe)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from nastui import exits
from nastui.cli.args import parse_args
from nastui.cli.main import run_headless
from tests.fakepools import FakeTools, install, md_tree
from tests.fakesys import SATA_PARENT, FakeDisk, add_disk, build

MODEL = "WDC WD40EFRX-68N32N0"
MDSTAT = """Personalities : [raid1]
md0 : active raid1 sdb1[1] sda1[0]
      244005888 blocks super 1.2 [2/2] [UU]

unused devices: <none>
"""
DEGRADED = MDSTAT.replace("sdb1[1] sda1[0]", "sdb1[1]").replace("[2/2] [UU]", "[2/1] [_U]")


def disk(dev: str, n: int) -> FakeDisk:
    serial = f"WD-WCC7K{n}000"
    return FakeDisk(
        dev=dev,
        parent=SATA_PARENT.format(n=n),
        model=MODEL,
        vpd_serial=serial,
        by_id=[f"ata-{MODEL.replace(' ', '_')}_{serial}"],
        partitions=1,
    )


def by_id(n: int) -> str:
    return f"/dev/disk/by-id/ata-{MODEL.replace(' ', '_')}_WD-WCC7K{n}000"


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, FakeTools]:
    tools = install(tmp_path, monkeypatch)
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path / "state"))
    root = build(tmp_path / "root", [disk("sda", 0), disk("sdb", 1)])
    md_tree(root, MDSTAT)
    config = tmp_path / "config.toml"
    bays = "".join(f'[[chassis.bay]]\nbay = {n}\nserial = "WD-WCC7K{n}000"\n\n' for n in range(2))
    config.write_text(f'[chassis]\npreset = "rv-4324"\n\n{bays}')
    return root, config, tools


def nastui(root: Path, config: Path, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    args = parse_args(["--root", str(root), "--config", str(config), *argv])
    return run_headless(args, out), out.getvalue()


def pull(root: Path, dev: str) -> None:
    """The drive leaves the bus: its sysfs entry, device node and by-id links go."""
    target = (root / "sys/block" / dev).resolve()
    (root / "sys/block" / dev).unlink()
    shutil.rmtree(target)
    for link in (root / "dev/disk/by-id").iterdir():
        if link.resolve().name.startswith(dev):
            link.unlink()


def test_md_raid1_pull_first_on_the_real_collectors(
    box: tuple[Path, Path, FakeTools], capsys: pytest.CaptureFixture[str]
) -> None:
    root, config, tools = box
    code, text = nastui(root, config, "swap", "plan", "0")
    assert code == exits.OK
    assert "pool md0 (mdraid, ONLINE), raid1, member sda1 ONLINE" in text
    assert "md raid1 of 2; can lose 0 more once it is out" in text
    old = f"{by_id(0)}-part1"
    tools.answer("mdadm", f"/dev/md0 --fail {old}")
    tools.answer("mdadm", f"/dev/md0 --remove {old}")
    code, text = nastui(root, config, "swap", "start", "0", "--pull-first")
    assert code == exits.OK, capsys.readouterr().err
    assert tools.calls == [f"mdadm /dev/md0 --fail {old}", f"mdadm /dev/md0 --remove {old}"]
    assert "swap prepared: bay 0" in text
    # no LED here: the activity blink would die with the command, so it says how to get one
    assert "no locate LED answers for sda: `nastui locate 0` blinks" in text
    # the drive leaves sysfs: the swap sees the pull
    pull(root, "sda")
    md_tree(root, DEGRADED)
    code, text = nastui(root, config, "swap")
    assert code == exits.OK and "swap pulled: bay 0" in text
    # a new drive arrives; the tree's /dev nodes are not block devices: it cannot be cleared
    add_disk(root, disk("sdc", 2), hwmon_index=2)
    code, text = nastui(root, config, "swap")
    assert "swap inserted" in text and "WD-WCC7K2000" in text
    assert "BLOCKS: in use:" in text
    code, _ = nastui(root, config, "swap", "replace", "--confirm", "WD-WCC7K2000")
    assert code == exits.EX_USAGE
    assert "the new drive cannot be used" in capsys.readouterr().err
    assert len(tools.calls) == 2  # nothing written to the new drive
