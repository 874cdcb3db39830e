"""Reading what users paste (issue 22): smartctl reports hard-wrapped at 72 columns by mail
clients, quoted, cut into fragments or flattened by web pages; a USB bridge's "UNKNOWN!"
overall assessment; `zpool status` with decimal commas; wrapped /proc/mdstat; a btrfs
"was aborted after" line split in two; smartctl's own reason when a self-test cannot start.
Degrade, never drop: each repair is named in the notes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from nastui.cli.cmd_smart import explained
from nastui.collectors.btrfs.scrub import parse_scrub_status
from nastui.collectors.md.mdstat import parse_mdstat
from nastui.collectors.smart.collector import parse_capture
from nastui.collectors.smart.pasted import restored
from nastui.collectors.zfs.text import parse_zpool_status
from nastui.model import Health, Thresholds
from nastui.selftest.logic.text import StartOutcome, start_answer
from tests.fakepools import FIXTURES
from tests.smartbox import SMART
from tests.tools.smart_score import Tally, mail_wrapped, score_one

PASTED = SMART / "pasted"
# What each held-out paste should give (written from reading the pastes before the change):
# "read" is False where the paste cannot be judged (cut before the attributes).
EXPECTED = {
    "p01_fastvps10_three_fragments.txt": Health.CRITICAL,  # 8256 reallocated sectors
    "p02_storagefancontrol5_rows_only.txt": Health.OK,
    "p03_qiita_single_spaces.txt": Health.WARNING,  # 1 pending, 1 offline uncorrectable
    "p04_wikiroot_one_line.txt": Health.CRITICAL,  # 1179816 reallocated, 1 pending
    "p05_smartmontools391_hitachi_x_cut.txt": Health.UNKNOWN,
    "p06_synology30_wd40efrx_cut.txt": Health.UNKNOWN,
    "p07_unraid_wiki_extract_no_section.txt": Health.OK,
    "p08_microdevsys_st31000520as_flattened.txt": Health.UNKNOWN,
    "p10_smartmontools362_bridge_attribute_check.txt": Health.UNKNOWN,
    "p11_smartmontools270_dotted_capacity.txt": Health.UNKNOWN,
    "p12_smartmontools526_scsi_spaced_capacity.txt": Health.UNKNOWN,
}


def explain(text: str, name: str = "paste") -> tuple[Health, tuple[str, ...]]:
    reading = parse_capture(text, name)
    drive = explained(reading, Thresholds(), time.time())
    return drive.verdict.health, reading.notes


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_held_out_pastes(name: str) -> None:
    health, _ = explain((PASTED / name).read_text(), name)
    assert health is EXPECTED[name]


def test_reports_wrapped_at_72_columns_read_as_the_originals() -> None:
    """The 400 held-out reports, their attribute table in `smartctl -a`'s layout (every row
    wider than 72 columns), hard-wrapped as a mail client sends them: before, 334 came back
    UNKNOWN and 20 of the 24 failing drives were missed."""
    heldout = SMART / "heldout"
    tallies = {mode: Tally() for mode in ("whole", "wrapped-a")}
    for line in (heldout / "MANIFEST.tsv").read_text().splitlines()[:120]:
        if line and not line.startswith("#"):
            name, source = line.split("\t")
            for mode, tally in tallies.items():
                score_one(tally, heldout / name, name, source.split("/")[0], mode)
    whole, wrapped = tallies["whole"], tallies["wrapped-a"]
    assert wrapped.right == whole.right == whole.total
    assert {k.split(": ")[1]: v for k, v in wrapped.rules.items() if k.startswith("verdicts")} == {
        k.split(": ")[1]: v for k, v in whole.rules.items() if k.startswith("verdicts")
    }


def test_wrapping_is_named_and_quotes_go() -> None:
    text = (SMART / "linuxhw_consumer/HDD__ASMedia__ASMT109x-_Fast__6FE2909B2F41.txt").read_text()
    quoted = "".join(f"> {line}\n" for line in mail_wrapped(text).splitlines())
    fixed, notes = restored(quoted)
    assert notes[0] == "mail quote marks removed"
    assert "wrapping joined again" in notes[1]
    assert explain(quoted)[0] is explain(text)[0]
    assert fixed.count("\n") < quoted.count("\n")


def test_a_bridge_that_cannot_say_is_not_failed() -> None:
    """smartctl prints "UNKNOWN!" when a USB bridge does not pass the status through: that is
    no verdict, not a failing drive (it was called FAILED)."""
    text = (SMART / "linuxhw_consumer/HDD__ASMedia__ASMT109x-_Fast__6FE2909B2F41.txt").read_text()
    unknown = text.replace(
        "test result: PASSED",
        "test result: UNKNOWN!\nSMART Status, Attributes and Thresholds cannot be read.",
    )
    reading = parse_capture(unknown, "bridge")
    assert reading.smart_passed is None
    assert any("'UNKNOWN!'" in n and "USB" in n for n in reading.notes)
    drive = explained(reading, Thresholds(), time.time())
    assert not any(r.key == "smart-failed" for r in drive.verdict.reasons)
    assert drive.verdict.health is not Health.CRITICAL


def test_zpool_resilver_with_decimal_commas_is_kept() -> None:
    text = (
        "  pool: tank\n state: ONLINE\n"
        "  scan: resilvered 1,73T in 0 days 05:12:34 with 0 errors on Sun Dec 10 00:24:01 2017\n"
        "config:\n\n\tNAME        STATE     READ WRITE CKSUM\n"
        "\ttank        ONLINE       0     0     0\n"
        "\t  sda       ONLINE       0     0     0\n\nerrors: No known data errors\n"
    )
    (pool,) = parse_zpool_status(text)
    assert pool.notes == ()
    assert pool.scan is not None and pool.scan.repaired_bytes == round(1.73 * 2**40)
    running = text.replace(
        "resilvered 1,73T in 0 days 05:12:34 with 0 errors on Sun Dec 10 00:24:01 2017",
        "resilver in progress since Sun Dec 10 00:24:01 2017\n"
        "\t2,10T scanned at 1,21G/s, 1,73T issued at 998M/s, 3,63T total\n"
        "\t1,73T resilvered, 47,66% done, 00:33:15 to go",
    )
    (pool,) = parse_zpool_status(running)
    assert pool.scan is not None and pool.scan.reported_percent == 47.66


def _md_key(text: str) -> list[tuple[object, ...]]:
    return [
        (a.name, a.level, len(a.members), a.raid_disks, a.working, a.status, a.progress)
        for a in parse_mdstat(text)
    ]


def test_wrapped_mdstat_reads_as_the_original() -> None:
    """Before: 6 of the 17 samples that wrap lost members and their [n/m] [UU_] status (32 wrap
    since the held-out set's second round)."""
    files = [*(FIXTURES / "heldout/mdstat").glob("*.txt"), *(FIXTURES / "mdstat").rglob("*.txt")]
    wrapped = 0
    for path in files:
        text = path.read_text()
        if mail_wrapped(text).rstrip("\n") != text.rstrip("\n"):
            wrapped += 1
            assert _md_key(mail_wrapped(text)) == _md_key(text), path.name
    assert wrapped == 32


@pytest.mark.parametrize("cut", ["was aborted\nafter 00:04:56", "was\naborted after 00:04:56"])
def test_btrfs_aborted_line_split_in_two(cut: str) -> None:
    text = (
        "scrub status for 8adf7f0b-65ec-4e00-83cc-7f5855201185\n"
        f"\tscrub started at Mon Aug  7 15:29:52 2017 and {cut}\n"
        "\ttotal bytes scrubbed: 2.72GiB with 0 errors\n"
    )
    scrub = parse_scrub_status(text)
    assert (scrub.state, scrub.duration_s, scrub.notes) == ("canceled", 296, [])


def test_selftest_on_a_disk_smartctl_cannot_type_says_why() -> None:
    """smartctl 7.4's words for an unknown USB bridge (smartmontools issue 270): the reason,
    not its closing "Use smartctl -h to get a usage summary"."""
    stdout = (
        "smartctl 7.4 2023-08-01 r5530 [x86_64-linux-6.8.12-amd64] (local build)\n"
        "Copyright (C) 2002-23, Bruce Allen, Christian Franke, www.smartmontools.org\n\n"
        "/dev/sdb: Unknown USB bridge [0x0bda:0x9201 (0xf200)]\n"
        "Please specify device type with the -d option.\n\n"
        "Use smartctl -h to get a usage summary\n\n"
    )
    answer = start_answer(1, stdout)
    assert answer.outcome is StartOutcome.FAILED
    assert answer.line == (
        "/dev/sdb: Unknown USB bridge [0x0bda:0x9201 (0xf200)]; "
        "Please specify device type with the -d option."
    )


def test_fragments_are_named(tmp_path: Path) -> None:
    _, notes = explain((PASTED / "p04_wikiroot_one_line.txt").read_text())
    assert notes == ("3 attribute row(s) pasted without their table heading read",)
