"""`nastui config init`: the example configuration with this box's hardware as comments."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nastui.cli.configinit import ChipFans, default_path, detected_block
from nastui.config import load_config
from nastui.config.example import example_text
from nastui.model import HostSnapshot
from tests.cli.test_export_cli import nastui
from tests.conftest import REPO


def test_writes_the_example_with_the_demo_box_and_checks_clean(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    done = nastui("--demo", "config", "init", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {target}: edit it, then `nastui config check {target}`\n"
    text = target.read_text()
    assert text.startswith("# Found on nano by `nastui config init`")
    assert "#   sda      HGST HUS724040ALA640  serial PK1334PSLX7LS3  3.6 TiB\n" in text
    # bays proposed by controller port (the demo's SAS phys), in port order
    assert (
        '#[[chassis.bay]]\n#bay = 1\n#by_path = "pci-0000:01:00.0-sas-phy0-lun-0"'
        "  # now PK2331PB95FOVP\n"
    ) in text
    assert '#bay = 24\n#by_path = "pci-0000:03:00.0-sas-phy7-lun-0"' in text
    assert "#   storage      zfs    ONLINE\n" in text
    assert text.endswith((REPO / "config.example.toml").read_text())
    assert target.stat().st_mode & 0o777 == 0o644
    load_config(target)  # comments only: the example stays valid
    checked = nastui("config", "check", str(target))
    assert checked.returncode == 0, checked.stderr


def test_never_overwrites_and_never_makes_a_named_directory(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("# mine\n")
    done = nastui("--demo", "config", "init", str(target))
    assert done.returncode == 73
    assert done.stderr == (
        f"nastui: {target} exists and is left alone: check it with `nastui config check "
        f"{target}`, or move it away first\n"
    )
    assert target.read_text() == "# mine\n"
    missing = tmp_path / "nope" / "config.toml"
    done = nastui("--demo", "config", "init", str(missing))
    assert done.returncode == 73
    assert done.stderr == (
        f"nastui: {missing.parent} does not exist: create it first, or name another FILE\n"
    )
    assert not missing.parent.exists()


def test_the_default_location_is_created(tmp_path: Path) -> None:
    target = tmp_path / "etc" / "nastui" / "config.toml"
    env = {**os.environ, "NASTUI_CONFIG": str(target)}
    argv = [sys.executable, "-m", "nastui", "--demo", "config", "init"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert target.read_text().endswith(example_text() or "missing")


def test_stdout() -> None:
    done = nastui("--demo", "config", "init", "-")
    assert done.returncode == 0, done.stderr
    assert "[chassis]" in done.stdout and done.stdout.startswith("# Found on nano")


def test_default_paths() -> None:
    assert default_path({}, 0) == Path("/etc/nastui/config.toml")
    assert default_path({"HOME": "/home/a"}, 1000) == Path("/home/a/.config/nastui/config.toml")
    env = {"HOME": "/home/a", "XDG_CONFIG_HOME": "/x"}
    assert default_path(env, 1000) == Path("/x/nastui/config.toml")
    assert default_path({"NASTUI_CONFIG": "/c.toml"}, 0) == Path("/c.toml")


def test_fans_and_an_empty_box() -> None:
    chips = [
        ChipFans("nct6775", "/sys/devices/platform/nct6775.656", ((1, True), (2, False))),
    ]
    lines = detected_block(HostSnapshot("box", 0.0), chips, 0.0)
    assert "#   none found" in lines  # drives, pools
    assert (
        '#   hwmon_name = "nct6775"  hwmon_device = "/sys/devices/platform/nct6775.656"'
        "  fan1 (pwm = 1)"
    ) in lines
    assert any(line.endswith("fan2 (no pwm: read only)") for line in lines)
