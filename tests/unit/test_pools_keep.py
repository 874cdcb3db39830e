"""Degrade, never drop: on every corpus-derived capture (zpool text and JSON, /proc/mdstat, btrfs
filesystem show and scrub status), random line deletions, insertions and indentation changes
never lose a pool that the mutated text still names, and never raise."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui.collectors.btrfs.pool import BtrfsFacts, btrfs_pool
from nastui.collectors.btrfs.scrub import parse_scrub_status
from nastui.collectors.btrfs.text import parse_filesystem_show, parse_filesystem_show_report
from nastui.collectors.md.collector import MdSys, md_pool
from nastui.collectors.md.mdstat import parse_mdstat_report
from nastui.collectors.zfs.json_status import parse_zpool_status_json
from nastui.collectors.zfs.text import parse_zpool_status_report
from tests.fakepools import FIXTURES, transcript


def samples(folder: str, *patterns: str) -> dict[str, str]:
    root = FIXTURES / folder
    files = sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})
    return {str(p.relative_to(FIXTURES)): p.read_text() for p in files if p.suffix != ".md"}


ZPOOL = {
    k: transcript(v)
    for k, v in samples(
        "zpool", "status/**/*.txt", "openzfs_docs/*.txt", "openzfs_man/zpool*.txt", "public/*"
    ).items()
    if "pool:" in v
}
JSON_SAMPLES = samples("zpool", "openzfs_man/zpool-status.8_L196.txt")
MDSTAT = samples(
    "mdstat", "pymdstat/*", "riemann/*", "telegraf/*", "procfs/fixtures/proc/mdstat", "public/*"
)
SHOW = samples("btrfs", "rockstor/test_degraded*", "rockstor/test_pool*", "lab/btrfs_filesystem*")
SCRUB = samples("btrfs", "rockstor/test_scrub*", "lab/btrfs_scrub*", "progs/btrfs_scrub*")
LAB_FS = parse_filesystem_show(
    (FIXTURES / "btrfs/lab/btrfs_filesystem_show_--raw__raid1.txt").read_text()
)[0]

BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines() splits on
EACH = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
NOISE = st.one_of(
    st.sampled_from(
        ["", "config:", "errors:", "scan:", "  state: WEIRD", "md9 : active", "[UU_]", "Status:",
         "      resync=DELAYED", "Label: none", "NAME STATE READ WRITE CKSUM", "\t", "x" * 200,
         "devid    9 size 1 used 1 path /dev/x", "  remove: something", "expand:"]
    ),
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters=BREAKS), max_size=60),
)  # fmt: skip
INDENT = st.sampled_from(["", " ", "  ", "\t", "        ", "\t\t", "   \t"])


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """`text` after 1-6 random line deletions, insertions and indentation changes."""
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["delete", "insert", "indent"]))
        at = draw(st.integers(0, max(0, len(lines) - 1)))
        if kind == "delete" and lines:
            del lines[at]
        elif kind == "insert":
            lines.insert(draw(st.integers(0, len(lines))), draw(NOISE))
        elif lines:
            lines[at] = draw(INDENT) + lines[at].lstrip(" \t")
    return "\n".join(lines) + "\n"


def _named(pattern: str, text: str) -> set[str]:
    return {m.group(1) for m in re.finditer(pattern, text.expandtabs(8), re.MULTILINE)}


@pytest.mark.parametrize("name", sorted(ZPOOL))
@EACH
@given(data=st.data())
def test_zpool_text_keeps_every_named_pool(name: str, data: st.DataObject) -> None:
    text = data.draw(mutated(ZPOOL[name]))
    pools, _ = parse_zpool_status_report(text)
    named = _named(r"^ *pool: (\S.*?)\s*$", text)
    assert named <= {p.name for p in pools}


@pytest.mark.parametrize("name", sorted(MDSTAT))
@EACH
@given(data=st.data())
def test_mdstat_keeps_every_named_array(name: str, data: st.DataObject) -> None:
    text = data.draw(mutated(MDSTAT[name]))
    arrays, _ = parse_mdstat_report(text)
    pools = [md_pool(a, MdSys()) for a in arrays]
    named = _named(r"^\s*(md[\w-]*)\s*:\s*(?:active|inactive)(?:\s|$)", text)
    assert named <= {p.name for p in pools}


@pytest.mark.parametrize("name", sorted(SHOW))
@EACH
@given(data=st.data())
def test_btrfs_show_keeps_every_named_filesystem(name: str, data: st.DataObject) -> None:
    text = data.draw(mutated(SHOW[name]))
    found, _ = parse_filesystem_show_report(text)
    named = _named(r"^\s*Label: (?:'.*'|none)\s+uuid: ([0-9a-f-]{36})\s*$", text)
    assert named <= {fs.uuid for fs in found}
    for fs in found:
        assert btrfs_pool(fs, BtrfsFacts()).name == (fs.label or fs.uuid)


@pytest.mark.parametrize("name", sorted(SCRUB))
@EACH
@given(data=st.data())
def test_btrfs_scrub_never_loses_the_filesystem(name: str, data: st.DataObject) -> None:
    text = data.draw(mutated(SCRUB[name]))
    pool = btrfs_pool(LAB_FS, BtrfsFacts(mountpoint="/mnt", scrub=parse_scrub_status(text)))
    assert (pool.name, pool.state.value) == ("nastui-lab", "ONLINE")


def _mangle(data: st.DataObject, value: Any, depth: int = 0) -> Any:
    """A copy of a JSON value with random keys dropped and values replaced by junk."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            choice = data.draw(st.integers(0, 9))
            if choice == 0 and depth > 1:
                continue
            junk: Any = data.draw(st.sampled_from([None, "x", -1, [], {}, "1.5T", True]))
            out[key] = (
                junk if choice == 1 and key not in ("name",) else _mangle(data, item, depth + 1)
            )
        return out
    if isinstance(value, list):
        return [_mangle(data, item, depth + 1) for item in value]
    return value


@pytest.mark.parametrize("name", sorted(JSON_SAMPLES))
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_zpool_json_keeps_every_pool(name: str, data: st.DataObject) -> None:
    text = JSON_SAMPLES[name]
    document = json.loads(text[text.index("{") : text.rindex("}") + 1])
    mangled = {**document, "pools": _mangle(data, document["pools"], 1)}
    pools = parse_zpool_status_json(json.dumps(mangled), 1.0)
    assert {p.name for p in pools} == set(document["pools"])


def test_every_kind_has_samples() -> None:
    assert len(ZPOOL) > 40 and len(MDSTAT) > 30 and len(SHOW) > 10 and len(SCRUB) > 30
    assert JSON_SAMPLES and Path(FIXTURES).is_dir()
