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


def _positional_help(words: tuple[str, ...], dest: str) -> str:
    """The help of the positional `dest` of the subcommand `words` (`smart ack`)."""
    import argparse

    from nastui.cli.clitree import full_parser

    parser: argparse.ArgumentParser = full_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub._name_parser_map[word]
    action = next(a for a in parser._actions if a.dest == dest and not a.option_strings)
    return str(action.help)


def test_every_command_that_takes_a_drive_says_every_name_it_accepts() -> None:
    """The README audit: `smart ack` offered a bay, serial or device name, `selftest start`
    no by-id name; `find_drive` takes them all, so their help says so, from one constant.
    `swap plan|start` too."""
    from nastui.core.drivename import DRIVE_NAMES

    for form in ("bay", "serial", "device name", "/dev path", "by-id", "by-vdev"):
        assert form in DRIVE_NAMES
    for words, dest in (
        (("smart", "ack"), "drive"),
        (("selftest", "start"), "drive"),
        (("locate",), "target"),
        (("swap", "plan"), "target"),
        (("swap", "start"), "target"),
    ):
        assert _positional_help(words, dest) == DRIVE_NAMES, words
