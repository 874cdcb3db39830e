"""`nastui config init`: the example configuration with this box's hardware as comments."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nastui.cli.configinit import ChipFans, default_path, detected_block
from nastui.config import load_config
from nastui.config.example import example_text
from nastui.model import HostSnapshot
from tests.cli.test_cli import fake_box
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
    # Numbered like the chassis (the demo's RV-4324 from 0), each drive the bay it is seen in,
    # bound by its controller port (the demo's SAS phys) where it has one.
    assert (
        '#[[chassis.bay]]\n#bay = 0\n#by_path = "pci-0000:01:00.0-sas-phy0-lun-0"'
        "  # now PK2331PB95FOVP\n"
    ) in text
    assert '#bay = 23\n#by_path = "pci-0000:03:00.0-sas-phy7-lun-0"' in text
    assert "#   storage      zfs    ONLINE\n" in text
    assert text.endswith((REPO / "config.example.toml").read_text())
    assert target.stat().st_mode & 0o777 == 0o644
    load_config(target)  # comments only: the example stays valid
    checked = nastui("--demo", "config", "check", str(target))
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


@pytest.mark.host  # `config init` without --demo writes what it finds on this machine
def test_the_default_location_is_created(tmp_path: Path) -> None:
    target = tmp_path / "etc" / "nastui" / "config.toml"
    env = {**os.environ, "NASTUI_CONFIG": str(target)}
    argv = [sys.executable, "-m", "nastui", "config", "init"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert target.read_text().endswith(example_text() or "missing")


def test_the_demo_writes_its_default_into_its_own_state(tmp_path: Path) -> None:
    # Not $NASTUI_CONFIG, not /etc/nastui as root: the demo's drives are not this box's.
    real = tmp_path / "etc" / "nastui" / "config.toml"
    state = tmp_path / "state"
    env = {**os.environ, "NASTUI_CONFIG": str(real), "XDG_STATE_HOME": str(state)}
    argv = [sys.executable, "-m", "nastui", "--demo", "config", "init"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    written = state / "nastui" / "demo" / "healthy-24-bay" / "config.toml"
    assert done.stdout.startswith(f"wrote {written}: ")
    assert written.read_text().startswith("# Found on nano")
    assert not real.parent.exists()


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


def alerts(*argv: str, env: dict[str, str]) -> tuple[int, list[str]]:
    done = nastui(*argv, "status", "--json", env=env)
    return done.returncode, sorted(a["key"] for a in json.loads(done.stdout)["alerts"])


@pytest.mark.parametrize(
    "demo", [["--demo"], pytest.param([], marks=pytest.mark.host)], ids=["demo", "this-box"]
)
def test_the_file_written_adds_no_alert_on_the_box_it_runs_on(
    demo: list[str], tmp_path: Path
) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "nothing")}
    target = tmp_path / "config.toml"
    assert nastui(*demo, "config", "init", str(target), env=env).returncode == 0
    assert alerts(*demo, "--config", str(target), env=env) == alerts(*demo, env=env)
    checked = nastui(*demo, "config", "check", str(target), env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith(f"{target}: OK\n")


def test_the_suggested_bindings_uncommented_are_ok_on_the_demo(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    assert nastui("--demo", "config", "init", str(target)).returncode == 0
    detected, _, example = target.read_text().partition("\n\n\n")
    live = re.sub(r"(?m)^#(\[\[chassis\.bay\]\]|bay = |serial = |by_path = )", r"\1", detected)
    target.write_text(f"{example}\n{live}\n")
    # Each binding names the drive the demo has in that bay: nothing missing, nothing moved.
    config = load_config(target)
    assert [b.bay for b in config.chassis.bindings] == list(range(24))
    checked = nastui("--demo", "config", "check", str(target))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "24 bound to drives" in checked.stdout
    status = nastui("--demo", "--config", str(target), "status")
    assert status.returncode == 0, status.stdout


def test_check_agrees_with_status_on_bindings_to_drives_the_box_lacks(tmp_path: Path) -> None:
    # The example as it was: four live bindings to made-up drives, each a CRITICAL in status.
    old = tmp_path / "old.toml"
    bindings = "".join(
        f'[[chassis.bay]]\nbay = {bay}\n{key} = "{value}"\n'
        for bay, key, value in [
            (0, "serial", "PK1334PBHDJ2SR"),
            (1, "by_id", "ata-HGST_HUS724040ALA640_PK2334PBHDJ2ST"),
            (2, "by_path", "pci-0000:03:00.0-sas-phy2-lun-0"),
            (3, "enclosure", "500605b00a1b2c30:3"),
        ]
    )
    old.write_text((REPO / "config.example.toml").read_text() + bindings)
    root, _ = fake_box(tmp_path)  # a machine without those drives; --root runs no program
    status = nastui("--root", str(root), "--config", str(old), "status")
    assert status.returncode == 2 and "configured drive" in status.stdout
    checked = nastui("--root", str(root), "config", "check", str(old))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    first = checked.stdout.splitlines()[0]
    assert first.startswith(f"{old}: valid, but 4 bay binding(s) match no drive on ")
    assert "bay 0 (serial PK1334PBHDJ2SR)" in first and "CRITICAL" in first
