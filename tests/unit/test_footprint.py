"""The footprint rule (pure), on stacks built as data: what a write to the target reaches, and
who else uses any of it. Each case names the stack and the verdict; the same rule on real loop
devices is in tests/integration/test_guard_attacks.py and test_guard_stack_machine.py."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.core.footprint import (
    Block,
    Device,
    File,
    Filesystem,
    Link,
    Node,
    Span,
    Stack,
    Use,
    Window,
    conflicts,
    describe,
    footprint,
    fs_key,
    holder_key,
    loop_key,
    loop_lowers,
    probed_lowers,
    reach_words,
    relevant,
    texts,
    windows,
)

M = 1 << 20
ROOTFS = "254:0"  # the filesystem holding the images (on vda)
TMPFS = "0:40"


def loop(name: str, number: str, lower: Node, offset: int = 0, size: int = 16 * M) -> Device:
    what = f"{name} over it at offset {offset}"
    link = Link(Span(lower, offset, offset + size), loop_key(name), what)
    return Device(number, name, size, (link,))


def part(name: str, number: str, disk: str, start: int, size: int) -> Device:
    link = Link(Span(Block(disk), start, start + size), holder_key(name), f"partition {name}")
    return Device(number, name, size, (link,))


def member_of(name: str, number: str, members: tuple[str, ...], size: int = 64 * M) -> Device:
    links = tuple(
        Link(Span(Block(m)), holder_key(name), f"held by {name}", linear=False) for m in members
    )
    return Device(number, name, size, links)


def mount(device: str, fs: str, where: str) -> Use:
    return Use(Span(Block(device)), fs_key(fs), f"mounted at {where} (ext4)")


def opened(node: Node, pid: int, brief: bool = False) -> Use:
    return Use(Span(node), f"pid {pid}", f"open by pid {pid} (x)", brief)


def stack(
    *devices: Device, filesystems: tuple[Filesystem, ...] = (), uses: tuple[Use, ...] = ()
) -> Stack:
    base = (
        Device(ROOTFS, "vda", 100 * M),
        *devices,
    )
    systems = (
        Filesystem(ROOTFS, (ROOTFS,), "ext4 at /"),
        Filesystem(TMPFS, (), "tmpfs at /dev/shm"),
        *filesystems,
    )
    return Stack(
        {d.devno: d for d in base},
        {f.dev: f for f in systems},
        (mount(ROOTFS, ROOTFS, "/"), *uses),
        {File(ROOTFS, 11): "/img/t.img", File(ROOTFS, 12): "/img/v.img"},
    )


T_IMG, V_IMG = File(ROOTFS, 11), File(ROOTFS, 12)


def test_a_free_loop_over_an_image() -> None:
    s = stack(loop("loop0", "7:0", T_IMG))
    assert texts(conflicts(s, "7:0")) == ()
    assert [describe(s, r) for r in footprint(s, "7:0")] == [
        "loop0 bytes 0-16777216",
        "/img/t.img bytes 0-16777216",
        "vda (holding the filesystem of the file above)",
    ]


def test_the_devices_below_whose_contents_are_read() -> None:
    """A device a loop device at an offset writes to raw is read for signatures as the target
    is, unless another device is laid over it from its byte 0 (what is there is that one's)."""
    lower = loop("loop1", "7:1", V_IMG, size=64 * M)
    target = loop("loop2", "7:2", Block("7:1"), offset=M)
    s = stack(lower, target)
    probed = [(name, reach_words(s, r)) for name, r in probed_lowers(s, "7:2")]
    assert probed == [("loop1", f"loop1 (the target writes to this device, bytes {M}-{17 * M})")]
    assert probed_lowers(s, "7:1") == ()  # the image below it is a file: not a device to read
    first = loop("loop3", "7:3", Block("7:1"), offset=0, size=M)
    assert probed_lowers(stack(lower, target, first), "7:2") == ()
    itself = loop("loop2", "7:2", Block("7:1"), offset=0)  # the target's own chain from 0
    assert [n for n, _ in probed_lowers(stack(lower, itself), "7:2")] == ["loop1"]


def test_a_loop_at_an_offset_on_a_mounted_loop() -> None:
    victim = loop("loop1", "7:1", V_IMG, size=32 * M)
    target = loop("loop0", "7:0", Block("7:1"), offset=M, size=31 * M)
    s = stack(victim, target, uses=(mount("7:1", "7:1", "/mnt/v"),))
    assert texts(conflicts(s, "7:0")) == (
        "loop1 (the target writes to this device, bytes 1048576-33554432): "
        "mounted at /mnt/v (ext4)",
    )
    assert loop_lowers(s, "7:0") == ("7:1",)


def test_a_loop_at_an_offset_over_the_victims_backing_file() -> None:
    victim = loop("loop1", "7:1", V_IMG, size=32 * M)
    target = loop("loop0", "7:0", V_IMG, offset=M, size=31 * M)
    found = texts(conflicts(stack(victim, target, uses=(mount("7:1", "7:1", "/mnt/v"),)), "7:0"))
    assert found == (
        "/img/v.img (the target writes to this file, bytes 1048576-33554432): "
        "loop1 over it at offset 0 (loop1: mounted at /mnt/v (ext4))",
    )


def test_loops_over_the_same_device_conflict_only_where_they_overlap() -> None:
    disk = Device("8:0", "sda", 100 * M)
    other = loop("loop1", "7:1", Block("8:0"), offset=50 * M, size=10 * M)
    for offset, size, expected in ((0, 50 * M, False), (41 * M, 10 * M, True), (59 * M, M, True)):
        target = loop("loop0", "7:0", Block("8:0"), offset=offset, size=size)
        assert bool(conflicts(stack(disk, other, target), "7:0")) is expected, (offset, size)


def test_two_loops_over_one_file_conflict_whatever_their_ranges() -> None:
    other = loop("loop1", "7:1", T_IMG, offset=50 * M, size=M)
    target = loop("loop0", "7:0", T_IMG, offset=0, size=M)
    assert "the target writes to this file" in texts(conflicts(stack(other, target), "7:0"))[0]


def test_a_backing_file_another_process_holds_open() -> None:
    data = File("7:5", 12)
    fs_dev = loop("loop5", "7:5", V_IMG, size=32 * M)
    target = loop("loop0", "7:0", data)
    fs = Filesystem("7:5", ("7:5",), "ext4 at /srv")
    other_file = File("7:5", 99)
    quiet = stack(fs_dev, target, filesystems=(fs,), uses=(mount("7:5", "7:5", "/srv"),))
    assert texts(conflicts(quiet, "7:0")) == ()  # its own filesystem's mount is the chain
    busy = quiet.with_uses([opened(data, 42), opened(other_file, 43)])
    assert list(texts(conflicts(busy, "7:0"))) == [
        "file 12 on 7:5 (the target writes to this file, bytes 0-16777216): open by pid 42 (x)"
    ]


def test_raw_writes_to_a_device_holding_a_filesystem_name_its_users() -> None:
    fs = Filesystem("7:5", ("7:5",), "ext4 at /srv")
    holder = loop("loop5", "7:5", V_IMG, size=32 * M)
    target = loop("loop0", "7:0", Block("7:5"), offset=M, size=M)
    s = stack(holder, target, filesystems=(fs,), uses=(opened(File("7:5", 99), 43),))
    assert texts(conflicts(s, "7:0")) == (
        "loop5 (the target writes to this device, bytes 1048576-2097152): "
        "a file on it (file 99 on 7:5): open by pid 43 (x)",
    )


def test_a_lazily_unmounted_filesystem_still_in_use() -> None:
    """No mount is left; a process's file on the target's filesystem is the only sign."""
    target = loop("loop0", "7:0", T_IMG)
    s = stack(target, uses=(opened(File("7:0", 2), 50),))
    assert texts(conflicts(s, "7:0")) == (
        "loop0: a file on it (file 2 on 7:0): open by pid 50 (x)",
    )


def test_partitions() -> None:
    disk = Device("8:0", "sda", 300 * M)
    sda1, sda2 = part("sda1", "8:1", "8:0", M, 99 * M), part("sda2", "8:2", "8:0", 100 * M, M)
    uses = (mount("8:2", "8:2", "/boot"),)
    s = stack(disk, sda1, sda2, uses=uses)
    assert texts(conflicts(s, "8:1")) == ()  # its neighbour is another range of the disk
    assert texts(conflicts(s, "8:0")) == (
        "sda: partition sda1",
        "sda: partition sda2 (sda2: mounted at /boot (ext4))",
    )
    held = s.with_uses([opened(Block("8:0"), 7)])
    assert texts(conflicts(held, "8:1")) == (
        "sda (the target writes to this device, bytes 1048576-104857600): open by pid 7 (x)",
    )
    overlapping = stack(disk, sda1, sda2, part("sda3", "8:3", "8:0", 50 * M, 10 * M))
    assert "partition sda3" in texts(conflicts(overlapping, "8:1"))[0]
    assert loop_lowers(s, "8:1") == ()  # a disk is claimed through its partitions


def test_windows_are_the_devices_laid_over_the_targets_bytes() -> None:
    """Partitions of the target, loop devices over it at an offset: where their bytes sit in the
    target's, so their labels are read through it (a whole-disk ZFS vdev's pool is on sda1)."""
    disk = Device("8:0", "sda", 300 * M)
    sda1, sda9 = part("sda1", "8:1", "8:0", M, 290 * M), part("sda9", "8:9", "8:0", 291 * M, 8 * M)
    over = loop("loop3", "7:3", Block("8:0"), offset=4 * M)
    s = stack(disk, sda1, sda9, over, member_of("md0", "9:0", ("8:1",)))
    assert windows(s, "8:0") == (
        Window("sda1", M, 290 * M),
        Window("sda9", 291 * M, 8 * M),
        Window("loop3", 4 * M, 16 * M),
    )
    assert windows(s, "8:1") == (Window("loop3", 3 * M, 16 * M),)  # sda9 is beside it
    assert windows(s, "9:0") == ()  # md's map is not known: nothing sits at a known offset
    assert windows(s, "7:3") == (Window("sda1", -3 * M, 290 * M),)  # it begins before loop3
    files = stack(loop("loop0", "7:0", T_IMG), loop("loop1", "7:1", T_IMG, 8 * M))
    assert windows(files, "7:0") == (Window("loop1", 8 * M, 16 * M),)


def test_mappings_of_a_disk_count_by_their_bytes() -> None:
    disk = Device("8:0", "sda", 300 * M)
    sda1 = part("sda1", "8:1", "8:0", M, 99 * M)
    outside = Use(Span(Block("8:0"), 200 * M, 201 * M), "pid 9", "mapped by pid 9 (x)")
    inside = Use(Span(Block("8:0"), 0, 2 * M), "pid 9", "mapped by pid 9 (x)")
    assert texts(conflicts(stack(disk, sda1, uses=(outside,)), "8:1")) == ()
    assert conflicts(stack(disk, sda1, uses=(inside,)), "8:1")


def test_dm_and_md_members() -> None:
    members = (Device("8:16", "sdb", 64 * M), Device("8:32", "sdc", 64 * M))
    dm = member_of("dm-0", "253:0", ("8:16", "8:32"))
    quiet = stack(*members, dm)
    assert texts(conflicts(quiet, "253:0")) == ()  # dm-0 holding its members is its own chain
    busy = quiet.with_uses([mount("8:16", "8:16", "/x"), opened(Block("8:32"), 3)])
    assert texts(conflicts(busy, "253:0")) == (
        "sdb (the target writes to this device, bytes 0-its end): mounted at /x (ext4)",
        "sdc (the target writes to this device, bytes 0-its end): open by pid 3 (x)",
    )
    assert texts(conflicts(quiet, "8:16")) == ("sdb: held by dm-0",)


def test_a_filesystem_whose_devices_are_unknown() -> None:
    fuse = Filesystem("0:55", None, "fuse at /mnt/f")
    target = loop("loop0", "7:0", File("0:55", 3))
    found = texts(conflicts(stack(target, filesystems=(fuse,)), "7:0"))
    assert len(found) == 1 and "cannot tell which devices hold its filesystem (fuse" in found[0]
    nowhere = loop("loop0", "7:0", File("0:77", 3))  # not mounted, not a device: unknown too
    assert "cannot tell" in texts(conflicts(stack(nowhere), "7:0"))[0]
    shm = loop("loop0", "7:0", File(TMPFS, 3))  # tmpfs: on no device at all
    assert texts(conflicts(stack(shm), "7:0")) == ()


def test_a_file_on_a_multi_device_btrfs() -> None:
    devices = (loop("loop1", "7:1", V_IMG, size=32 * M), Device("7:2", "loop2", 32 * M))
    btrfs = Filesystem("0:60", ("7:1", "7:2"), "btrfs at /pool")
    mounts = (mount("7:1", "0:60", "/pool"), mount("7:2", "0:60", "/pool"))
    target = loop("loop0", "7:0", File("0:60", 257))
    s = stack(*devices, target, filesystems=(btrfs,), uses=mounts)
    assert texts(conflicts(s, "7:0")) == ()
    assert {describe(s, r) for r in footprint(s, "7:0")} >= {
        "loop1 (holding the filesystem of the file above)",
        "loop2 (holding the filesystem of the file above)",
    }
    raw = loop("loop9", "7:9", Block("7:2"), size=M)
    found = texts(conflicts(stack(*devices, target, raw, filesystems=(btrfs,), uses=mounts), "7:0"))
    assert found == (
        "loop2 (it holds the filesystem of a file the target writes to): loop9 over it at offset 0",
    )


def test_swap_on_a_file_or_device() -> None:
    target = loop("loop0", "7:0", Block("7:5"), size=M)
    holder = Device("7:5", "loop5", 32 * M)
    fs = Filesystem("7:5", ("7:5",), "ext4 at /srv")
    swapfile = Use(Span(File("7:5", 30)), "swap", "swap on /srv/swap")
    s = stack(holder, target, filesystems=(fs,), uses=(swapfile,))
    assert texts(conflicts(s, "7:0")) == (
        "loop5 (the target writes to this device, bytes 0-1048576): "
        "a file on it (file 30 on 7:5): swap on /srv/swap",
    )


def test_a_cycle_in_a_damaged_model_ends() -> None:
    a = loop("loop0", "7:0", Block("7:1"))
    b = loop("loop1", "7:1", Block("7:0"))
    assert len(footprint(stack(a, b), "7:0")) <= 70


def test_brief_uses_are_marked() -> None:
    target = loop("loop0", "7:0", T_IMG)
    found = conflicts(stack(target, uses=(opened(Block("7:0"), 8, brief=True),)), "7:0")
    assert [(c.text, c.brief) for c in found] == [("loop0: open by pid 8 (x)", True)]


def test_an_unknown_target_is_its_own_footprint() -> None:
    s = Stack(uses=(opened(Block("9:9"), 5),))
    assert texts(conflicts(s, "9:9")) == ("device 9:9: open by pid 5 (x)",)


# ------------------------------------------------------------------- properties (hypothesis)
NODES = [Block("7:0"), Block("7:1"), Block("7:2"), T_IMG, V_IMG, File(ROOTFS, 40)]
USES = st.builds(
    lambda node, start, length, pid: Use(
        Span(node, start, start + length), f"pid {pid}", f"by pid {pid}"
    ),
    st.sampled_from(NODES),
    st.integers(0, 40 * M),
    st.integers(1, 40 * M),
    st.integers(1, 9),
)
STACKS = st.builds(
    lambda offset, size, uses: stack(
        loop("loop1", "7:1", V_IMG, size=32 * M),
        loop("loop0", "7:0", Block("7:1"), offset=offset, size=size),
        uses=tuple(uses),
    ),
    st.integers(0, 31 * M),
    st.integers(1, 16 * M),
    st.lists(USES, max_size=6),
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(STACKS, USES)
def test_more_uses_never_mean_fewer_conflicts(s: Stack, extra: Use) -> None:
    before = set(texts(conflicts(s, "7:0")))
    assert before <= set(texts(conflicts(s.with_uses([extra]), "7:0")))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(STACKS)
def test_a_conflict_for_every_use_of_a_reached_span_and_no_other(s: Stack) -> None:
    reached = footprint(s, "7:0")
    expected = any(
        any(
            (isinstance(r.span.node, File) and u.span.node == r.span.node)
            or u.span.overlaps(r.span)
            for r in reached
            if r.inside is None
        )
        for u in s.uses
        if u.key.startswith("pid ")
    )
    found = [c for c in texts(conflicts(s, "7:0")) if "pid" in c]
    assert bool(found) is expected


# ------------------------------------------- the uses a verdict can look at (`relevant`)
RAW_FS = "7:3"  # a filesystem on loop3, which lies raw on vda at an offset
WIDE_NODES = [*NODES, Block("7:3"), Block(ROOTFS), File(RAW_FS, 5), File("7:2", 6), File(TMPFS, 7)]
WIDE_USES = st.builds(
    lambda node, start, length, pid, brief: Use(
        Span(node, start, start + length), f"pid {pid}", f"by pid {pid}", brief
    ),
    st.sampled_from(WIDE_NODES),
    st.integers(0, 40 * M),
    st.integers(1, 40 * M),
    st.integers(1, 9),
    st.booleans(),
)
WIDE_STACKS = st.builds(
    lambda offset, size, raw_offset, mounted, uses: stack(
        loop("loop1", "7:1", V_IMG, size=32 * M),
        loop("loop0", "7:0", Block("7:1"), offset=offset, size=size),
        loop("loop2", "7:2", T_IMG),
        loop("loop3", "7:3", Block(ROOTFS), offset=raw_offset),
        filesystems=(Filesystem(RAW_FS, ("7:3",), "ext4 at /raw"),) if mounted else (),
        uses=tuple(uses),
    ),
    st.integers(0, 31 * M),
    st.integers(1, 16 * M),
    st.integers(0, 80 * M),
    st.booleans(),
    st.lists(WIDE_USES, max_size=8),
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(WIDE_STACKS, st.sampled_from(["7:0", "7:1", "7:2", "7:3", ROOTFS, "9:9"]))
def test_only_the_uses_relevant_keeps_can_change_a_verdict(s: Stack, target: str) -> None:
    """The watch builds only the processes' uses `relevant` keeps: the verdict (every
    conflict, its words, whether it is brief) and the footprint's words are the same as
    with every use, whatever the stack and the target (a loop over a loop, over a file,
    raw over the disk holding the images, a filesystem on a device reached raw or not)."""
    wanted = relevant(s, target)
    kept = replace(s, uses=tuple(u for u in s.uses if wanted(u.span.node)))
    assert conflicts(kept, target) == conflicts(s, target)
    assert [describe(kept, r) for r in footprint(kept, target)] == [
        describe(s, r) for r in footprint(s, target)
    ]


def test_relevant_keeps_block_devices_and_the_files_a_verdict_reads() -> None:
    s = stack(loop("loop2", "7:2", T_IMG), loop("loop3", "7:3", Block(ROOTFS), offset=M))
    over_file, raw = relevant(s, "7:2"), relevant(s, "7:3")
    assert over_file(Block("8:0")) and over_file(T_IMG) and not over_file(V_IMG)
    assert raw(V_IMG) and raw(File(ROOTFS, 99))  # files on the filesystem reached raw
    assert not raw(File(TMPFS, 1)) and raw(File("7:3", 1))  # on the target itself: a filesystem
