"""`nastui drives`, `nastui smart explain|ack` and `nastui locate`, run as commands on a
fake /sys tree with a fake `smartctl` first on PATH that replays real captured reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ledbox import pull, tree_digest
from tests.smartbox import PENDING, SMART, fake_box


def nastui(
    *argv: str, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "NO_COLOR": "1", **env}
    full.pop("NASTUI_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv],
        capture_output=True, text=True, env=full, input=stdin, timeout=90, check=False,
    )  # fmt: skip


@pytest.fixture
def box(tmp_path: Path) -> tuple[list[str], dict[str, str], Path]:
    made = fake_box(tmp_path)
    return made.where, made.env, tmp_path


def test_drives_lists_bay_identity_power_temperature_and_reasons(
    box: tuple[list[str], dict[str, str], Path],
) -> None:
    where, env, _ = box
    result = nastui(*where, "drives", env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "fakebox: 4 drives, 0 standby wake-ups caused by nastui"
    assert lines[1].split() == ["BAY", "DEV", "MODEL", "SERIAL", "POWER", "TEMP", "HEALTH"]
    rows = {
        line.split()[1]: line
        for line in lines[2:]
        if line.split() and line.split()[1].startswith("sd")
    }
    assert rows["sda"].split()[0] == "0" and rows["sda"].endswith("OK")
    assert "31°C" in rows["sda"]  # drivetemp wins over smartctl's 24
    assert rows["sdb"].split()[0] == "2" and rows["sdb"].endswith("CRIT")
    assert rows["sdc"].split()[0] == "1"  # placed by its SES slot
    assert "standby" in rows["sdd"] and rows["sdd"].endswith("STBY")
    assert "    ! Current_Pending_Sector 16" in result.stdout
    assert "? in standby, SMART not read yet" in result.stdout


def test_drives_json(box: tuple[list[str], dict[str, str], Path]) -> None:
    where, env, _ = box
    data = json.loads(nastui(*where, "drives", "--json", env=env).stdout)
    assert data["host"] == "fakebox" and data["wakeups"] == 0
    sdb = next(d for d in data["drives"] if d["dev"] == "sdb")
    assert sdb["bay"] == 2 and sdb["health"] == "CRITICAL" and sdb["smart_passed"] is True
    finding = next(f for f in sdb["findings"] if f["key"] == "attr:197")
    assert finding == {
        "health": "WARNING",
        "text": "Current_Pending_Sector 16",
        "key": "attr:197",
        "value": 16,
        "acknowledged": False,
    }
    sdc = next(d for d in data["drives"] if d["dev"] == "sdc")
    assert sdc["enclosure_slot"] == "500304801f3ae07f:1" and sdc["power_on_hours"] == 3687


def test_ack_makes_a_known_value_the_baseline(box: tuple[list[str], dict[str, str], Path]) -> None:
    where, env, tmp_path = box
    acked = nastui(*where, "smart", "ack", "SERB", "attr:197", "--note", "ordered", env=env)
    assert acked.returncode == 0, acked.stderr
    assert "acknowledged attr:197 at 16: warns again if it grows" in acked.stdout
    assert (tmp_path / "state/acks.json").exists()
    after = nastui(*where, "drives", env=env).stdout
    assert "= Current_Pending_Sector 16 (acknowledged at 16)" in after
    cleared = nastui(*where, "smart", "ack", "sdb", "--clear", env=env)
    assert cleared.returncode == 0 and "1 acknowledgement(s) forgotten" in cleared.stdout
    assert nastui(*where, "smart", "ack", "sdz", env=env).returncode == 64


def test_explain_a_saved_report(tmp_path: Path) -> None:
    text = nastui("smart", "explain", str(SMART / PENDING), env={})
    assert text.returncode == 2
    assert "  health CRITICAL" in text.stdout
    assert "    ! Current_Pending_Sector 16" in text.stdout
    piped = nastui(
        "smart",
        "explain",
        "-",
        "--json",
        env={},
        stdin=(SMART / "scrutiny/smart-scsi.json").read_text(),
    )
    data = json.loads(piped.stdout)
    assert piped.returncode == 1 and data["health"] == "WARNING"
    assert data["reasons"][0]["text"] == "grown defect list: 56 entries"
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n")
    bad = nastui("smart", "explain", str(junk), env={})
    assert bad.returncode == 65 and bad.stderr.startswith(f"nastui: {junk}: not a smartctl report")
    assert nastui("smart", "explain", str(tmp_path / "nope"), env={}).returncode == 64


def test_locate_by_ses_and_off(box: tuple[list[str], dict[str, str], Path]) -> None:
    where, env, _ = box
    locate = Path(where[1]) / "sys/class/enclosure/2:0:24:0/Slot01/locate"
    on = nastui(*where, "locate", "8DG3J2ZD", env=env)
    assert on.returncode == 0, on.stderr
    assert (
        on.stdout.startswith("bay 1 sdc: locate on (SES slot Slot01") and "[ses-sysfs]" in on.stdout
    )
    assert locate.read_text() == "1\n"
    bays = json.loads(nastui(*where, "bays", "--json", env=env).stdout)["bays"]
    assert bays[1]["led"] == "locate"
    off = nastui(*where, "locate", "1", "--off", env=env)
    assert off.returncode == 0 and locate.read_text() == "0\n"


def test_an_empty_bays_led_is_put_out_where_it_was_lit(
    box: tuple[list[str], dict[str, str], Path],
) -> None:
    """Bay 1's LED lit through sdc, then sdc pulled with the LED still lit: `locate 1 --off`
    writes 0 to exactly that slot's file (the rest of the tree checksummed); with nothing left
    on record, the next one says there is nothing to turn off (64)."""
    where, env, _ = box
    root = Path(where[1])
    slot = root / "sys/class/enclosure/2:0:24:0/Slot01/locate"
    assert nastui(*where, "locate", "8DG3J2ZD", env=env).returncode == 0
    assert slot.read_text() == "1\n"
    pull(root, "sdc")
    bays = json.loads(nastui(*where, "bays", "--json", env=env).stdout)["bays"]
    assert (bays[1]["drive"], bays[1]["led"]) == (None, "locate")  # shown lit, empty
    rest = tree_digest(root, skip=(slot,))
    off = nastui(*where, "locate", "1", "--off", env=env)
    assert off.returncode == 0, off.stderr
    assert off.stdout == (
        f"bay 1 (empty): locate off (SES slot of enclosure 500304801f3ae07f: {slot}) [ses-sysfs]\n"
    )
    assert slot.read_text() == "0\n" and tree_digest(root, skip=(slot,)) == rest
    bays = json.loads(nastui(*where, "bays", "--json", env=env).stdout)["bays"]
    assert bays[1]["led"] != "locate"
    again = nastui(*where, "locate", "1", "--off", env=env)
    assert again.returncode == 64
    assert again.stderr == (
        "nastui: bay 1: no drive in it and no locate LED lit by nastui on record: nothing to "
        "turn off as far as nastui knows; check the enclosure's slot "
        "(`cat /sys/class/enclosure/*/SLOT/locate`, or `sg_ses --page=aes /dev/sgN`) [none]\n"
    )
    assert tree_digest(root, skip=(slot,)) == rest and slot.read_text() == "0\n"


@pytest.mark.parametrize("name", ["8DG3J2ZD", "sdc", "/dev/sdc"])
def test_a_pulled_drive_is_named_by_its_serial_or_kernel_name(
    box: tuple[list[str], dict[str, str], Path], name: str
) -> None:
    """`locate SERIAL --off` (or its old `sdc`) for a drive pulled with its LED lit finds the
    bay through nastui's record of the LED; lighting an unknown name still refuses (64)."""
    where, env, _ = box
    root = Path(where[1])
    slot = root / "sys/class/enclosure/2:0:24:0/Slot01/locate"
    assert nastui(*where, "locate", "8DG3J2ZD", env=env).returncode == 0
    pull(root, "sdc")
    rest = tree_digest(root, skip=(slot,))
    assert nastui(*where, "locate", name, env=env).returncode == 64  # not there to light
    off = nastui(*where, "locate", name, "--off", env=env)
    assert off.returncode == 0, off.stderr
    assert off.stdout.startswith("bay 1 (empty): locate off (SES slot")
    assert slot.read_text() == "0\n" and tree_digest(root, skip=(slot,)) == rest
    assert nastui(*where, "locate", name, "--off", env=env).returncode == 64  # nothing left


def test_locate_failures_and_the_blink(box: tuple[list[str], dict[str, str], Path]) -> None:
    where, env, _ = box
    assert nastui(*where, "locate", "sdz", env=env).returncode == 64
    tools = {**env, "PATH": env["PATH"].split(os.pathsep)[0]}  # only the fake smartctl: no ledctl
    failed = nastui(*where, "locate", "sda", "--method", "ledctl", env=tools)
    assert failed.returncode == 69
    assert "ledctl: not installed (apt-get install ledmon)" in failed.stderr
    (Path(where[1]) / "dev/sda").write_bytes(b"\0" * (2 << 20))
    blink = nastui(*where, "locate", "sda", "--method", "activity-blink", "--seconds", "1", env=env)
    assert blink.returncode == 0, blink.stderr
    assert "[activity-blink]" in blink.stdout and "blinking: Ctrl-C stops it" in blink.stdout


def test_demo_drives_and_locate() -> None:
    drives = nastui("drives", "--demo", env={})
    assert drives.returncode == 0 and drives.stdout.startswith("nano: 24 drives\n")
    located = nastui("locate", "3", "--demo", env={})
    assert located.returncode == 0 and "(simulated) [sim]" in located.stdout
