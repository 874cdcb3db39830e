"""What every process uses, as `nastui.core.footprint.Use`s: the benchmark guard's view of
programs (root; read-only).

For every process but nastui's own and its tools (fio, dd, the write-sync-close timer: see
`ours`):

- every descriptor of EVERY task: a thread that called `unshare(CLONE_FILES)` has a table of
  its own, which /proc/PID/fd does not show; /proc/PID/task/TID/fd does. Tasks sharing one
  table (the usual threads) are read once, told apart by `kcmp(KCMP_FILES)`;
- every task's working and root directory (a thread may `unshare(CLONE_FS)` too);
- every file mapping, descriptor closed or not: a mapping of a device node names the node's
  filesystem (devtmpfs) and inode in /proc/PID/maps, not the device, so each mapped object
  is followed through /proc/PID/map_files (root) to what it is; where that is refused, a
  device node is still matched by the filesystem and inode of every node under /dev;
- every file registered with an io_uring the process holds a descriptor of (its fdinfo's
  `UserFiles`), descriptor of the file closed or not: the ring reads and writes it. A name
  that leads to no file is noted (`RING_FILES`), and so is a ring the process maps but holds
  no descriptor of (IORING_REGISTER_RING_FDS, then closed: /proc gives no way to its files;
  map_files will not open one). A ring like that whose rings are in the process's own
  memory (IORING_SETUP_NO_MMAP) shows nowhere in /proc: no look can see that one.

A block device opened or mapped is a use of that device (a mapping: of its mapped bytes); a
file or directory is a use of that file. Processes that cannot be looked at (another user's,
without root) are named, so that the guard refuses rather than miss them (`denied`). A process
whose descriptors, directories or maps /proc refuses even to root, one by one past the
directory's permission (its ptrace check: a process of a parent user namespace, such as a
sandbox's process 1), is kept as an `UnseenProcess` beside the uses found (`unseen`): noted
where the refusal already ends the reading (at most once a task), named from the
/proc/PID/stat read for every process, so at no extra system call.

The watch runs this over every process every half second while a benchmark writes, so the
scan spells /proc paths as strings and calls `os` directly (pathlib's objects were most of a
look's time), and builds a `Use` only for the nodes the caller wants (`wanted`): the stat of
every descriptor, directory and mapping stays (see `process_uses`).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from nastui.core.footprint import Block, File, Node, Span, Use
from nastui.model import UnseenProcess
from nastui.safeio import MIB, read_text_bounded

MAPS_LIMIT = 32 * MIB  # 65530 mappings (vm.max_map_count) of ~100 bytes fit easily
_KCMP = {"x86_64": 312, "aarch64": 272, "riscv64": 272, "i686": 349, "armv7l": 378}
KCMP_FILES, KCMP_FS = 2, 3
PF_KTHREAD = 0x00200000  # include/linux/sched.h
REFUSALS = (errno.EACCES, errno.EPERM)
# What /proc may refuse of a task, in the order an `UnseenProcess.why` names them.
DESCRIPTORS, DIRECTORIES, MAPS = "descriptors", "directories", "maps"
_PARTS = (DESCRIPTORS, DIRECTORIES, MAPS)
RING_FILES = "io_uring files"  # named by /proc only by a path that leads nowhere now
IO_URING = "anon_inode:[io_uring]"
FDINFO_LIMIT = 16 * MIB  # an io_uring's fdinfo lists every registered file (up to 2^20)


def devno(raw: int) -> str:
    """A dev_t as "major:minor"."""
    return f"{os.major(raw)}:{os.minor(raw)}"


def node_of(st: os.stat_result) -> Node | None:
    """What a stat names for the guard: a block device, a file or directory; None else."""
    if stat.S_ISBLK(st.st_mode):
        return Block(devno(st.st_rdev))
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return File(devno(st.st_dev), st.st_ino)
    return None


def _names(directory: Path | str) -> list[str]:
    try:
        return os.listdir(directory)  # noqa: PTH208 (strings: see the module docstring)
    except OSError:
        return []


class _Kcmp:
    """kcmp(2): whether two tasks share a resource (None when the kernel cannot say)."""

    def __init__(self) -> None:
        self.number = _KCMP.get(platform.machine())
        self.libc = ctypes.CDLL(None, use_errno=True) if self.number else None

    def same(self, a: int, b: int, kind: int) -> bool | None:
        if self.libc is None or self.number is None:
            return None
        result = int(self.libc.syscall(self.number, a, b, kind, 0, 0))
        return None if result < 0 else result == 0


def _distinct(tasks: list[int], kind: int, kcmp: _Kcmp) -> list[int]:
    """One task per distinct table; from the first time kcmp cannot tell (a process that
    refuses us: a sandbox's process 1 with 13 threads cost 156 refused calls a look), every
    task left is kept without asking again: keeping one only means looking at it."""
    kept: list[int] = []
    asking = True
    for tid in tasks:
        shared = False
        for rep in kept if asking else []:
            answer = kcmp.same(rep, tid, kind)
            if answer is None:
                asking = False
                break
            if answer:
                shared = True
                break
        if not shared:
            kept.append(tid)
    return kept


def parse_stat_ids(text: str) -> tuple[int, int] | None:
    """(parent pid, session id) from /proc/PID/stat (the name may hold spaces and ')').

    # Sample: 4242 (python3) S 4200 4242 4200 34816 ...
    """
    fields = text[text.rfind(")") + 2 :].split()
    if len(fields) < 4 or not fields[1].isdigit() or not fields[3].isdigit():
        return None
    return int(fields[1]), int(fields[3])


def parse_stat_comm(text: str) -> str | None:
    """The name from /proc/PID/stat, what /proc/PID/comm holds (None: not a stat line).

    # Sample: 4242 (my (odd) name) S 4200 4242 ...
    """
    start, end = text.find("("), text.rfind(")")
    return text[start + 1 : end] if 0 <= start < end else None


def parse_stat_flags(text: str) -> int | None:
    """The task's flags from /proc/PID/stat (`PF_KTHREAD`: a kernel thread).

    # Sample: 2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 ...
    """
    fields = text[text.rfind(")") + 2 :].split()
    return int(fields[6]) if len(fields) > 6 and fields[6].isdigit() else None


def read_stats(proc: Path | str, pids: list[str]) -> dict[int, str]:
    """/proc/PID/stat of each process that is still there."""
    found = {}
    for other in pids:
        with contextlib.suppress(OSError):
            found[int(other)] = read_text_bounded(f"{proc}/{other}/stat", 4096)
    return found


def ours(pid: int, stats: dict[int, str]) -> frozenset[int]:
    """`pid` and its tools, among the processes whose /proc/PID/stat is `stats`: nastui starts
    each program in a session of its own (`nastui.collectors.runner`), so a process in a
    session led by a child of `pid` is one of its tools (fio, dd, blkid) or theirs. Other
    children (a test's helpers) are not."""
    ids = {p: found for p, text in stats.items() if (found := parse_stat_ids(text)) is not None}
    leaders = {p for p, (parent, session) in ids.items() if parent == pid and session == p}
    return frozenset({pid} | {p for p, (_, session) in ids.items() if session in leaders})


def kernel_threads(stats: dict[int, str]) -> frozenset[int]:
    """The kernel threads among the processes whose /proc/PID/stat is `stats`."""
    return frozenset(p for p, text in stats.items() if (parse_stat_flags(text) or 0) & PF_KTHREAD)


@dataclass(frozen=True, slots=True)
class MapLine:
    """One file mapping of /proc/PID/maps: its address range, file offset, st_dev and inode.

    # Sample: 7f2c1a000000-7f2c1a021000 rw-s 00100000 00:06 417   /dev/loop3
    """

    addresses: str
    offset: int
    length: int
    dev: str
    ino: int
    path: str


def _map_line(fields: list[str]) -> MapLine | None:
    """A file mapping from a maps line split in at most 6 fields; None for anything else."""
    if len(fields) < 5 or fields[4] == "0" or ":" in fields[0] or "-" not in fields[0]:
        return None
    try:
        low, high = (int(x, 16) for x in fields[0].split("-", 1))
        major, minor = (int(x, 16) for x in fields[3].split(":", 1))
        return MapLine(
            fields[0],
            int(fields[2], 16),
            high - low,
            f"{major}:{minor}",
            int(fields[4]),
            fields[5].strip() if len(fields) > 5 else "",
        )
    except ValueError:
        return None


def parse_maps(text: str) -> list[MapLine]:
    """The file mappings of /proc/PID/maps (anonymous ones, inode 0, left out)."""
    parsed = (_map_line(line.split(maxsplit=5)) for line in text.splitlines())
    return [line for line in parsed if line is not None]


def device_nodes(dev_dir: Path = Path("/dev")) -> dict[tuple[str, int], str]:
    """(st_dev, inode) of every block device node under `dev_dir` -> its device number."""
    found: dict[tuple[str, int], str] = {}
    for where, _dirs, files in os.walk(dev_dir):
        for name in files:
            with contextlib.suppress(OSError):
                st = (Path(where) / name).lstat()
                if stat.S_ISBLK(st.st_mode):
                    found[(devno(st.st_dev), st.st_ino)] = devno(st.st_rdev)
    return found


@dataclass(slots=True)
class ProcessUses:
    """What the processes use: `uses`, file names for messages, the processes this user may
    not look into (`denied`: a reason to refuse), and those whose descriptors, directories or
    maps /proc refused even though the user may (`unseen`: named, not refused)."""

    uses: list[Use] = field(default_factory=list)
    names: dict[File, str] = field(default_factory=dict)
    denied: list[str] = field(default_factory=list)
    unseen: list[UnseenProcess] = field(default_factory=list)


def why_unseen(parts: Iterable[str]) -> str:
    """What /proc refused, in words: "descriptors refused", "descriptors and maps refused";
    "io_uring files unnamed" when it named a file registered with an io_uring only by a path
    that leads nowhere (deleted, or in another mount namespace)."""
    parts = set(parts)
    named = [part for part in _PARTS if part in parts]
    said = []
    if named:
        listed = named[0] if len(named) < 2 else f"{', '.join(named[:-1])} and {named[-1]}"
        said.append(f"{listed} refused")
    if RING_FILES in parts:
        said.append(f"{RING_FILES} unnamed")
    return "; ".join(said)


def parse_ring_files(fdinfo: str) -> list[str]:
    """The files registered with an io_uring (IORING_REGISTER_FILES), from its fdinfo: a
    process may close its own descriptor of each and still read and write them through the
    ring, so /proc/PID/fd never shows them.

    # Sample: UserFiles:\t2\n    0: /srv/disk.img\n    1: /dev/loop3\nUserBufs:\t0
    """
    found: list[str] = []
    listing = False
    for line in fdinfo.splitlines():
        if line.startswith("UserFiles:"):
            listing = True
            continue
        if listing and line[:1] in (" ", "\t"):
            index, sep, name = line.strip().partition(": ")
            if sep and index.isdigit() and name:
                found.append(name)
            continue
        listing = False
    return found


Wanted = Callable[[Node], bool]


def everything(node: Node) -> bool:
    """Every use is wanted (the whole picture)."""
    return True


class _Label:
    """ "pid 4242 (comm)", or "pid 4242 (comm) in its thread 4250": the name given (from
    /proc/PID/stat, read for every process anyway), else /proc/PID/comm, read only when a use
    is recorded (most processes use nothing a verdict can look at)."""

    __slots__ = ("_comm", "base", "pid", "tid")

    def __init__(
        self, base: str, pid: int, tid: int | None = None, comm: str | None = None
    ) -> None:
        self.base, self.pid, self.tid = base, pid, tid
        self._comm: list[str] = [comm] if comm else []  # shared by its threads: read once

    def thread(self, tid: int) -> _Label:
        """The label of the process's task `tid` (the process's own when `tid` is its pid)."""
        if tid == self.pid:
            return self
        other = _Label(self.base, self.pid, tid)
        other._comm = self._comm
        return other

    @property
    def comm(self) -> str:
        """The process's name (as given, else /proc/PID/comm), "?" when it cannot be read."""
        if not self._comm:
            try:
                comm = read_text_bounded(f"{self.base}/comm", 4096).strip()
            except OSError:
                comm = ""  # gone meanwhile
            self._comm.append(comm or "?")
        return self._comm[0]

    def __str__(self) -> str:
        label = f"pid {self.pid} ({self.comm})"
        return label if self.tid is None else f"{label} in its thread {self.tid}"


@dataclass(slots=True)
class _Scan:
    """One pass over /proc, keeping the uses of nodes `wanted` says matter (a use of anything
    else is not built, named or labelled: the stat that tells what it is stays)."""

    proc: str
    kcmp: _Kcmp
    wanted: Wanted = everything
    kernel: frozenset[int] = frozenset()  # kernel threads (PF_KTHREAD)
    stats: dict[int, str] = field(default_factory=dict)  # /proc/PID/stat, read for `ours`
    shared: dict[int, int] = field(default_factory=dict)  # kcmp kind -> a kernel thread's task
    out: ProcessUses = field(default_factory=ProcessUses)
    mapped: dict[tuple[str, int], Node | None] = field(default_factory=dict)
    by_line: dict[tuple[str, str], Node | None] = field(default_factory=dict)  # None: unwanted
    nodes: dict[tuple[str, int], str] | None = None
    refused: set[str] = field(default_factory=set)  # what /proc refused of the process
    rings: dict[str, bool] = field(default_factory=dict)  # io_uring inode -> its files read

    def add(self, node: Node, key: str, what: str, name: str, span: Span | None = None) -> None:
        """A use of `node`; `name` names a file for messages ("/proc/..." links are read)."""
        self.out.uses.append(Use(span or Span(node), key, what))
        if isinstance(node, File) and node not in self.out.names:
            if name.startswith(f"{self.proc}/"):
                name = _link(name)
            if name:
                self.out.names[node] = name.removesuffix(" (deleted)")

    def entries(self, directory: str) -> Iterator[tuple[str, str, os.stat_result]]:
        """Each entry of a /proc fd directory (its name and path) and what it leads to
        (sockets and pipes left out).

        A descriptor refused with EACCES or EPERM ends the directory: /proc decides access to
        a task's descriptors for the task as a whole (`proc_fd_access_allowed`, one ptrace
        check), so every later one would be refused as well (a sandbox's process 1 here: ~270
        descriptors in each of 13 threads, 3,500 refused stats a look, half a look's time);
        the refusal is noted once there (`refused`). Any other error (ENOENT: closed
        meanwhile) skips that descriptor only.
        """
        try:
            with os.scandir(directory) as found:
                for entry in found:
                    try:
                        st = entry.stat()
                    except OSError as exc:
                        if exc.errno in REFUSALS:
                            self.refused.add(DESCRIPTORS)
                            return
                        continue
                    if not stat.S_ISSOCK(st.st_mode) and not stat.S_ISFIFO(st.st_mode):
                        yield entry.name, entry.path, st
        except OSError as exc:
            if exc.errno in REFUSALS:
                self.refused.add(DESCRIPTORS)
            return

    def task(self, pid: int, tid: int, label: _Label, fds: bool, dirs: bool) -> None:
        base = f"{self.proc}/{pid}/task/{tid}"
        key = f"pid {pid}"
        if fds:
            for name, path, st in self.entries(f"{base}/fd"):
                node = node_of(st)
                if node is None and stat.S_IFMT(st.st_mode) == 0:  # an anonymous inode
                    self.ring(pid, base, name, label, str(st.st_ino))
                if node is None or not self.wanted(node):
                    continue
                if isinstance(node, Block) and read_only(f"{base}/fdinfo/{name}"):
                    what = f"open read-only by {label}"
                    self.out.uses.append(Use(Span(node), key, what, brief=True))
                else:
                    self.add(node, key, f"open by {label}", path)
        if dirs:
            for which, what in (("cwd", "the working directory"), ("root", "the root directory")):
                try:
                    node = node_of(os.stat(f"{base}/{which}"))  # noqa: PTH116
                except OSError as exc:
                    if exc.errno in REFUSALS:
                        self.refused.add(DIRECTORIES)
                    continue
                if node is not None and self.wanted(node):
                    self.add(node, key, f"{what} of {label}", f"{base}/{which}")

    def ring(self, pid: int, base: str, fd: str, label: _Label, inode: str) -> None:
        """The files registered with descriptor `fd` when it is an io_uring: each a use, as
        an open descriptor would be (the process may write them through the ring). /proc
        names them by path only, as this process sees it, or as the process does (its root):
        one that leads nowhere is noted (`RING_FILES`), never dropped in silence."""
        if _link(f"{base}/fd/{fd}") != IO_URING:
            return
        self.rings[inode] = True
        try:
            names = parse_ring_files(read_text_bounded(f"{base}/fdinfo/{fd}", FDINFO_LIMIT))
        except OSError:
            return  # closed meanwhile
        for name in names:
            if not name.startswith("/"):
                continue  # a socket, a pipe, an anonymous inode: no file to write into
            nodes = _ring_nodes(name, f"{self.proc}/{pid}/root")
            if not nodes:
                self.refused.add(RING_FILES)
            for node in nodes:
                if self.wanted(node):
                    self.add(node, f"pid {pid}", f"registered with an io_uring of {label}", name)

    def mapping(self, pid: int, line: MapLine) -> Node | None:
        key = (line.dev, line.ino)
        if key not in self.mapped:
            node: Node | None = None
            try:
                where = f"{self.proc}/{pid}/map_files/{line.addresses}"
                node = node_of(os.stat(where))  # noqa: PTH116
            except OSError:
                if self.nodes is None:
                    self.nodes = device_nodes()
                rdev = self.nodes.get(key)
                node = Block(rdev) if rdev else File(line.dev, line.ino)
            self.mapped[key] = node
        return self.mapped[key]

    def maps(self, pid: int, label: _Label) -> None:
        try:
            text = read_text_bounded(f"{self.proc}/{pid}/maps", MAPS_LIMIT)
        except OSError as exc:
            if exc.errno in REFUSALS:
                self.refused.add(MAPS)
            return
        done: set[tuple[str, str]] = set()  # files recorded, and what is not wanted
        files: set[Node] = set()
        for text_line in text.splitlines():  # a line is parsed only when it matters
            fields = text_line.split(maxsplit=5)
            if len(fields) < 5 or fields[4] == "0":
                continue
            raw = (fields[3], fields[4])
            if len(fields) > 5 and fields[5].strip() == IO_URING:
                self.rings.setdefault(fields[4], False)  # read through a descriptor, or not
            if raw in done:
                continue
            node = self.by_line.get(raw)
            if raw not in self.by_line:
                line = _map_line(fields)
                if line is None:
                    continue
                node = self.mapping(pid, line)
                node = self.by_line[raw] = node if node is not None and self.wanted(node) else None
            if isinstance(node, Block):  # each range of a device counts by its bytes
                line = _map_line(fields)
                if line is not None:
                    span = Span(node, line.offset, line.offset + line.length)
                    self.add(node, f"pid {pid}", f"mapped by {label}", line.path, span)
                continue
            done.add(raw)  # a file: once, whatever its ranges
            if node is not None and node not in files:
                files.add(node)
                path = fields[5].strip() if len(fields) > 5 else ""
                self.add(node, f"pid {pid}", f"mapped by {label}", path)

    def process(self, pid: int) -> None:
        base = f"{self.proc}/{pid}"
        label = _Label(base, pid, comm=parse_stat_comm(self.stats.get(pid, "")))
        tasks = sorted(
            (int(t) for t in _names(f"{base}/task") if t.isdigit()), key=lambda t: t != pid
        )
        if not os.access(f"{base}/fd", os.R_OK) and Path(base).exists():
            self.out.denied.append(str(label))
            return
        self.refused.clear()
        self.rings.clear()
        files = set(_distinct(tasks, KCMP_FILES, self.kcmp))
        dirs = set(_distinct(tasks, KCMP_FS, self.kcmp))
        kernel = pid in self.kernel
        if kernel:
            files = {tid for tid in files if not self.seen_in_kernel(tid, KCMP_FILES)}
            dirs = {tid for tid in dirs if not self.seen_in_kernel(tid, KCMP_FS)}
        for tid in tasks:
            self.task(pid, tid, label.thread(tid), tid in files, tid in dirs)
        # A kernel thread's maps are always empty (get_task_mm gives a PF_KTHREAD task no mm,
        # even one borrowing a process's); a task loses the flag only by exec (an old
        # kernel's helper), and its stat says so from then on: a process that had a mapping
        # when the look began is read as what it is.
        if not kernel:
            self.maps(pid, label)
        if not all(self.rings.values()):  # a ring mapped, its descriptor closed: files unknown
            self.refused.add(RING_FILES)
        if self.refused:
            self.out.unseen.append(UnseenProcess(pid, label.comm, why_unseen(self.refused)))

    def seen_in_kernel(self, tid: int, kind: int) -> bool:
        """Whether kernel thread `tid` shares its table (`kind`) with the first kernel thread
        met in this look, whose table is looked at: kthreadd starts them all sharing its
        descriptors and directories (CLONE_FILES, CLONE_FS), about 60 of this box's 80
        processes. The first is kept as the one to compare with; kcmp answers for the
        table as it is now, as it does for a process's threads."""
        first = self.shared.setdefault(kind, tid)
        return first != tid and self.kcmp.same(first, tid, kind) is True


def read_only(fdinfo: Path | str) -> bool:
    """Whether a descriptor was opened read-only, from /proc/PID/fdinfo/N.

    # Sample: flags:\t0100000
    """
    try:
        text = read_text_bounded(fdinfo, 64 * 1024)
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("flags:"):
            try:
                return int(line.split(":", 1)[1].strip(), 8) & os.O_ACCMODE == os.O_RDONLY
            except ValueError:
                return False
    return False


def _ring_nodes(name: str, root: str) -> set[Node]:
    """What an io_uring's file named `name` is: as this process resolves the name, and as
    the ring's process does (under its `root`); empty when neither leads to a file (deleted)."""
    nodes: set[Node] = set()
    if name.endswith(" (deleted)"):
        return nodes
    for where in (name, f"{root}{name}"):
        with contextlib.suppress(OSError):
            node = node_of(os.stat(where))  # noqa: PTH116
            if node is not None:
                nodes.add(node)
    return nodes


def _link(path: str) -> str:
    try:
        return os.readlink(path)  # noqa: PTH115
    except OSError:
        return ""


def process_uses(
    proc: Path = Path("/proc"), own: int | None = None, wanted: Wanted = everything
) -> ProcessUses:
    """Every process's uses of the nodes `wanted` keeps (default: all of them), but those of
    `own` (default: this process) and its children.

    Every descriptor is looked at on every call, however many calls before saw the same
    descriptor numbers: a number closed and opened again on another file leaves the listing
    of /proc/PID/fd as it was, and /proc shows nothing (no generation, no time) that tells the
    two apart; nor can a process be skipped because it has not run since (its descriptor
    table may be shared with another process, CLONE_FILES, and io_uring workers open files
    for it). Only what is built from each stat is cut down, by `wanted`.
    """
    pids = [p for p in _names(proc) if p.isdigit()]
    stats = read_stats(proc, pids)
    skip = ours(os.getpid() if own is None else own, stats)
    scan = _Scan(str(proc), _Kcmp(), wanted, kernel_threads(stats), stats)
    for pid in pids:
        if int(pid) not in skip:
            scan.process(int(pid))
    return scan.out
