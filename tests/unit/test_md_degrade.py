"""md arrays on real captures where /proc/mdstat used to mislead: IMSM containers, failed members
counted twice, `mdadm --replace`, rebuilds waiting behind another (resync=DELAYED), and lines the
parser does not know (kept as notes, the array still shown)."""

from __future__ import annotations

from pathlib import Path

from nastui.collectors.md.collector import MdSys, collect_md, md_pool
from nastui.collectors.md.mdstat import parse_mdstat, parse_mdstat_report
from nastui.core.assess import assess
from nastui.model import Health, HostSnapshot, Pool, PoolState, ScanKind, ScanState, Thresholds
from tests.fakepools import FIXTURES

MDSTAT = FIXTURES / "mdstat"


def pools(name: str) -> dict[str, Pool]:
    arrays = parse_mdstat((MDSTAT / name).read_text())
    return {a.name: md_pool(a, MdSys()) for a in arrays}


def leaves(pool: Pool) -> list[tuple[str, PoolState, str | None]]:
    return [(v.name, v.state, v.note) for v in pool.root.leaves]


def test_imsm_container_is_not_an_inactive_array() -> None:
    by_name = pools("procfs/fixtures/proc/mdstat")
    md219 = by_name["md219"]  # inactive sdb[2](S) sdc[1](S) sda[0](S), super external:imsm
    assert md219.state is PoolState.ONLINE and md219.status_text is None
    assert [v.kind for v in md219.root.children] == ["container"]
    assert {v.name for v in md219.root.leaves} == {"sda", "sdb", "sdc"}
    assert by_name["md4"].state is PoolState.UNAVAIL  # a real inactive array stays UNAVAIL


def test_failed_member_is_its_own_gap() -> None:
    md6 = pools("procfs/fixtures/proc/mdstat")["md6"]  # sdb2[2](F) sdc[1](S) sda2[0] [2/1] [U_]
    assert leaves(md6) == [
        ("sda2", PoolState.ONLINE, None),
        ("sdb2", PoolState.FAULTED, "faulty"),
        ("sdc", PoolState.AVAIL, None),
    ]
    assert md6.state is PoolState.DEGRADED


def test_failed_member_with_full_count_is_degraded() -> None:
    text = "md2 : active raid1 sdb2[1](F) sda2[0]\n      1020032 blocks [2/2] [U_]\n"
    (array,) = parse_mdstat(text)
    assert md_pool(array, MdSys()).state is PoolState.DEGRADED


# glensc/nagios-plugin-check_raid @ 316d94690e98 (GPL-2.0) t/data/mdstat/issue164, held out in
# tests/fixtures/heldout/mdstat/m23_checkraid_issue164.txt: a spare took the failed sdh1's slot.
SPARE_TOOK_OVER = (
    "md1 : active raid1 sdc1[0] sdh1[5](F) sdg1[4] sdf1[3] sde1[2] sdd1[1]\n"
    "      1953382400 blocks super 1.2 [5/5] [UUUUU]\n"
)


def test_a_failed_member_a_spare_took_over_from_leaves_the_array_online_with_a_warning() -> None:
    """Every slot in sync ([5/5] [UUUUU]) beside a member marked (F): mdadm calls the array
    clean; it said DEGRADED and "md1 is degraded: degraded". The member still warns, naming
    the command that removes it."""
    (array,) = parse_mdstat(SPARE_TOOK_OVER)
    md1 = md_pool(array, MdSys())
    assert md1.state is PoolState.ONLINE
    assert ("sdh1", PoolState.FAULTED, "faulty") in leaves(md1)
    assert md1.status_text is not None
    assert md1.status_text.startswith("sdh1 failed and no longer holds a slot")
    assert "mdadm /dev/md1 --remove failed" in md1.status_text
    snapshot = assess(HostSnapshot("nas", 0.0, pools=(md1,)), Thresholds(), 0.0)
    found = {a.key: (a.health, a.message) for a in snapshot.alerts}
    assert found == {
        "pool:md1:member:sdh1": (Health.WARNING, "sdh1 FAULTED (pool ONLINE): replace it")
    }


def test_a_failed_member_without_a_slot_map_is_still_degraded() -> None:
    """raid0 and linear print no [UU]: nothing shows the failed member's place was taken."""
    (array,) = parse_mdstat(
        "md3 : active raid0 sdb1[1](F) sda1[0]\n      2040064 blocks 64k chunks\n"
    )
    md3 = md_pool(array, MdSys())
    assert md3.state is PoolState.DEGRADED
    assert md3.status_text == (
        "md3 is degraded: sdb1 failed; replace the failed device and let it recover."
    )


def test_replace_marks_the_replacement_not_the_in_sync_members() -> None:
    md126 = pools("public/readme_replace_raid1.txt")["md126"]
    assert md126.state is PoolState.ONLINE
    assert leaves(md126) == [
        ("sdb1", PoolState.ONLINE, None),
        ("sdb2", PoolState.ONLINE, None),
        ("sdb20", PoolState.ONLINE, "(recovering)"),
    ]
    assert md126.scan is not None and md126.scan.kind is ScanKind.RECOVERY


def test_delayed_rebuild_target_is_not_online() -> None:
    by_name = pools("public/forum_rebuild_raid1_delayed.txt")
    md0, md1 = by_name["md0"], by_name["md1"]
    assert ("sda3", PoolState.ONLINE, "(recovering)") in leaves(md0)
    assert ("sda1", PoolState.DEGRADED, "(waiting to rebuild: resync=DELAYED)") in leaves(md1)
    assert ("sdb1", PoolState.ONLINE, None) in leaves(md1)
    assert md1.state is PoolState.DEGRADED
    assert md1.scan is not None and md1.scan.state is ScanState.PENDING


def test_delayed_resync_of_a_healthy_array_marks_nobody() -> None:
    md3 = pools("riemann/example-13")["md3"]  # [2/2] [UU] resync=DELAYED
    assert all(note is None for _, _, note in leaves(md3))


def test_unknown_lines_are_notes_and_the_array_stays() -> None:
    text = (MDSTAT / "public/forum_rebuild_raid1_delayed.txt").read_text()
    lines = text.splitlines()
    lines.insert(3, "      frobnicate = 12%")
    lines[1] += " sdz9[x]"
    arrays, stray = parse_mdstat_report("\n".join(lines))
    assert stray == []
    md0 = md_pool(arrays[0], MdSys())
    assert md0.name == "md0" and md0.state is PoolState.DEGRADED
    assert md0.notes == (
        "/proc/mdstat line 2: unexpected member 'sdz9[x]': "
        "'md0 : active raid1 sda3[2] sdb3[1] sdz9[x]'",
        "/proc/mdstat line 4: unexpected line: 'frobnicate = 12%'",
    )


def test_line_before_any_array_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "proc").mkdir()
    text = (MDSTAT / "public/readme_replace_raid1.txt").read_text()
    (tmp_path / "proc/mdstat").write_text("Event: 8\n" + text)
    found, errors = collect_md(tmp_path)
    assert [p.name for p in found] == ["md126"]
    assert [e.message for e in errors] == [
        "/proc/mdstat line 1: unexpected line before any array: 'Event: 8'"
    ]


def test_replace_never_marks_an_in_sync_member_with_a_late_number() -> None:
    # held-out capture (scored before any change): sdg1[4] is in sync in a 4-disk raid5 while
    # sdk1[6](R) copies; mdstat alone used to call sdg1 "recovering"
    md0 = pools("../heldout/mdstat/m11_procfs676_replace.txt")
    assert md0["md0"].state is PoolState.ONLINE
    recovering = [name for name, _, note in leaves(md0["md0"]) if note == "(recovering)"]
    assert recovering == ["sdk1"]
