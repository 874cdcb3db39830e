"""`nastui status` as a monitoring plugin runs it: acknowledgements count,
absent stacks and virtual disks are not UNKNOWN, performance data follows the guidelines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nastui.sim import SCENARIOS
from tests.cli.test_cli import nastui
from tests.fakesys import SATA_PARENT, VIRTIO_PARENT, FakeDisk, build
from tests.smartbox import SmartBox

# 'label'=value[UOM];[warn];[crit];[min];[max], the label quoted, made of safe characters
PERF_ITEM = re.compile(r"^'[A-Za-z0-9_.:-]+'=-?[0-9.]+(?:[A-Za-z%]+)?(?:;[0-9.]*){0,4}$")
# Sample: this VM's /proc/diskstats line for vda (kernel 6.x, 17 fields after the name)
DISKSTATS = (
    " 254       0 vda 654957 15889 34013522 117215 421708 129053 36293136 242453 0 51124 "
    "363357 27312 19 2062952 2961 12288 726\n"
    "   8      16 sdb 1 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
)
SCSI_PARENT = "devices/pci0000:00/0000:00:10.0/host{n}/target{n}:0:0/{n}:0:0:0"


def perf_items(text: str) -> list[str]:
    """Every performance-data item of a plugin output (first line and long output)."""
    lines = text.splitlines()
    items = lines[0].split(" | ", 1)[1].split()
    for i, line in enumerate(lines[1:], 1):
        if " | " in line:
            items += line.split(" | ", 1)[1].split()
            items += [w for rest in lines[i + 1 :] for w in rest.split()]
            break
    return items


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_acknowledging_every_alert_makes_status_ok(scenario: str, tmp_path: Path) -> None:
    """Every standing alert of the scenario acknowledged by its key through `alert ack`, in
    the demo's state directory: `status` then exits 0 (the alerts are still listed)."""
    env = {"NASTUI_STATE_DIR": str(tmp_path / "state")}
    before = nastui("status", "--scenario", scenario, "--json", env=env)
    data = json.loads(before.stdout)
    assert before.returncode == data["exit_code"]
    keys = [a["key"] for a in data["alerts"] if not a["acknowledged"]]
    for key in keys:
        acked = nastui("alert", "ack", key, "--scenario", scenario, env=env)
        assert acked.returncode == 0, (key, acked.stderr)
    after = nastui("status", "--scenario", scenario, env=env)
    assert after.returncode == 0, after.stdout
    assert after.stdout.startswith("NASTUI OK - ")
    assert after.stdout.count("(acknowledged)") == len(data["alerts"])
    if keys:
        assert (tmp_path / "state/acks.json").is_file()


def test_demo_acks_never_touch_the_machines_state(tmp_path: Path) -> None:
    """Without NASTUI_STATE_DIR the demo keeps its acknowledgements per user and scenario
    (0700), not in /var/lib/nastui, and `smart ack` counts for `status` like `alert ack`."""
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_STATE_HOME": "", "NASTUI_STATE_DIR": ""}
    before = nastui("status", "--scenario", "failing-drive", "--json", env=env)
    drive_keys = [a["key"] for a in json.loads(before.stdout)["alerts"] if "drive:" in a["key"]]
    assert drive_keys
    done = nastui("smart", "ack", "10", "--scenario", "failing-drive", env=env)
    assert done.returncode == 0, done.stderr
    where = home / ".local/state/nastui/demo/failing-drive"
    assert (where / "acks.json").is_file()
    assert where.stat().st_mode & 0o777 == 0o700
    after = json.loads(nastui("status", "--scenario", "failing-drive", "--json", env=env).stdout)
    acked = {a["key"]: a["acknowledged"] for a in after["alerts"]}
    assert all(acked[k] for k in drive_keys if k.split(":")[-2:][0] in ("attr", "selftest"))
    other = nastui("status", "--scenario", "hot-bay", "--json", env=env)
    assert not (home / ".local/state/nastui/demo/hot-bay/acks.json").exists()
    assert other.returncode == 2


def virtual_box(tmp_path: Path) -> tuple[Path, Path]:
    """A VM: a virtio disk and a VMware SCSI disk, neither with SMART, no pools."""
    disks = [
        FakeDisk("vda", VIRTIO_PARENT.format(n=1), vendor="0x1af4", model=None),
        FakeDisk("sdb", SCSI_PARENT.format(n=2), vendor="VMware", model="Virtual disk"),
    ]
    root = build(tmp_path / "root", disks)
    (root / "etc").mkdir()
    (root / "etc/hostname").write_text("vm\n")
    (root / "proc").mkdir()
    (root / "proc/diskstats").write_text(DISKSTATS)  # sdb's line serves any sdX
    config = tmp_path / "config.toml"
    config.write_text("# no [chassis]: a VM has no bays\n")
    return root, config


def test_a_vm_with_virtual_disks_and_no_pools_is_ok(tmp_path: Path) -> None:
    """The tree is not this machine: none of this machine's programs runs against it (its
    zpool, btrfs and smartctl would answer for the host, not the tree), and `status -v` says
    so; the VM is OK with or without smartctl, its disks having no SMART anyway."""
    root, config = virtual_box(tmp_path)
    result = nastui("--root", str(root), "--config", str(config), "status")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("NASTUI OK - vm: 2 drives, 0 pools, all OK | ")
    assert "virtual" not in result.stdout and "zpool" not in result.stdout
    verbose = nastui("--root", str(root), "--config", str(config), "--debug", "status", "-v")
    assert verbose.returncode == 0
    lines = verbose.stdout.splitlines()
    assert "zfs      off: zpool not run under --root, no zfs module" in lines
    assert "btrfs    off: btrfs not run under --root, no btrfs filesystem" in lines
    ran = [line for line in verbose.stderr.splitlines() if "nastui.collectors.runner" in line]
    assert ran and all("not run under --root" in line for line in ran), ran
    assert "md       off: no /proc/mdstat (md module not loaded)" in lines
    notes = [line for line in lines if "virtual disk: no SMART" in line]
    assert sorted(n.split(":")[0] for n in notes) == ["sdb", "vda"]  # once each
    data = json.loads(
        nastui("--root", str(root), "--config", str(config), "status", "--json").stdout
    )
    assert {c["name"]: c["state"] for c in data["collectors"]} == {
        "zfs": "off",
        "md": "off",
        "btrfs": "off",
    }
    assert data["alerts"] == [] and data["exit_code"] == 0


def test_ignore_rules_silence_a_drive(tmp_path: Path) -> None:
    """A configured bay whose drive is there but unreadable is UNKNOWN; an ignore rule for
    its model silences it (shown in --verbose as ignored)."""
    disks = [FakeDisk("sdb", SATA_PARENT.format(n=0), model="WDC WD40EFRX-68", temp_millic=30000)]
    root = build(tmp_path / "root", disks)
    (root / "proc").mkdir()
    (root / "proc/diskstats").write_text(DISKSTATS)
    config = tmp_path / "config.toml"
    config.write_text("")
    env = SmartBox(tmp_path / "smart").env()  # a smartctl with no answer: this drive unread
    plain = nastui("--root", str(root), "--config", str(config), "status", env=env)
    assert plain.returncode == 3, plain.stdout  # no SMART from a fake tree: UNKNOWN
    config.write_text('[[collectors.ignore]]\nmodel = "WDC WD40EFRX*"\nfindings = ["no-smart"]\n')
    quiet = nastui("--root", str(root), "--config", str(config), "status", "--verbose", env=env)
    assert quiet.returncode == 0, quiet.stdout
    assert "(ignored)" in quiet.stdout


def test_perfdata_follows_the_plugin_guidelines(tmp_path: Path) -> None:
    result = nastui("status", "--scenario", "mixed", env={"NASTUI_STATE_DIR": str(tmp_path)})
    items = perf_items(result.stdout)
    assert all(PERF_ITEM.match(i) for i in items), [i for i in items if not PERF_ITEM.match(i)]
    names = {i.split("=")[0].strip("'") for i in items}
    assert {"drives", "pools", "hottest"} <= names
    temps = [i for i in items if i.startswith("'temp_")]
    assert len(temps) == 12  # every drive (bay 11's is missing: no drive, no item)
    assert re.match(r"^'temp_bay\d+'=\d+C;\d+;\d+$", temps[0])
    usage = [i for i in items if re.match(r"^'pool_[a-z]+'=", i)]  # md0 (unmounted): none
    assert [u.split("=")[0] for u in usage] == ["'pool_tank'", "'pool_fast'"]
    assert all(re.match(r"^'pool_[a-z]+'=[0-9.]+%;80;90;0;100$", u) for u in usage)
    assert "'temp_nvme0n1'=37C;70;80" in items  # NVMe limits, not the HDD ones
    assert result.stdout.count(" | ") == 2  # the first line, and the long output's perfdata


def test_a_pipe_in_any_text_never_breaks_the_output(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('hostname = "nas|1"\n')
    result = nastui("--config", str(config), "status", "--scenario", "failing-drive")
    first = result.stdout.splitlines()[0]
    assert first.startswith("NASTUI CRITICAL - nas/1: ")
    assert first.count("|") == 1
    assert all(PERF_ITEM.match(i) for i in perf_items(result.stdout))


def test_capacity_limits_come_from_the_configuration(tmp_path: Path) -> None:
    """The mixed scenario's pools against a 30 % warning: capacity alerts, one per pool."""
    config = tmp_path / "config.toml"
    config.write_text("[pools]\ncapacity_warning = 30\ncapacity_critical = 95\n")
    env = {"NASTUI_STATE_DIR": str(tmp_path / "state")}
    result = nastui("--config", str(config), "status", "--scenario", "mixed", "--json", env=env)
    data = json.loads(result.stdout)
    over = [p for p in data["pools"] if (p["used_percent"] or 0) >= 30]
    assert over
    capacity = {a["key"]: a["message"] for a in data["alerts"] if a["key"].endswith(":capacity")}
    assert set(capacity) == {f"pool:{p['name']}:capacity" for p in over}
    assert all(m.endswith("full (warning 30%)") for m in capacity.values())
