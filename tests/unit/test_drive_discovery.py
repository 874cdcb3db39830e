"""Discovery additions for real drives: /dev/disk/by-vdev names, partitions and their holders
(md arrays, device-mapper), from a fake /sys and /dev tree."""

from __future__ import annotations

import os
from pathlib import Path

from nastui.collectors.sysfs import discover, partitions_and_holders
from tests.fakesys import SATA_PARENT, FakeDisk, build


def test_by_vdev_partitions_and_holders(tmp_path: Path) -> None:
    disk = FakeDisk("sda", SATA_PARENT.format(n=0), by_id=["ata-X_S1"], partitions=2)
    root = build(tmp_path, [disk, FakeDisk("sdb", SATA_PARENT.format(n=1), by_id=["ata-X_S2"])])
    block = (root / "sys/block/sda").resolve()
    (block / "sda2/holders").mkdir(parents=True)
    (block / "sda2/holders/md0").mkdir()
    (block / "holders").mkdir()
    (block / "holders/dm-3").mkdir()
    vdev = root / "dev/disk/by-vdev"
    vdev.mkdir(parents=True)
    (vdev / "front-3").symlink_to(os.path.relpath(root / "dev/sda", vdev))
    (vdev / "front-3-part1").symlink_to(os.path.relpath(root / "dev/sda1", vdev))
    found = {d.dev: d for d in discover(root)}
    assert found["sda"].by_vdev == "front-3"
    assert found["sda"].partitions == ("sda1", "sda2")
    assert found["sda"].holders == ("dm-3", "md0")
    assert (found["sdb"].by_vdev, found["sdb"].partitions, found["sdb"].holders) == (None, (), ())
    assert partitions_and_holders(root, "nope") == ((), ())
