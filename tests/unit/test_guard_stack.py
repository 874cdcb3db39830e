"""The guard's eyes without root: labels at every offset (pure, on byte images), the stack and
its users read from a fake /sys and /proc tree (`nastui.collectors.blockstack`), and the
parsers of /proc (`nastui.collectors.procuse`). The same on real loop devices is in
tests/integration/test_guard_stacks.py and test_guard_attacks.py."""

from __future__ import annotations

import errno
import gzip
import os
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nastui.collectors import procuse
from nastui.collectors.blockstack import inspect, is_real_root, normal_root, read_stack
from nastui.collectors.labels import ReadAt, find_labels, zfs_label_offsets, zfs_pool_of
from nastui.collectors.procuse import (
    MapLine,
    devno,
    parse_maps,
    parse_stat_ids,
    process_uses,
    read_only,
)
from nastui.core.footprint import Block, File, Link, Span, Window
from tests.fakepools import FIXTURES

KIB, MIB = 1024, 1 << 20
SIZE = 64 * MIB + 12 * KIB  # not a multiple of 64 KiB or 256 KiB: offsets must round


# label 0 of a whole-disk vdev's partition, as OpenZFS 2.3.2 wrote it (pool "labz")
ZFS_LABEL = gzip.decompress((FIXTURES / "zpool/lab/vdev_label_0__2.3.2_labz.bin.gz").read_bytes())


def image(writes: dict[int, bytes], size: int = SIZE) -> ReadAt:
    """A sparse image's reader: zeros except `writes`."""

    def read(at: int, length: int) -> bytes:
        out = bytearray(max(0, min(length, size - at)))
        for offset, data in writes.items():
            start, end = max(at, offset), min(at + len(out), offset + len(data))
            if start < end:
                out[start - at : end - at] = data[start - offset : end - offset]
        return bytes(out)

    return read


def labels(writes: dict[int, bytes], size: int = SIZE) -> list[str]:
    """find_labels over a sparse image: zeros except `writes`."""
    return find_labels(image(writes, size), size)


def zfs_vdev(at: int, size: int, label: bytes = ZFS_LABEL) -> dict[int, bytes]:
    """`label` at the four offsets of a ZFS vdev of `size` bytes starting at byte `at`."""
    return {at + offset: label for offset in zfs_label_offsets(size)}


def test_a_blank_device_has_no_labels() -> None:
    assert labels({}) == []
    assert labels({}, 4 * KIB) == []  # smaller than every region


@pytest.mark.parametrize(
    ("writes", "found"),
    [
        ({0: struct.pack("<II", 0xA92B4EFC, 1)}, "md 1.1 superblock at 0"),
        ({4096: struct.pack("<II", 0xA92B4EFC, 1)}, "md 1.2 superblock at 4096"),
        (
            {(((SIZE >> 9) - 16) & ~7) << 9: struct.pack("<II", 0xA92B4EFC, 1)},
            f"md 1.0 superblock at {(((SIZE >> 9) - 16) & ~7) << 9}",
        ),
        ({64 * MIB - 64 * KIB: struct.pack(">II", 0xA92B4EFC, 0)}, "md 0.90 superblock"),
        ({64 * MIB - 64 * KIB: struct.pack("<II", 0xA92B4EFC, 0)}, "md 0.90 superblock"),
        ({512: b"LABELONE" + bytes(16) + b"LVM2 001"}, "LVM2 label at sector 1"),
        ({1536: b"LABELONE" + bytes(16) + b"LVM2 001"}, "LVM2 label at sector 3"),
        ({zfs_label_offsets(SIZE)[3] + 130 * KIB: struct.pack("<Q", 0xBAB10C)}, "ZFS label 3"),
        ({zfs_label_offsets(SIZE)[2] + 255 * KIB: struct.pack(">Q", 0xBAB10C)}, "ZFS label 2"),
        ({256 * KIB + 128 * KIB: struct.pack("<Q", 0xBAB10C)}, "ZFS label 1 at 262144"),
        ({4096 + 24: bytes.fromhex("c68573f64e1a45ca8265f57f48ba6d81")}, "bcache superblock"),
        ({0: b"LUKS\xba\xbe"}, "LUKS header at 0"),
        ({64 * KIB: b"SKUL\xba\xbe"}, "LUKS2 second header at 65536"),
        ({4096 - 10: b"SWAPSPACE2"}, "swap signature at 4086"),
        ({65536 - 10: b"SWAP-SPACE"}, "swap signature at 65526"),
        ({SIZE - 512: b"EFI PART"}, f"GPT backup header at {SIZE - 512}"),
        ({64 * KIB + 64: b"_BHRfS_M"}, "btrfs superblock at 65600"),
        ({0: b"integrt"}, "dm-integrity superblock at 0"),
    ],
)
def test_labels_wherever_their_format_keeps_them(writes: dict[int, bytes], found: str) -> None:
    assert any(found in label for label in labels(writes)), labels(writes)


def test_a_zfs_label_names_its_pool() -> None:
    assert labels(zfs_vdev(0, SIZE)) == [
        f"ZFS label {n} at {at} (pool labz)" for n, at in enumerate(zfs_label_offsets(SIZE))
    ]


# a whole-disk vdev (`zpool create labz /dev/sdz`): partition 1 from 1 MiB, 8 MiB kept at the end
PART = Window("sdz1", MIB, SIZE - 9 * MIB)


def test_the_pool_of_a_partition_is_read_through_the_disk() -> None:
    read = image(zfs_vdev(PART.at, PART.size or 0))
    assert labels(zfs_vdev(PART.at, PART.size or 0)) == []  # not at the disk's own offsets
    assert zfs_pool_of(read, SIZE, PART) == "ZFS pool labz (vdev sdz1, its labels 0, 1, 2, 3)"
    assert zfs_pool_of(read, SIZE, Window("sdz9", SIZE - 8 * MIB, 8 * MIB)) is None
    assert zfs_pool_of(read, SIZE, Window("sdz1", MIB, None)) is None  # offsets not known
    beyond = Window("sdz1", SIZE + MIB, SIZE)  # a partition past the disk's end
    assert zfs_pool_of(read, SIZE, beyond) is None


def test_a_partition_whose_labels_name_no_pool() -> None:
    """A spare's or cache device's labels, or a list that cannot be read: labels, no name."""
    broken = bytearray(ZFS_LABEL)
    broken[16 * KIB : 16 * KIB + 4] = b"\x07\x07\x07\x07"
    read = image(zfs_vdev(PART.at, PART.size or 0, bytes(broken)))
    assert zfs_pool_of(read, SIZE, PART) == "ZFS labels 0, 1, 2, 3 on sdz1 (no pool name in them)"
    cut = image(
        {PART.at: ZFS_LABEL[: 16 * KIB + 70] + bytes(128 * KIB - 70) + ZFS_LABEL[128 * KIB :]}
    )
    assert zfs_pool_of(cut, SIZE, PART) == "ZFS label 0 on sdz1 (no pool name in them)"


def test_a_pool_name_is_shown_printable() -> None:
    """A label is whatever the disk holds: control characters never reach the terminal."""
    escape = ZFS_LABEL.replace(b"\x00\x00\x00\x04labz", b"\x00\x00\x00\x04\x1b[2J", 1)
    assert escape != ZFS_LABEL
    assert labels({0: escape})[0] == "ZFS label 0 at 0 (pool ?[2J)"


def test_the_label_scan_reads_fixed_offsets_only() -> None:
    """Bounded: the first and last 512 KiB, then each label's ring and list, never the disk."""
    asked: list[tuple[int, int]] = []
    read = image(zfs_vdev(PART.at, PART.size or 0))

    def counted(at: int, length: int) -> bytes:
        asked.append((at, length))
        return read(at, length)

    find_labels(counted, SIZE)
    zfs_pool_of(counted, SIZE, PART)
    assert sum(length for _, length in asked) < 3 * MIB
    regions = [(0, 512 * KIB), (SIZE - 512 * KIB, SIZE)]
    regions += [(PART.at + o, PART.at + o + 256 * KIB) for o in zfs_label_offsets(PART.size or 0)]
    for at, length in asked:
        assert any(start <= at and at + length <= end for start, end in regions), (at, length)


def test_zfs_labels_sit_on_256k_boundaries() -> None:
    assert zfs_label_offsets(SIZE) == (0, 256 * KIB, 64 * MIB - 512 * KIB, 64 * MIB - 256 * KIB)


def test_root_spellings() -> None:
    assert normal_root(Path("//")) == Path("/") and normal_root(Path("/./")) == Path("/")
    assert is_real_root(Path("//")) and is_real_root(Path("/./")) and is_real_root(Path("/"))


def test_root_spellings_of_a_tree(tmp_path: Path) -> None:
    assert not is_real_root(tmp_path) and not is_real_root(tmp_path / "missing")
    (tmp_path / "link").symlink_to("/")
    assert is_real_root(tmp_path / "link")


def tree_with(tmp_path: Path) -> tuple[Path, str]:
    """A fake tree: sdz with partition sdz1 held by md9, loop5 backed by a file on sdz (here:
    the filesystem holding tmp_path stands in for sdz), mounts and swaps naming them."""
    root = tmp_path / "root"
    fs = devno(tmp_path.stat().st_dev)
    block = root / "sys/class/block"
    for name, number in (("sdz", fs), ("sdz1", "8:241"), ("md9", "9:9"), ("loop5", "7:5")):
        (block / name).mkdir(parents=True)
        (block / name / "dev").write_text(number + "\n")
        (block / name / "size").write_text("131072\n")
    (block / "sdz/sdz1").mkdir()
    (block / "sdz/sdz1/partition").write_text("1\n")
    (block / "sdz/sdz1/start").write_text("2048\n")
    (block / "sdz/sdz1/size").write_text("65536\n")
    (block / "sdz1/holders/md9").mkdir(parents=True)
    backing = root / "srv/disk.img"
    backing.parent.mkdir(parents=True)
    backing.write_bytes(b"")
    loop = root / "sys/block/loop5/loop"
    loop.mkdir(parents=True)
    (loop / "backing_file").write_text("/srv/disk.img\n")
    (loop / "offset").write_text("4096\n")
    (root / "proc/self").mkdir(parents=True)
    (root / "proc/self/mountinfo").write_text(
        "36 35 9:9 / /mnt/array rw,noatime shared:1 - xfs /dev/md9 rw\n"
        "37 35 7:5 / /mnt/inner rw shared:2 - ext4 /dev/loop5 rw\n"
        "38 35 8:1 / / rw shared:3 - ext4 /dev/sda1 rw\n"
    )
    (root / "proc/swaps").write_text("Filename\tType\tSize\tUsed\tPriority\n")
    return root, fs


def test_the_stack_from_a_tree(tmp_path: Path) -> None:
    root, fs = tree_with(tmp_path)
    stack = read_stack(root, real=False).stack
    assert stack.devices["8:241"].links == (
        Link(
            Span(Block(fs), 2048 * 512, (2048 + 65536) * 512),
            "holder sdz1",
            "partition sdz1 (bytes 1048576-34603008)",
        ),
    )
    assert stack.devices["9:9"].links[0].lower == Span(Block("8:241"))
    (link,) = stack.devices["7:5"].links
    backing = (root / "srv/disk.img").stat()
    assert link.lower == Span(
        File(devno(backing.st_dev), backing.st_ino), 4096, 4096 + 131072 * 512
    )
    assert isinstance(link.lower.node, File) and stack.names[link.lower.node] == "/srv/disk.img"
    assert stack.filesystems["9:9"].devices == ("9:9",)


def test_the_users_of_a_tree(tmp_path: Path) -> None:
    root, fs = tree_with(tmp_path)
    verdict = inspect(root, fs, real=False)
    assert verdict.conflicts == (
        "sdz: partition sdz1 (bytes 1048576-34603008) (sdz1: held by md9)",
        "sdz: a file on it (/srv/disk.img): the backing file of loop5 (from offset 4096)",
    )
    partition = inspect(root, "8:241", real=False)
    assert partition.conflicts == (
        "sdz1: held by md9 (md9: mounted at /mnt/array (xfs))",
        "sdz (the target writes to this device, bytes 1048576-34603008): a file on it "
        "(/srv/disk.img): the backing file of loop5 (from offset 4096)",
    )
    assert partition.footprint == ("sdz1 bytes 0-67108864", "sdz bytes 1048576-34603008")
    assert verdict.windows == (Window("sdz1", 1048576, 65536 * 512),)  # its labels show in sdz
    assert partition.windows == ()


def test_a_swap_file_on_the_stack(tmp_path: Path) -> None:
    root, fs = tree_with(tmp_path)
    swapfile = tmp_path / "swapfile"
    swapfile.write_bytes(b"")
    (root / "proc/swaps").write_text(
        f"Filename\tType\tSize\tUsed\tPriority\n{swapfile}   file  1024  0  -2\n"
    )
    assert (
        f"sdz: a file on it ({swapfile}): swap on {swapfile}"
        in inspect(root, fs, real=False).conflicts
    )


def test_maps() -> None:
    text = (
        "55d0c0a00000-55d0c0a02000 r--p 00000000 fd:00 1311   /usr/bin/cat\n"
        "7f2c1a000000-7f2c1a021000 rw-s 00100000 00:06 417 /dev/loop3\n"
        "7ffd5a1e0000-7ffd5a201000 rw-p 00000000 00:00 0      [stack]\n"
        "garbage\n"
        "7f2c1b000000-7f2c1b001000 rw-s 00000000 00:01 2050            /memfd:x (deleted)\n"
        "7f2c1c000000-7f2c1c001000 r--s 00000000 08:10 12\n"
        "00400000-00452000 r-xp 00000000 08:02 173521 /srv/my data/a b.img  \n"
    )
    assert parse_maps(text) == [
        MapLine("55d0c0a00000-55d0c0a02000", 0, 0x2000, "253:0", 1311, "/usr/bin/cat"),
        MapLine("7f2c1a000000-7f2c1a021000", 0x100000, 0x21000, "0:6", 417, "/dev/loop3"),
        MapLine("7f2c1b000000-7f2c1b001000", 0, 0x1000, "0:1", 2050, "/memfd:x (deleted)"),
        MapLine("7f2c1c000000-7f2c1c001000", 0, 0x1000, "8:16", 12, ""),
        MapLine("00400000-00452000", 0, 0x52000, "8:2", 173521, "/srv/my data/a b.img"),
    ]


def test_stat_ids_and_fdinfo(tmp_path: Path) -> None:
    assert parse_stat_ids("4242 (py (x) 3) S 4200 4242 4200 34816 0") == (4200, 4200)
    assert parse_stat_ids("garbage") is None
    (tmp_path / "ro").write_text("pos:\t0\nflags:\t0100000\nmnt_id:\t24\n")
    (tmp_path / "rw").write_text("pos:\t0\nflags:\t0100002\nmnt_id:\t24\n")
    assert read_only(tmp_path / "ro") and not read_only(tmp_path / "rw")
    assert not read_only(tmp_path / "missing")


def test_a_loop_whose_backing_file_cannot_be_found(tmp_path: Path) -> None:
    """Where a loop device writes is not known: a write to it is refused, saying so."""
    root, _fs = tree_with(tmp_path)
    (root / "sys/block/loop5/loop/backing_file").write_text("/nowhere/gone.img\n")
    verdict = inspect(root, "7:5", real=False)
    assert any("cannot tell which devices hold its filesystem" in c for c in verdict.conflicts)
    assert "/nowhere/gone.img" in verdict.conflicts[-1]


@pytest.mark.parametrize("table", ["missing", "fifo", "readable"])
def test_on_the_machine_an_unreadable_mount_table_is_a_reason_to_refuse(
    tmp_path: Path, table: str
) -> None:
    """Read as "nothing is mounted" an unreadable /proc/self/mountinfo (a FIFO, gone, past the
    table limit) would let a write through: on the machine it is a reason to refuse."""
    root, _fs = tree_with(tmp_path)
    mountinfo = root / "proc/self/mountinfo"
    if table != "readable":
        mountinfo.unlink()
    if table == "fifo":
        os.mkfifo(mountinfo)
    said = f"{mountinfo} cannot be read: what is mounted is unknown"
    assert (said in inspect(root, "7:5", real=True).conflicts) == (table != "readable")
    assert said not in inspect(root, "7:5", real=False).conflicts  # a fake tree: as before


def fake_process(
    proc: Path, pid: int, fds: dict[str, Path], cwd: Path, tids: tuple[int, ...] = ()
) -> None:
    """/proc/PID of a process (and its threads `tids`, sharing nothing kcmp can tell) whose
    descriptors `fds` lead to those files, working in `cwd`."""
    base = proc / str(pid)
    (base / "fd").mkdir(parents=True)
    (base / "comm").write_text("fake\n")
    (base / "stat").write_text(f"{pid} (fake) S 1 {pid} {pid} 0 -1\n")
    (base / "maps").write_text("")
    for tid in (pid, *tids):
        task = base / "task" / str(tid)
        (task / "fd").mkdir(parents=True)
        for number, target in fds.items():
            (task / "fd" / number).symlink_to(target)
        (task / "cwd").symlink_to(cwd)
        (task / "root").symlink_to("/")


class RefusedEntry:
    """A /proc fd entry whose stat fails with `error` (EACCES: the task refuses us)."""

    def __init__(self, entry: os.DirEntry[str], error: int, stats: list[str]) -> None:
        self.entry, self.error, self.stats = entry, error, stats
        self.name, self.path = entry.name, entry.path

    def stat(self) -> os.stat_result:
        self.stats.append(self.name)
        raise OSError(self.error, os.strerror(self.error), self.path)


def test_a_task_that_refuses_its_descriptors_costs_one_stat_and_a_closed_one_skips_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/proc refuses a task's descriptors for the whole task (one ptrace check): the first
    EACCES ends that directory (a sandbox's process 1 had 3,500 refused stats a look); a
    descriptor closed meanwhile (ENOENT) skips only itself."""
    target = tmp_path / "t.img"
    target.write_bytes(b"")
    proc = tmp_path / "proc"
    fake_process(proc, 4242, {str(n): target for n in range(10)}, tmp_path)
    real_scandir, stats = os.scandir, list[str]()

    class Entries:
        def __init__(self, path: str, error: int, only: str | None) -> None:
            self.found, self.error, self.only = real_scandir(path), error, only

        def __enter__(self) -> Entries:
            return self

        def __exit__(self, *exc: object) -> None:
            self.found.close()

        def __iter__(self) -> Iterator[object]:
            for entry in self.found:
                refused = self.only is None or entry.name == self.only
                yield RefusedEntry(entry, self.error, stats) if refused else entry

    def scandir_refusing(error: int, only: str | None) -> Callable[[str], Entries]:
        return lambda path: Entries(path, error, only)

    node = File(devno(target.stat().st_dev), target.stat().st_ino)
    monkeypatch.setattr(os, "scandir", scandir_refusing(errno.EACCES, None))
    assert not [u for u in process_uses(proc).uses if u.span.node == node]
    assert len(stats) == 1
    stats.clear()
    monkeypatch.setattr(os, "scandir", scandir_refusing(errno.ENOENT, "3"))
    found = [u for u in process_uses(proc).uses if u.span.node == node]
    assert stats == ["3"] and len(found) == 9


def test_only_the_wanted_uses_are_built_with_the_same_words(tmp_path: Path) -> None:
    """`wanted` leaves out the uses a verdict cannot look at; those kept read as before, the
    process's name read once (a thread's use says which thread)."""
    target, other = tmp_path / "t.img", tmp_path / "other"
    target.write_bytes(b"")
    other.write_bytes(b"")
    proc = tmp_path / "proc"
    fake_process(proc, 4242, {"3": target, "4": other}, tmp_path, tids=(4250,))
    node = File(devno(target.stat().st_dev), target.stat().st_ino)
    everything = process_uses(proc)
    some = process_uses(proc, wanted=lambda n: n == node)
    assert [u for u in everything.uses if u.span.node == node] == some.uses
    assert [u.what for u in some.uses] == [
        "open by pid 4242 (fake)",
        "open by pid 4242 (fake) in its thread 4250",
    ]
    assert some.names == {node: str(target)}
    assert len(everything.uses) == 8  # two files, the working and the root directory, twice


class FakeKcmp(procuse._Kcmp):
    """kcmp that says tasks 1-3 share a table, 4-5 another, and cannot tell about `refused`."""

    def __init__(self, refused: frozenset[int] = frozenset()) -> None:
        self.refused, self.asked = refused, 0

    def same(self, a: int, b: int, kind: int) -> bool | None:
        self.asked += 1
        if a in self.refused or b in self.refused:
            return None
        return (a <= 3) == (b <= 3)


def test_tasks_sharing_a_table_are_looked_at_once_and_all_when_kcmp_cannot_tell() -> None:
    assert procuse._distinct([1, 2, 3, 4, 5], procuse.KCMP_FILES, FakeKcmp()) == [1, 4]
    refusing = FakeKcmp(frozenset({1}))
    assert procuse._distinct([1, 2, 3, 4, 5], procuse.KCMP_FILES, refusing) == [1, 2, 3, 4, 5]
    assert refusing.asked == 1  # not asked again once it could not tell
    late = FakeKcmp(frozenset({4}))
    assert procuse._distinct([1, 2, 3, 4, 5], procuse.KCMP_FILES, late) == [1, 4, 5]


def test_kernel_threads_sharing_kthreadds_tables_are_looked_at_once_and_have_no_maps(
    tmp_path: Path,
) -> None:
    """Kernel threads (PF_KTHREAD in /proc/PID/stat) share kthreadd's descriptor table and
    directories: the first one met is looked at, the others only when kcmp says their table
    is another; a kernel thread's maps are not read (the kernel gives it none)."""
    target = tmp_path / "t.img"
    target.write_bytes(b"")
    proc = tmp_path / "proc"
    for pid in (2, 3, 4, 5):
        fake_process(proc, pid, {"0": target}, tmp_path)
        flags = procuse.PF_KTHREAD if pid != 5 else 0
        (proc / str(pid) / "stat").write_text(f"{pid} (k {pid}) S 0 0 0 0 -1 {flags} 0 0\n")
        st = target.stat()
        dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}"
        (proc / str(pid) / "maps").write_text(f"7f00-7f01 rw-s 0 {dev} {st.st_ino} {target}\n")
    stats = procuse.read_stats(proc, ["2", "3", "4", "5"])
    assert procuse.kernel_threads(stats) == {2, 3, 4}
    kcmp = FakeKcmp(frozenset({4}))  # 2 and 3 share a table (<= 3); 4 cannot be told
    scan = procuse._Scan(str(proc), kcmp, procuse.everything, procuse.kernel_threads(stats))
    for pid in (2, 3, 4, 5):
        scan.process(pid)
    node = File(devno(target.stat().st_dev), target.stat().st_ino)
    whats = sorted(u.what for u in scan.out.uses if u.span.node == node)
    assert whats == [
        "mapped by pid 5 (fake)",
        "open by pid 2 (fake)",
        "open by pid 4 (fake)",
        "open by pid 5 (fake)",
    ]
