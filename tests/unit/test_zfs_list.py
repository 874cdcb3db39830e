"""`zpool list` in the shapes captured (-Hp with -o, headed -p, -HPLv with -v) and `zfs list`."""

from __future__ import annotations

import pytest

from nastui.collectors.zfs.lists import ListRow, parse_zfs_space, parse_zpool_list
from nastui.model.errors import ParseError
from tests.fakepools import FIXTURES, transcript

LIST = FIXTURES / "zpool/zpool_list"
TELEGRAF = ("name", "health", "size", "alloc", "free", "fragmentation", "capacity", "dedupratio")
PROXMOX = ("name", "size", "alloc", "free", "expandsz", "frag", "cap", "dedup", "health", "altroot")


def test_telegraf_freenas_hp() -> None:
    rows = parse_zpool_list(
        (LIST / "telegraf_freebsd_freenas_zpool_list_Hp.txt").read_text(), TELEGRAF
    )
    assert list(rows) == ["freenas-boot", "red1", "temp1", "temp2"]
    assert rows["red1"] == ListRow("red1", 8933531975680, 1126164848640, 8, "ONLINE")
    assert rows["freenas-boot"].fragmentation_percent is None


def test_telegraf_freebsd14_plain_fragmentation() -> None:
    text = (LIST / "telegraf_freebsd_freebsd14_zpool_list_Hp.txt").read_text()
    assert parse_zpool_list(text, TELEGRAF)["zroot"].fragmentation_percent == 4


def test_unavailable_pool_has_unknown_space() -> None:
    text = (LIST / "telegraf_freebsd_unavailable_zpool_list_Hp.txt").read_text()
    assert parse_zpool_list(text, TELEGRAF)["temp2"] == ListRow(
        "temp2", None, None, None, "UNAVAIL"
    )


def test_headed_listing_with_faulted_pool() -> None:
    rows = parse_zpool_list((LIST / "netdata/zpool-list.txt").read_text(), None)
    assert rows["rpool"] == ListRow("rpool", 21367462298, 9051643576, 33, "ONLINE")
    assert rows["zion"] == ListRow("zion", None, None, None, "FAULTED")


@pytest.mark.parametrize("name", ["zpool-list-vdev.txt", "zpool-list-vdev-logs-cache.txt"])
def test_vdev_rows_are_skipped(name: str) -> None:
    rows = parse_zpool_list((LIST / "netdata" / name).read_text(), None)
    assert list(rows) == ["rpool"]


def test_human_verbose_listing() -> None:
    rows = parse_zpool_list((LIST / "proxmox_zpool_list_HPLv.txt").read_text(), PROXMOX)
    assert list(rows) == ["testpool"]
    assert rows["testpool"].size_bytes == 2 * 2**40 and rows["testpool"].fragmentation_percent == 5


@pytest.mark.parametrize("name", ["zpool-list.8_L121.txt", "zpool.8_L293.txt"])
def test_man_page_listing(name: str) -> None:
    text = transcript(
        (FIXTURES / "zpool/openzfs_man" / name)
        .read_text()
        .replace("# zpool list", "# zpool status")
    )
    rows = parse_zpool_list(text, None)
    assert rows["tank"].fragmentation_percent == 48 and rows["zion"].health == "FAULTED"


def test_wrong_field_count_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="fields"):
        parse_zpool_list("tank\t1\n")


def test_zfs_space_of_root_datasets() -> None:
    # `zfs list -Hp -o name,used,available -d 0`: tab-separated exact bytes, one pool per line
    text = "tank\t42949672960\t1099511627776\nboot\t1024\t2048\n"
    assert parse_zfs_space(text) == {"tank": (42949672960, 1099511627776), "boot": (1024, 2048)}
    assert parse_zfs_space("tank/home\t1\t2\n") == {}
    with pytest.raises(ParseError):
        parse_zfs_space("tank\t-\t2\n")
