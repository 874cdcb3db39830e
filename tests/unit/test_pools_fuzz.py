"""The pool parsers never crash on mutated or truncated captures: they return, or raise a
ParseError (which names the line), nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui.collectors.btrfs.scrub import parse_scrub_status
from nastui.collectors.btrfs.text import (
    parse_device_stats,
    parse_filesystem_show,
    parse_replace_status,
)
from nastui.collectors.md.collector import MdSys, md_pool
from nastui.collectors.md.mdstat import parse_mdstat
from nastui.collectors.zfs.json_status import parse_zpool_status_json
from nastui.collectors.zfs.lists import parse_zfs_space, parse_zpool_list
from nastui.collectors.zfs.scan import parse_scan
from nastui.collectors.zfs.text import parse_zpool_status
from nastui.model.errors import ParseError
from tests.fakepools import FIXTURES, transcript


def captures(folder: str, *patterns: str) -> list[str]:
    root = FIXTURES / folder
    files = sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})
    return [transcript(p.read_text()) for p in files if p.name != "PROVENANCE.md"]


ZPOOL = captures("zpool", "status/**/*.txt", "openzfs_docs/*.txt", "openzfs_man/zpool.8_*.txt")
JSON = captures("zpool", "openzfs_man/zpool-status.8_L196.txt")
LISTS = captures("zpool", "zpool_list/**/*.txt")
MDSTAT = captures("mdstat", "pymdstat/*", "riemann/*", "telegraf/*", "procfs/fixtures/proc/mdstat")
SHOW = captures("btrfs", "rockstor/test_degraded*", "rockstor/test_pool*", "lab/btrfs_filesystem*")
STATS = captures("btrfs", "rockstor/test_dev*", "rockstor/test_get*", "lab/btrfs_device*")
SCRUB = captures("btrfs", "rockstor/test_scrub*", "lab/btrfs_scrub*")
REPLACE = captures("btrfs", "lab/btrfs_replace*")
NOISE = st.sampled_from(
    ["", " ", "\t", "\n", ":", "%", "[", "]", "(", ")", "-", "0", "99999999999999999999", "1.5T",
     "ONLINE", "pool:", "scan:", "config:", "errors:", "md0 : active", "devid", "Status:",
     "x" * 300,
     "\x00", "é", "resync=DELAYED", "[UU_]", "UUID:", "\tcorrected_errors: -1", "MISSING"]
)  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, texts: list[str]) -> str:
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 4))):
        lines = text.splitlines(keepends=True) or [""]
        kind = draw(st.sampled_from(["cut", "drop", "dup", "swap", "insert", "replace"]))
        at = draw(st.integers(0, max(0, len(text))))
        line = draw(st.integers(0, len(lines) - 1))
        if kind == "cut":
            text = text[:at]
        elif kind == "drop":
            text = "".join(lines[:line] + lines[line + 1 :])
        elif kind == "dup":
            text = "".join(lines[: line + 1] + lines[line:])
        elif kind == "swap" and len(lines) > 1:
            other = draw(st.integers(0, len(lines) - 1))
            lines[line], lines[other] = lines[other], lines[line]
            text = "".join(lines)
        elif kind == "insert":
            text = text[:at] + draw(NOISE) + text[at:]
        else:
            text = text[:at] + draw(NOISE) + text[at + draw(st.integers(0, 12)) :]
    return text


def survives(parse: Callable[[str], object], text: str) -> None:
    try:
        parse(text)
    except ParseError as exc:
        assert str(exc)


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(mutated(ZPOOL))
def test_zpool_status_text(text: str) -> None:
    survives(parse_zpool_status, text)


@FUZZ
@given(mutated(ZPOOL))
def test_zfs_scan_lines(text: str) -> None:
    survives(lambda t: parse_scan([line.strip() for line in t.splitlines()[:4]]), text)


@FUZZ
@given(mutated(JSON))
def test_zpool_status_json(text: str) -> None:
    survives(lambda t: parse_zpool_status_json(t, 1.0), text)


@FUZZ
@given(mutated(LISTS))
def test_zpool_and_zfs_list(text: str) -> None:
    survives(lambda t: parse_zpool_list(t, None), text)
    survives(parse_zpool_list, text)
    survives(parse_zfs_space, text)


@FUZZ
@given(mutated(MDSTAT))
def test_mdstat(text: str) -> None:
    survives(lambda t: [md_pool(a, MdSys()) for a in parse_mdstat(t)], text)


@FUZZ
@given(mutated(SHOW))
def test_btrfs_filesystem_show(text: str) -> None:
    survives(parse_filesystem_show, text)


@FUZZ
@given(mutated(STATS))
def test_btrfs_device_stats(text: str) -> None:
    survives(parse_device_stats, text)


@FUZZ
@given(mutated(SCRUB))
def test_btrfs_scrub_status(text: str) -> None:
    survives(parse_scrub_status, text)


@FUZZ
@given(mutated(REPLACE))
def test_btrfs_replace_status(text: str) -> None:
    survives(lambda t: parse_replace_status(t, 1795250400.0), text)


def test_the_corpora_are_not_empty() -> None:
    for texts in (ZPOOL, JSON, LISTS, MDSTAT, SHOW, STATS, SCRUB, REPLACE):
        assert len(texts) >= 1
    assert Path(FIXTURES / "zpool").is_dir() and len(ZPOOL) > 40
