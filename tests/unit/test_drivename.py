"""One drive resolver for every command (issue 23 §1): `smart ack`, `locate`, `selftest` and
`bench` answer to the names `swap` does, a by-vdev name included (they did not)."""

from __future__ import annotations

import re

from nastui.core.drivename import find_drive
from nastui.model import Drive, DriveIdentity, HostSnapshot
from tests.conftest import REPO

DRIVE = Drive(
    "sdc",
    DriveIdentity(serial="ZL2ABC12"),
    by_id=("ata-ST8000VN004-2M2101_ZL2ABC12",),
    by_vdev="A3",
)
SNAPSHOT = HostSnapshot("nas", 0.0, drives=(DRIVE,))


def test_every_name_an_operator_uses_finds_the_drive() -> None:
    for name in (
        "sdc",
        "/dev/sdc",
        "zl2abc12",
        "ata-ST8000VN004-2M2101_ZL2ABC12",
        "/dev/disk/by-id/ata-ST8000VN004-2M2101_ZL2ABC12",
        "A3",
        "/dev/disk/by-vdev/A3",
    ):
        assert find_drive(SNAPSHOT, name) == (DRIVE, None), name
    assert find_drive(SNAPSHOT, "sdd") == (None, None)


def test_there_is_one_resolver() -> None:
    defined = re.compile(r"^def (find_drive|find_target)\(", re.M)
    found = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "nastui").rglob("*.py"))
        if defined.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["nastui/core/drivename.py"]
