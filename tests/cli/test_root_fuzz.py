"""`--root` trees a hostile user or a broken capture left: never an internal error, never a hang,
never the memory filled.

Every sysfs and /proc read goes through `nastui.safeio` (regular files only, opened without
blocking, a size bound; links resolved with loops caught), so a FIFO, `/dev/zero`, a sparse
1 GiB file, a symbolic link loop or a directory where a file belongs is one unreadable value, and
the rest of the box still shows. Each command runs in a child process with a memory limit and a
time limit: a hang is a failure, not a stuck test run.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.rootfuzz import (
    COMMANDS,
    KINDS,
    STATE_COMMANDS,
    STATE_FILES,
    STATE_KINDS,
    Ran,
    make_state,
    make_tree,
    paths_of,
    run_commands,
    spoil,
)

HANG_S = 120.0  # far past what the four commands take on a shared machine: only a hang gets here


def assert_clean(ran: list[Ran]) -> None:
    bad = [f"{' '.join(r.argv)}: exit {r.code}: {r.stderr[-600:]}" for r in ran if r.internal_error]
    assert not bad, "\n".join(bad)
    assert len(ran) == len(COMMANDS)


def attacked(tmp_path: Path, spoils: list[tuple[str, str]]) -> list[Ran]:
    root, config = make_tree(tmp_path)
    for name, kind in spoils:
        spoil(root / name, kind)
    ran, _ = run_commands(root, config, tmp_path, HANG_S)
    return ran


def test_the_untouched_tree_reads(tmp_path: Path) -> None:
    ran = attacked(tmp_path, [])
    assert_clean(ran)
    assert [r.code for r in ran[:3]] == [0, 0, 0]


def _block(name: str) -> str:
    return f"sys/block/{name}"


def test_a_symlink_loop_under_block_device(tmp_path: Path) -> None:
    root, config = make_tree(tmp_path)
    device = (root / "sys/block/sda").resolve() / "device"
    spoil(device, "loop")
    ran, _ = run_commands(root, config, tmp_path, HANG_S)
    assert_clean(ran)
    assert ran[0].code == 0  # the other drives still show


@pytest.mark.parametrize("kind", ["zero", "sparse", "fifo"])
@pytest.mark.parametrize(
    "name",
    [
        "sys/devices/pci0000:00/0000:00:1f.2/ata0/host0/target0:0:0/0:0:0:0/vendor",
        "sys/devices/pci0000:00/0000:00:1f.2/ata0/host0/target0:0:0/0:0:0:0/block/sda/size",
        "proc/mdstat",
        "proc/self/mountinfo",
        "proc/diskstats",
        "etc/hostname",
    ],
)
def test_a_sysfs_or_proc_file_that_never_ends_or_blocks(
    tmp_path: Path, name: str, kind: str
) -> None:
    assert_clean(attacked(tmp_path, [(name, kind)]))


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_random_spoils_of_the_tree(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory(prefix="nastui-rootfuzz-") as base:
        tmp = Path(base)
        root, config = make_tree(tmp)
        names = [str(p.relative_to(root)) for p in paths_of(root)]
        picks = data.draw(
            st.lists(
                st.tuples(st.sampled_from(names), st.sampled_from(KINDS)),
                min_size=1,
                max_size=4,
                unique_by=lambda t: t[0],
            ),
            label="spoils",
        )
        for name, kind in picks:
            target = root / name
            if target.is_symlink() or target.exists():  # a parent spoiled before may have gone
                spoil(target, kind)
        ran, _ = run_commands(root, config, tmp, HANG_S)
        assert_clean(ran)


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    spoils=st.lists(
        st.tuples(st.sampled_from(STATE_FILES), st.sampled_from(STATE_KINDS)),
        min_size=1,
        max_size=3,
        unique_by=lambda t: t[0],
    )
)
def test_random_spoils_of_the_state_directory(spoils: list[tuple[str, str]]) -> None:
    """nastui's own files (acknowledgements, LEDs, self-tests, the swap, its backup, log and
    lock) as FIFOs, /dev/zero, sparse, loops, directories, nested or binary JSON: every reader
    answers in one line or degrades; no internal error, no hang."""
    with tempfile.TemporaryDirectory(prefix="nastui-statefuzz-") as base:
        tmp = Path(base)
        root, config = make_tree(tmp)
        state = make_state(tmp / "state")
        for name, kind in spoils:
            spoil(state / name, kind)
        ran, _ = run_commands(root, config, tmp, HANG_S, STATE_COMMANDS)
        bad = [
            f"{' '.join(r.argv)}: exit {r.code}: {r.stderr[-600:]}" for r in ran if r.internal_error
        ]
        assert not bad, "\n".join(bad)
