"""A fake `smartctl` on PATH for tests that run the real runner and the real pySMART.

`SmartBox` makes a bin directory with a `smartctl` that runs `tests/fakesmartctl.py`, and a
fixture directory whose files are named after the command lines they answer. Tests put real
captured outputs (tests/fixtures/smartctl) there under the names nastui's argv will ask for.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import FIXTURES
from tests.fakepools import real_programs
from tests.fakesmartctl import fixture_name
from tests.fakesys import SAS_PARENT, SATA_PARENT, FakeDisk, add_enclosure, build

SMART = FIXTURES / "smartctl"
FAKE = Path(__file__).resolve().parent / "fakesmartctl.py"


def full_request(dev: str, kind: str = "sat") -> str:
    """pySMART's first request for a drive, as the fixture names it."""
    return fixture_name(["-d", kind, "--all", f"/dev/{dev}"])


def probe_request(dev: str, kind: str = "sat") -> str:
    """The quick JSON probe's fixture name."""
    return fixture_name(["-j", "-d", kind, "-A", f"/dev/{dev}"])


@dataclass
class SmartBox:
    """The fake smartctl's bin and fixture directories, and its logs."""

    root: Path

    def __post_init__(self) -> None:
        self.bin = self.root / "bin"
        self.answers = self.root / "answers"
        self.log = self.root / "calls.log"
        self.wakes = self.root / "wakes.log"
        self.bin.mkdir(parents=True, exist_ok=True)
        self.answers.mkdir(parents=True, exist_ok=True)
        self.settings = self.root / "settings.json"
        shim = self.bin / "smartctl"
        # nastui gives its children a minimal environment: the settings come from a file
        shim.write_text(
            f'#!/bin/sh\nFAKE_SMARTCTL_SETTINGS="{self.settings}" exec "{sys.executable}" '
            f'"{FAKE}" "$@"\n'
        )
        shim.chmod(0o755)
        self.env()

    def answer(self, name: str, fixture: str | Path, exit_status: int | None = None) -> None:
        """Answer the command line `name` (see `full_request`) with a fixture file's text."""
        source = fixture if isinstance(fixture, Path) else SMART / fixture
        (self.answers / name).write_text(source.read_text(encoding="utf-8", errors="replace"))
        if exit_status is not None:
            (self.answers / f"{name}.exit").write_text(str(exit_status))

    def drive(
        self, dev: str, fixture: str | Path, kind: str = "sat", exit_status: int | None = None
    ) -> None:
        """A drive answering nastui's full read with `fixture`."""
        self.answer(full_request(dev, kind), fixture, exit_status)

    def env(
        self,
        *,
        standby: Iterable[str] = (),
        delay: float | None = None,
        hang: Iterable[str] = (),
    ) -> dict[str, str]:
        """Configure the fake (drives in standby, a delay, hung drives) in its settings file
        (nastui passes its children no FAKE_* variable); the environment that puts it first
        on PATH, with no other storage tool of this machine after it."""
        settings = {
            "FAKE_SMARTCTL_DIR": str(self.answers),
            "FAKE_SMARTCTL_LOG": str(self.log),
            "FAKE_SMARTCTL_WAKES": str(self.wakes),
            "FAKE_SMARTCTL_STANDBY": ",".join(standby),
            "FAKE_SMARTCTL_HANG": ",".join(hang),
        }
        if delay is not None:
            settings["FAKE_SMARTCTL_DELAY"] = str(delay)
        self.settings.write_text(json.dumps(settings))
        return {  # the settings too, for tests that look at the logs they name
            "PATH": f"{self.bin}{os.pathsep}{real_programs(self.root / 'sysbin')}",
            "NASTUI_ROOT_TOOLS": "path",  # the fake smartctl answers for the fake --root tree
            **settings,
        }

    def calls(self) -> list[list[str]]:
        """Every argv the fake was run with (without "smartctl")."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]

    def woken(self) -> list[str]:
        """Devices a call without `-n standby` woke."""
        return self.wakes.read_text().split() if self.wakes.exists() else []


HEALTHY = "linuxhw_enterprise/HDD__HGST__HUS726040ALE614__73832C26B317.txt"
PENDING = "linuxhw_enterprise/HDD__HGST__HUS726060ALE614__92E40E58393E.txt"
SAS_ALL = "pysmart/singletests/sas_hdd_0_issue_51/_-d_scsi_--all__dev_sdc"
SAS_BACKGROUND = "pysmart/singletests/sas_hdd_0_issue_51/_-d_scsi_-l_background__dev_sdc"


@dataclass
class FakeBox:
    """A small NAS for end-to-end tests: its /sys tree, configuration and environment."""

    root: Path
    config: Path
    env: dict[str, str]

    @property
    def where(self) -> list[str]:
        """The global options that read this box."""
        return ["--root", str(self.root), "--config", str(self.config)]


def fake_box(tmp_path: Path) -> FakeBox:
    """Four drives in a desktop-4 chassis: sda healthy (bay 0, drivetemp 31 °C), sdb with pending
    sectors (bay 2), sdc on SAS in SES enclosure slot 1 (bay 1, placed by the enclosure), sdd in
    standby (bay 3); a fake smartctl answers each with a real report."""
    disks = [
        FakeDisk("sda", SATA_PARENT.format(n=0), model="HGST HUS726040AL",
                 by_id=["ata-HGST_HUS726040ALE614_SERA"], temp_millic=31000),
        FakeDisk("sdb", SATA_PARENT.format(n=1), model="HGST HUS726060AL",
                 by_id=["ata-HGST_HUS726060ALE614_SERB"]),
        FakeDisk("sdc", SAS_PARENT.format(h=2, n=5), vendor="HGST", model="HUH721212AL4204",
                 vpd_serial="8DG3J2ZD"),
        FakeDisk("sdd", SATA_PARENT.format(n=3), model="HGST HUS726040AL",
                 by_id=["ata-HGST_HUS726040ALE614_SERD"]),
    ]  # fmt: skip
    root = build(tmp_path / "root", disks)
    add_enclosure(root, {0: None, 1: "sdc"}, host=2)
    (root / "etc").mkdir()
    (root / "etc/hostname").write_text("fakebox\n")
    config = tmp_path / "config.toml"
    config.write_text(
        '[chassis]\npreset = "desktop-4"\n'
        '[[chassis.bay]]\nbay = 0\nserial = "SERA"\n'
        '[[chassis.bay]]\nbay = 2\nserial = "SERB"\n'
        '[[chassis.bay]]\nbay = 3\nserial = "SERD"\n'
    )
    smart = SmartBox(tmp_path / "smart")
    smart.drive("sda", HEALTHY)
    smart.drive("sdb", PENDING)
    smart.drive("sdc", SAS_ALL, kind="scsi")
    smart.answer("_-d_scsi_-l_background__dev_sdc", SAS_BACKGROUND)
    env = {**smart.env(standby=["sdd"]), "NASTUI_STATE_DIR": str(tmp_path / "state")}
    return FakeBox(root, config, env)
