"""Scenario 3: md arrays in every state at once, read by nastui and by the kernel's own files.

On partitions of the bays (md on partitions, as most boxes have it), with md's speed limits
low so each pass is still running when it is read:

- md1, raid1 on bays 1-2: a member failed, removed, wiped and added back: recovering;
- md10, raid10 on bays 3-6, one mirror half overwritten before an --assume-clean create, then
  `check`: running, `mismatch_cnt` growing;
- md6, raid6 on bays 1-3 and a missing member: degraded, nothing to rebuild onto;
- md11, raid10 on bays 4-6 and a missing member: degraded;
- md5, raid5 on bays 7-9 grown to bay 10: a reshape.

One `nastui pools --json` between two reads of /proc/mdstat and /sys/block/md*/md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.lab.guest import Guest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]

SYSFS = (
    "for md in /sys/block/md*/md; do a=$(basename $(dirname $md)); "
    "for f in level array_state degraded raid_disks sync_action sync_completed mismatch_cnt; do "
    'echo "$a $f $(cat $md/$f)"; done; '
    'for d in $md/dev-*; do echo "$a member ${d##*/dev-} $(cat $d/state)"; done; done'
)
TRUTH = {"mdstat": "cat /proc/mdstat", "sysfs": SYSFS}
SETUP = r"""
set -e
lab_reset
echo 50 >/proc/sys/dev/raid/speed_limit_min
echo 300 >/proc/sys/dev/raid/speed_limit_max
for bay in 1 2 3 4 5 6; do printf 'label: gpt\n,200M\n,200M\n' | sfdisk -q $(bay_dev $bay); done
for bay in 7 8 9 10; do printf 'label: gpt\n,200M\n' | sfdisk -q $(bay_dev $bay); done
udevadm settle
p() { echo "$(bay_dev $1)$2"; }
mk() { mdadm --create "$@" --run --assume-clean --metadata=1.2 --bitmap=none --quiet; }
dd if=/dev/urandom of=$(p 3 1) bs=1M count=24 status=none
mk /dev/md1 -l1 -n2 $(p 1 1) $(p 2 1)
mk /dev/md10 -l10 -n4 $(p 3 1) $(p 4 1) $(p 5 1) $(p 6 1)
mk /dev/md6 -l6 -n4 $(p 1 2) $(p 2 2) $(p 3 2) missing
mk /dev/md11 -l10 -n4 $(p 4 2) $(p 5 2) $(p 6 2) missing
mk /dev/md5 -l5 -n3 $(p 7 1) $(p 8 1) $(p 9 1)
mdadm /dev/md1 --fail $(p 2 1) --remove $(p 2 1)
mdadm --zero-superblock $(p 2 1)
mdadm /dev/md1 --add $(p 2 1)
echo check >/sys/block/md10/md/sync_action
mdadm /dev/md5 --add $(p 10 1)
mdadm --grow /dev/md5 --raid-devices=4 --backup-file=/run/md5-grow.bak
sleep 2
cat /proc/mdstat
for bay in $(seq 1 10); do echo "bay $bay $(basename $(bay_dev $bay))"; done
"""
KINDS = {"recover": "recovery", "check": "check", "reshape": "reshape", "resync": "resync"}


@dataclass
class MdTruth:
    """One array as /sys/block/mdX/md says."""

    values: dict[str, str] = field(default_factory=dict)
    members: dict[str, str] = field(default_factory=dict)

    @property
    def percent(self) -> float | None:
        done = re.match(r"(\d+) / (\d+)", self.values.get("sync_completed", ""))
        return 100.0 * int(done[1]) / int(done[2]) if done and int(done[2]) else None


def read_sysfs(text: str) -> dict[str, MdTruth]:
    arrays: dict[str, MdTruth] = {}
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        entry = arrays.setdefault(parts[0], MdTruth())
        if parts[1] == "member":
            dev, state = parts[2].split(" ", 1)
            entry.members[dev] = state
        else:
            entry.values[parts[1]] = parts[2]
    return arrays


def mdstat_percent(text: str) -> dict[str, float]:
    """Each running pass's progress as /proc/mdstat prints it (live; sysfs's is a checkpoint)."""
    found: dict[str, float] = {}
    for block in re.split(r"\n(?=md\d+ :)", text):
        name = re.match(r"(md\d+) :", block)
        done = re.search(r"= *[\d.]+% \((\d+)/(\d+)\)", block)
        if name and done:
            found[name[1]] = 100.0 * int(done[1]) / int(done[2])
    return found


def leaves(vdev: dict[str, Any]) -> list[dict[str, Any]]:
    if not vdev["children"]:
        return [vdev]
    return [leaf for child in vdev["children"] for leaf in leaves(child)]


def test_md_states_against_proc_and_sysfs(lab: Guest) -> None:
    lab.refill()
    built = lab.sh(SETUP, timeout=900)
    dev_bay = {dev: int(bay) for bay, dev in re.findall(r"^bay (\d+) (\S+)$", built.out, re.M)}
    moment = lab.moment(TRUTH, "pools --json")
    assert moment.nastui.rc == 0, moment.nastui
    data = moment.nastui.json()
    assert not data["errors"], data["errors"]
    pools = {p["name"]: p for p in data["pools"] if p["kind"] == "mdraid"}
    before, after = read_sysfs(moment.before["sysfs"]), read_sysfs(moment.after["sysfs"])
    mdstats = (moment.before["mdstat"], moment.after["mdstat"])
    assert set(pools) == set(before) == {"md1", "md5", "md6", "md10", "md11"}, (pools, before)
    expected = {"md1": "recover", "md10": "check", "md5": "reshape", "md6": "idle", "md11": "idle"}
    for name, action in expected.items():
        assert before[name].values["sync_action"] == action == after[name].values["sync_action"], (
            name,
            moment.before["mdstat"],
            moment.after["mdstat"],
        )
    for name, pool in pools.items():
        first, last = before[name], after[name]
        degraded = int(first.values["degraded"]) > 0
        assert pool["state"] == ("DEGRADED" if degraded else "ONLINE"), (name, pool, first)
        # members: every device the kernel lists, each in the bay its disk is in
        named = {leaf["name"]: leaf for leaf in leaves(pool["vdevs"]) if leaf["kind"] == "disk"}
        for dev in first.members:
            assert dev in named, (name, dev, named.keys())
            disk = re.sub(r"\d+$", "", dev)
            assert named[dev]["bay"] == dev_bay[disk], (name, dev, named[dev])
        action = first.values["sync_action"]
        scan = pool["scan"]
        if action == "idle":
            assert scan is None, (name, scan)
            continue
        assert scan is not None and scan["kind"] == KINDS[action], (name, scan)
        assert scan["state"] == "running", (name, scan)
        # sysfs's checkpoint and mdstat's live figure, before and after: nastui reads in between
        seen = [first.percent, last.percent, *(mdstat_percent(m).get(name) for m in mdstats)]
        known = [p for p in seen if p is not None]
        assert known, (name, first, last)
        low, high = min(known), max(known)
        assert low - 0.1 <= scan["percent"] <= high + 0.1, (name, scan["percent"], low, high)
        if action == "check":
            mismatches = (int(first.values["mismatch_cnt"]), int(last.values["mismatch_cnt"]))
            assert mismatches[1] > 0, f"the check found no mismatch yet: {mismatches}"
            assert mismatches[0] <= scan["errors"] <= mismatches[1], (scan, mismatches)
    for name in ("md6", "md11"):
        holes = [leaf for leaf in leaves(pools[name]["vdevs"]) if leaf["state"] == "UNAVAIL"]
        assert len(holes) == int(before[name].values["degraded"]) == 1, (name, holes)
    recovering = [leaf for leaf in leaves(pools["md1"]["vdevs"]) if leaf["note"] == "(recovering)"]
    assert len(recovering) == 1 and before["md1"].members[recovering[0]["name"]] == "spare", (
        recovering,
        before["md1"].members,
    )
