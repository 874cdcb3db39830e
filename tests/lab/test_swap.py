"""Scenario 2 (and 5): the drive swap for real, on the hot-swap bays, with QMP as the hands.

`nastui swap start 9` on a redundant group over bays 7-12; QMP pulls the WRONG bay (11) first:
CRITICAL in `nastui status` (exit 2, `swap:wrong-pull:11`) and a notice from `nastui daemon
--once` through an exec hook; bay 11 goes back, bay 9 comes out (the swap's own open bay is a
WARNING, not a missing-bay CRITICAL), a new disk goes in at the same SCSI target, `swap replace
--confirm SERIAL` runs the tool by the new disk's stable name, the rebuild is followed (the new
disk throttled so it is seen running) to done, and bay 9 is rebound to the new serial in the
configuration. Bay 11 is bound by its by-path name: after its pull and insert it shows its
drive again (scenario 5). ZFS raidz2, md raid6 and btrfs raid1, in `make lab-full`; btrfs
without the wrong pull: a mounted btrfs never takes a pulled device back (it stays missing
until a remount, and nastui's swap says ANOTHER MEMBER FAILED, as it should).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest

from tests.lab.conftest import bay_path
from tests.lab.guest import Guest, Result
from tests.lab.qemu import default_bays

pytestmark = [pytest.mark.integration, pytest.mark.full, pytest.mark.timeout(3600)]
OLD, WRONG = 9, 11
BAYS = tuple(range(7, 13))
SLOW = 64 * 1024  # bytes/s on the new disk while it rebuilds: the rebuild is seen running
CONFIG = "/lab/swap.toml"
NOTICES = "/lab/notices.jsonl"


@dataclass(frozen=True)
class Stack:
    """One pool kind's part of the swap: how it is built and how its own tools see it."""

    name: str
    setup: str  # builds the group on bays 7-12 (ids in $ids, devices in $devs)
    pool: str  # its name in nastui
    truth: str  # what the kernel's tools say about it
    after_reinsert: str | None  # what an operator runs when the wrong drive is back; None:
    # no wrong pull (a mounted btrfs never takes a pulled device back: it stays missing)
    wait_rebuild: str


ZFS = Stack(
    "zfs",
    "zpool create -f -o cachefile=none -O compression=off tank raidz2 $ids\n"
    "dd if=/dev/urandom of=/tank/data bs=1M count=32 status=none && zpool sync tank",
    "tank",
    "zpool status -p tank; zpool history tank | grep -E 'offline|replace' || true",
    f"zpool online tank $(basename $(bay_id {WRONG}))",
    "zpool wait -t resilver tank",
)
MD = Stack(
    "md",
    "mdadm --create /dev/md6 --run --quiet --assume-clean -l6 -n6 --bitmap=none $devs\n"
    "dd if=/dev/urandom of=/dev/md6 bs=1M count=32 status=none",
    "md6",
    "cat /proc/mdstat; mdadm --detail /dev/md6",
    f"mdadm /dev/md6 --re-add $(bay_dev {WRONG}) || mdadm /dev/md6 --add $(bay_dev {WRONG})",
    "mdadm --wait /dev/md6 || true",
)
BTRFS = Stack(
    "btrfs",
    "mkfs.btrfs -q -f -d raid1 -m raid1 $devs && mkdir -p /mnt/b && mount $(bay_dev 7) /mnt/b\n"
    "dd if=/dev/urandom of=/mnt/b/data bs=1M count=32 status=none && sync",
    "/mnt/b",
    "btrfs filesystem show /mnt/b; btrfs replace status -1 /mnt/b || true",
    None,
    "while btrfs replace status -1 /mnt/b | grep -q started; do sleep 2; done",
)


def swap_config(old_serial: str) -> str:
    """Every bay bound by by-path but bay 9 by serial (the swap rebinds it); an exec hook
    that keeps every notice the daemon sends."""
    bays = "".join(
        f"[[chassis.bay]]\nbay = {b.number}\n"
        + (
            f'serial = "{old_serial}"\n\n'
            if b.number == OLD
            else f'by_path = "{bay_path(b.number)}"\n\n'
        )
        for b in default_bays()
    )
    return (
        'hostname = "nastui-lab"\n\n[chassis]\npreset = "2u-12"\nfirst = 1\n\n'
        f"{bays}[poll]\ncommand_timeout = 120\n\n"
        f'[alerts]\nexec = ["/bin/sh", "-c", "cat >>{NOTICES}"]\n'
    )


def nastui(lab: Guest, args: str, *, timeout: float = 600.0) -> Result:
    return lab.sh(f"export NASTUI_CONFIG={CONFIG}\nnastui {args}", check=False, timeout=timeout)


def swap_json(lab: Guest) -> dict[str, Any]:
    result = nastui(lab, "swap status --json")
    swap: dict[str, Any] = result.json()["swap"]
    assert swap is not None, result
    return swap


def run_swap(lab: Guest, stack: Stack) -> None:
    lab.refill()
    old_serial, wrong_serial = lab.slots[OLD].serial, lab.slots[WRONG].serial
    new_serial = f"LABNEW{stack.name.upper()}"
    (lab.share / "swap.toml").write_text(swap_config(old_serial))
    built = lab.sh(
        f"""
        set -e
        lab_reset
        rm -rf {NOTICES} /var/lib/nastui  # a box of its own: no swap, alert book or history
        ids=""; devs=""
        for bay in {" ".join(map(str, BAYS))}; do
            ids="$ids $(bay_id $bay)"; devs="$devs $(bay_dev $bay)"
        done
        {stack.setup}
        """,
        timeout=900,
    )
    assert built.rc == 0, built

    started = nastui(lab, f"swap start {OLD}")
    assert started.rc == 0, started
    prepared = lab.sh(f"{stack.truth}; echo old=$(basename $(bay_dev {OLD}))").out
    old_dev = prepared.rsplit("old=", 1)[1].strip()
    if stack is ZFS:
        assert re.search(rf"{old_serial}\s+OFFLINE", prepared), prepared
    if stack is MD:  # failed and removed: no longer a member
        assert re.search(r"md6 : active raid6", prepared) and f"{old_dev}[" not in prepared, (
            prepared
        )

    if stack.after_reinsert is not None:
        wrong_pull(lab, stack.after_reinsert)
    lab.pull(OLD)
    lab.sh("udevadm settle")
    rest_of_swap(lab, stack, old_serial, wrong_serial, new_serial)


def wrong_pull(lab: Guest, after_reinsert: str) -> None:
    """The wrong bay out: CRITICAL in status, a notice from the daemon; then back in."""
    lab.pull(WRONG)
    lab.sh("udevadm settle")
    status = nastui(lab, "status --json")
    assert status.rc == 2, status
    body = status.json()
    # status explains the CRITICAL in its swap lines, under the daemon's key
    assert body["swap"] and f"WRONG DRIVE PULLED: bay {WRONG}" in body["swap"][0], body["swap"]
    keys = {a["key"] for a in body["alerts"]}
    assert f"swap:wrong-pull:{WRONG}" in keys and f"bay:{WRONG}:missing" not in keys, keys
    assert body["state"] == "CRITICAL", body["summary"]
    daemon = nastui(lab, "daemon --once")
    assert daemon.rc == 0, daemon
    notices = lab.sh(f"cat {NOTICES}").out
    assert f"swap:wrong-pull:{WRONG}" in notices, notices

    lab.insert(WRONG)  # the same disk back, same serial
    lab.sh(f"udevadm settle; sleep 2; {after_reinsert}")


def rest_of_swap(
    lab: Guest, stack: Stack, old_serial: str, wrong_serial: str, new_serial: str
) -> None:
    """From the right pull to the bay rebound."""
    swap = swap_json(lab)
    assert swap["phase"] == "pulled" and not swap["wrong_pulls"], swap
    status = nastui(lab, "status --json")
    keys = {a["key"]: a["health"] for a in status.json()["alerts"]}
    assert keys.get(f"swap:bay-open:{OLD}") == "WARNING" and f"bay:{OLD}:missing" not in keys, keys
    assert status.rc == 1, status

    lab.insert(OLD, new_serial)
    lab.sh("udevadm settle")
    swap = swap_json(lab)
    assert swap["phase"] == "inserted" and swap["new"]["serial"] == new_serial, swap
    assert not [f for f in swap["findings"] if f.startswith("!")], swap["findings"]

    lab.throttle(OLD, write=SLOW)
    replaced = nastui(lab, f"swap replace --confirm {new_serial}")
    assert replaced.rc == 0, replaced
    assert new_serial in replaced.out and "/dev/disk/by-" in replaced.out, replaced
    swap = swap_json(lab)
    assert swap["phase"] in ("replacing", "rebuilding", "done"), swap  # btrfs may be done

    lab.throttle(OLD)  # before reading the pool's history: it waits for the throttled writes
    truth = lab.sh(stack.truth).out
    if stack is ZFS:
        assert re.search(rf"zpool replace tank \S+ /dev/disk/by-id/\S*{new_serial}", truth), truth
    lab.sh(stack.wait_rebuild, timeout=900)
    if swap["phase"] != "done":  # once seen done, the swap is in the log: status says none
        swap = swap_json(lab)
    assert swap["phase"] == "done", swap
    bays = {b["bay"]: b for b in nastui(lab, "bays --json").json()["bays"]}
    assert bays[OLD]["drive"]["serial"] == new_serial, bays[OLD]
    assert bays[WRONG]["drive"]["serial"] == wrong_serial, bays[WRONG]  # by-path: back in place
    config = (lab.share / "swap.toml").read_text()
    assert f'serial = "{new_serial}"' in config, config
    log = json.dumps(swap["events"])
    assert "pulled" in log and f"new drive {new_serial}" in log.replace("QEMU HARDDISK ", ""), log


def test_zfs_swap(lab: Guest) -> None:
    run_swap(lab, ZFS)


def test_md_raid6_swap(lab: Guest) -> None:
    run_swap(lab, MD)


def test_btrfs_raid1_swap(lab: Guest) -> None:
    run_swap(lab, BTRFS)
