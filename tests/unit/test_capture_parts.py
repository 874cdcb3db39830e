"""The pieces of a capture: what a poll touches is seen, the footprint is copied without ever
opening a FIFO or device or copying more than the bound, /etc reduced to what nastui uses,
secrets out of the configuration, serials masked by tokens of their own length."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nastui.capture.mask import SerialMask, serials_in, worth_masking
from nastui.capture.observe import watching
from nastui.capture.redact import REDACTED, redact_url, redacted
from nastui.capture.tree import FILE_LIMIT, TreeCopy, keeping
from nastui.collectors.schedule import schedule_lines
from nastui.config.loader import parse_config


def test_a_watch_sees_opened_listed_and_looked_at_paths(tmp_path: Path) -> None:
    (tmp_path / "sys/block").mkdir(parents=True)
    (tmp_path / "sys/block/size").write_text("8\n")
    with watching(tmp_path) as seen:
        (tmp_path / "sys/block/size").read_text()
        list((tmp_path / "sys").iterdir())
        (tmp_path / "sys/module/zfs").is_dir()
        Path("/etc/hostname").exists()  # outside the root: not ours
    assert seen.opened == {"sys/block/size"}
    assert seen.listed == {"sys"}
    assert "sys/module/zfs" in seen.looked and "etc/hostname" not in seen.looked
    assert os.stat is not None and os.stat.__module__ in ("posix", "os", "nt")  # restored


def test_one_watch_at_a_time(tmp_path: Path) -> None:
    with watching(tmp_path), pytest.raises(RuntimeError), watching(tmp_path):
        pass


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    device = root / "sys/devices/pci0/ata1/block/sda"
    device.mkdir(parents=True)
    (device / "size").write_text("7814037168\n")
    (root / "sys/block").mkdir(parents=True)
    (root / "sys/block/sda").symlink_to("../devices/pci0/ata1/block/sda")
    (root / "dev/disk/by-id").mkdir(parents=True)
    (root / "dev/sda").write_text("")
    (root / "dev/disk/by-id/ata-HGST_X_PN2334PBG6P4SK").symlink_to("../../sda")
    os.mkfifo(root / "sys/block/sda/trap")
    (root / "sys/block/sda/huge").write_bytes(b"\0" * (FILE_LIMIT + 1))
    (root / "etc").mkdir()
    (root / "etc/crontab").write_text(
        "MAILTO=root\n0 3 * * 0 root zpool scrub tank\n5 * * * * root curl -u me:pw x\n"
    )
    (root / "etc/shadow").write_text("root:$6$secret\n")
    return root


def test_the_footprint_is_copied_with_links_and_bounds(tmp_path: Path) -> None:
    root = tree(tmp_path)
    out = tmp_path / "out"
    copier = TreeCopy(root, out, SerialMask.of(["PN2334PBG6P4SK"]))
    for path in ("sys/block/sda/size", "sys/block/sda/trap", "sys/block/sda/huge", "etc/crontab"):
        copier.opened(path)
    copier.opened("etc/shadow")
    copier.listed("dev/disk/by-id")
    report = copier.report
    assert (out / "sys/block/sda").readlink() == Path("../devices/pci0/ata1/block/sda")
    assert (out / "sys/block/sda/size").read_text() == "7814037168\n"
    assert not (out / "sys/block/sda/trap").exists()  # a FIFO: never opened
    assert report.left_out["sys/devices/pci0/ata1/block/sda/trap"] == "a FIFO: never opened"
    assert "larger than 4 MiB" in report.left_out["sys/devices/pci0/ata1/block/sda/huge"]
    assert (out / "etc/crontab").read_text() == "0 3 * * 0 root zpool scrub tank\n"
    assert not (out / "etc/shadow").exists() and "etc/shadow" in report.left_out
    masked = out / "dev/disk/by-id/ata-HGST_X_MASKXXXXXXXXX1"
    assert masked.readlink() == Path("../../sda") and (out / "dev/sda").read_text() == ""


def test_keeping_policy() -> None:
    assert keeping("sys/block/sda/size") == "whole"
    assert keeping("proc/diskstats") == "whole"
    assert keeping("proc/1234/mountinfo") == "whole"
    assert keeping("proc/1234/environ") is None and keeping("proc/1234/cmdline") is None
    assert keeping("etc/hostname") == "whole" and keeping("etc/passwd") is None
    assert keeping("etc/cron.d/zfsutils-linux") == "schedule"
    assert keeping("var/lib/nastui/acks.json") is None


def test_schedule_lines_keep_only_what_schedules_scrubs() -> None:
    script = "#!/bin/sh\nexport TOKEN=abc\n/usr/lib/zfs-linux/scrub\n"
    assert schedule_lines("etc/cron.monthly/zfs", script) == "/usr/lib/zfs-linux/scrub\n"
    settings = 'BTRFS_SCRUB_PERIOD="monthly"\nOTHER="x"\n'
    assert schedule_lines("etc/default/btrfsmaintenance", settings) == (
        'BTRFS_SCRUB_PERIOD="monthly"\n'
    )
    assert schedule_lines("etc/systemd/system/btrfs-scrub@-.timer", "x") == "x"
    assert schedule_lines("etc/fstab", "x") is None


def test_redacted_config_loads_and_keeps_no_secret(tmp_path: Path) -> None:
    text = """
# my password is hunter2
[[host]]
name = "a"
address = "192.0.2.1"
community = "s3cret-community"
[[host]]
name = "b"
address = "192.0.2.2"
version = "3"
user = "mon"
auth_protocol = "SHA"
auth_password = "s3cret-auth-pass"
[alerts]
webhook = "https://u:p@hooks.example.org:8443/T0/B0/s3cret?z=1"
exec = ["/bin/notify", "--key", "s3cret-exec"]
"""
    clean = redacted(text)
    for secret in ("hunter2", "s3cret", "u:p@"):
        assert secret not in clean
    config = parse_config(clean, tmp_path / "config.toml")
    assert config.hosts[0].community == REDACTED
    assert config.alerts.webhook == f"https://hooks.example.org:8443/{REDACTED}"


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("https://hooks.slack.com/services/T0/B0/XYZ", f"https://hooks.slack.com/{REDACTED}"),
        ("http://nas.lan:8080", "http://nas.lan:8080"),
        ("tgram://123:abc/456", f"tgram://{REDACTED}"),
        ("mailto://user:pw@example.org", f"mailto://{REDACTED}"),
    ],
)
def test_redact_url(url: str, kept: str) -> None:
    assert redact_url(url) == kept


def test_a_mask_is_consistent_and_keeps_lengths() -> None:
    mask = SerialMask.of(["PN2334PBG6P4SK", "WD-WCC4N1234567", "1234", "SERA"])
    assert "1234" not in mask.tokens  # a short number would hit counters
    text = "ata-HGST_PN2334PBG6P4SK-part1 Serial Number: WD-WCC4N1234567 PN2334PBG6P4SKX SERA"
    out = mask.text(text)
    assert "PN2334PBG6P4SK-part1" not in out and "PN2334PBG6P4SKX" in out  # alone only
    assert len(out) == len(text)
    assert (
        mask.data(b"\x00\x80\x00\x0ePN2334PBG6P4SK")
        == b"\x00\x80\x00\x0e" + mask.tokens["PN2334PBG6P4SK"].encode()
    )
    assert serials_in(["Serial Number:    ABC123XYZ\n", '"serial_number": "S4EU"']) == {
        "ABC123XYZ",
        "S4EU",
    }


@given(
    st.lists(st.text("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-", min_size=4, max_size=20), max_size=8)
)
def test_tokens_are_unique_same_length_and_never_serials(serials: list[str]) -> None:
    mask = SerialMask.of(serials)
    tokens = list(mask.tokens.values())
    assert len(set(tokens)) == len(tokens)
    for serial, token in mask.tokens.items():
        assert worth_masking(serial) and "_" not in token
        assert len(token) == len(serial) or len(serial) < len(str(len(tokens))) + 1
    assert not set(tokens) & set(mask.tokens)
