"""Why SMART could not be read, from real smartctl runs captured on this project's test machine
(tests/fixtures/smartctl/local) and, where smartctl is installed, from running it for real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nastui.collectors.runner import CommandResult, run
from nastui.collectors.smart.errors import problem_of
from nastui.model import Transport
from tests.conftest import require_tool
from tests.smartbox import SMART

LOCAL = SMART / "local"


def captured(name: str) -> CommandResult:
    record = json.loads((LOCAL / f"{name}.json").read_text())
    return CommandResult(
        tuple(record["argv"]), record["returncode"], record["stdout"], record["stderr"], 0.1
    )


def test_permission_denied_as_a_user_means_run_as_root() -> None:
    problem = problem_of(
        captured("open-permission-denied-user"),
        path="/dev/vda",
        transport=Transport.SATA,
        euid=1000,
    )
    assert problem is not None and problem.host_wide
    assert problem.text == (
        "SMART not read: smartctl needs root to open the drives (permission denied): "
        "run nastui as root"
    )


def test_not_permitted_as_root_is_a_container_without_disk_access() -> None:
    for name in ("open-not-permitted-root", "nvme-on-virtio"):
        problem = problem_of(captured(name), path="/dev/vda", transport=Transport.SATA, euid=0)
        assert problem is not None and not problem.host_wide
        assert "not permitted even as root" in problem.text


def test_a_vanished_device() -> None:
    problem = problem_of(
        captured("open-no-such-device"), path="/tmp/nastui-no-such-disk", transport=Transport.SATA
    )
    assert problem is not None and "is gone" in problem.text and "No such device" in problem.text


def test_a_file_in_a_captured_tree_is_not_a_device_node() -> None:
    problem = problem_of(
        captured("regular-file"), path="/tmp/regular.img", transport=Transport.SATA, is_device=False
    )
    assert problem is not None
    assert problem.text.startswith("SMART not read: /tmp/regular.img is not a device node")


def test_a_real_device_refusing_smart_commands() -> None:
    problem = problem_of(captured("regular-file"), path="/dev/sdz", transport=Transport.SATA)
    assert problem is not None and "refuses SMART commands" in problem.text


def test_usb_bridge_that_hides_smart() -> None:
    result = CommandResult(
        ("smartctl",), 1,
        "/dev/sdc: Unknown USB bridge [0x0bc2:0x2322 (0x100)]\n"
        "Please specify device type with the -d option.\n", "", 0.1,
    )  # fmt: skip
    problem = problem_of(result, path="/dev/sdc", transport=Transport.USB)
    assert problem is not None and "USB bridge does not pass SMART through" in problem.text


def test_timeouts_missing_tool_and_reports() -> None:
    hung = CommandResult(("smartctl",), None, "", "", 22.0, timed_out=True)
    assert "timed out after 22 s" in problem_of(hung, path="/dev/sda", transport=Transport.SAS).text  # type: ignore[union-attr]
    gone = CommandResult(
        ("smartctl",), 127, "", "", 0.0, error="smartctl not found (is it installed and on PATH?)"
    )
    missing = problem_of(gone, path="/dev/sda", transport=Transport.SATA)
    assert missing is not None and missing.host_wide and "install smartmontools" in missing.text
    standby = CommandResult(("smartctl",), 2, "Device is in STANDBY mode, exit(2)\n", "", 0.1)
    assert problem_of(standby, path="/dev/sda", transport=Transport.SATA, is_device=False) is None
    report = (SMART / "pysmart/singletests/sata_hdd_0_issue42/_-d_ata_--all__dev_sdau").read_text()
    assert (
        problem_of(
            CommandResult(("smartctl",), 0, report, "", 0.1),
            path="/dev/sda",
            transport=Transport.SATA,
        )
        is None
    )


@pytest.mark.integration
async def test_real_smartctl_on_a_file_and_on_a_missing_device(tmp_path: Path) -> None:
    smartctl = require_tool("smartctl", "smartmontools")
    image = tmp_path / "disk.img"
    image.write_bytes(b"\0" * 65536)
    on_file = await run((smartctl, "-n", "standby", "-d", "sat", "--all", str(image)), timeout=20)
    problem = problem_of(on_file, path=str(image), transport=Transport.SATA, is_device=False)
    assert problem is not None and "is not a device node" in problem.text
    gone = tmp_path / "no-such-disk"
    missing = await run((smartctl, "-n", "standby", "-d", "sat", "--all", str(gone)), timeout=20)
    assert (missing.returncode or 0) & 0x02  # smartctl's exit bit 1: open failed
    problem = problem_of(missing, path=str(gone), transport=Transport.SATA)
    assert problem is not None and "is gone" in problem.text
