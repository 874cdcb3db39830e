"""The device-in-use guard: a benchmark writes only where nothing else uses a byte it reaches.

Five layers, each enough to refuse; `--confirm` overrides none of them:
1. the footprint rule (`nastui.core.footprint`, read by `nastui.collectors.blockstack`): from
   the target, everything a write to it lands on (loop backings at their offsets, a partition's
   range of its disk, dm/md members, a backing file and the filesystem and devices holding it),
   and every other user of any of it (mounts, holders, partitions, other loop devices over an
   overlapping range or the same file, swap, every task's descriptors, working directories and
   mappings, exports, exclusive claims); plus signatures and labels at every offset their
   formats use, on the target and on the devices below it its loop devices write to raw.
   Anything found is in `BenchTarget.in_use` and `refusal` says no;
2. the confirmation: writing to a raw device needs its serial number typed (WWN, or the path
   for a device that reports neither), never just /dev/sdX, which changes between boots;
3. the device, not a path: the path is resolved once, at the inspection, to a device number;
   `ExclusiveHold` opens it O_EXCL (refused if it is now another device) and keeps it open
   for the whole run, so the kernel refuses mounts, swap, md, LVM and ZFS meanwhile, and so
   every device below it that its writes reach raw through a loop device, which the loop
   device does not claim (`held_device`: a `btrfs device add` of one mid-run); the tools
   get `/proc/PID/fd/N` of that descriptor, a path nobody else can point elsewhere, and the
   device number is checked again after every step;
4. the second look: once held, the device is inspected again (`BenchHost.in_use`), so a use
   that began after the first look (a loop device, which O_EXCL does not stop) refuses too;
5. the watch: while the run writes, the footprint is inspected again every half second
   (`BenchHost.uses_now`); a new user, or a footprint that changed, stops the tool at once
   (the partial result is kept and the run ends refused, saying why).
What the looks cannot see is said, not refused: a process whose descriptors, directories or
maps /proc refuses even to root (`BenchTarget.unseen`; a process of a parent user namespace,
such as a sandbox's process 1) is named in one line before a run that writes (`unseen_note`),
and the watch names one that becomes so while the run writes, once: refusing would stop every
run on a machine that has one, and only the operator knows what it is.
A custom fio job only carries allowlisted options (`nastui.bench.fiojob`): the target is the
only file it names. Target names with whitespace or control characters are refused (fio
strips and splits names).
Directory targets are written only inside a fresh directory made for the run (through a
descriptor of the directory inspected; a name already taken is never reused, the next free one
is made) and removed after. A run that may take (nearly) all of a directory's free space
(`fills`: the fill profile, a custom job) is refused when something else needs that space to
write (`BenchTarget.starved`: a loop device over a file on that filesystem).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from nastui.bench.fiojob import job_space
from nastui.bench.jobs import Step, Tool
from nastui.bench.names import MAX_TRIES, numbered
from nastui.bench.profiles import FILL_MARGIN, plan
from nastui.bench.sizes import parse_size
from nastui.model import BenchSettings, BenchTarget, TargetKind, UnseenProcess

FRESH_PREFIX = "nastui-bench-"
TEST_FILE = "nastui-bench.dat"
_WRITING = ("write", "rw", "trim")
MAX_UNSEEN_NAMED = 3  # processes named in the unseen line; the rest counted


class GuardRefused(Exception):
    """The guard said no; the message says why and what to do."""


def writes(steps: Iterable[Step]) -> bool:
    """Whether any step writes (fio write/randwrite/rw/randrw/trim, dd write, wsc, custom)."""
    for step in steps:
        if step.tool is Tool.WSC or step.param("job") is not None:
            return True
        rw = step.param("rw") or ""
        if step.tool is Tool.DD and rw == "write":
            return True
        if step.tool is Tool.FIO and any(w in rw for w in _WRITING):
            return True
    return False


def space(step: Step) -> int | None:
    """How much of a directory's free space a step may take: its file's size (fio's `size`,
    a custom job's largest `size`), else what it transfers; None when that is
    not known."""
    job = step.param("job")
    if job is not None:
        return job_space(job)
    size = step.param("size")
    if size is None:
        return step.bytes_total
    try:
        return parse_size(size)
    except ValueError:
        return None


def fills(steps: Iterable[Step], target: BenchTarget) -> bool:
    """Whether a run's writes may take (nearly) all of a directory's free space: a writing
    step that writes files until the filesystem is full (the fill profile's, `nrfiles` of
    them), one whose size is not known (a custom job's in percent), or one that would leave
    less than the margin the fill leaves."""
    free = target.free_bytes
    for step in steps:
        if not writes((step,)):
            continue
        taken = space(step)
        if taken is None or free is None or step.param("nrfiles") is not None:
            return True
        if taken >= free - FILL_MARGIN:
            return True
    return False


def refusal(
    target: BenchTarget, *, writing: bool, confirm: str | None, filling: bool = False
) -> str | None:
    """Why a run on `target` must not start, in one line; None when it may.

    Args:
        target: as inspected.
        writing: whether the run writes.
        confirm: what the user typed to confirm raw writes (None: nothing typed).
        filling: whether the run may take a directory's free space (`fills`).
    """
    if target.kind is TargetKind.DIRECTORY:
        if not (writing and filling and target.starved):
            return None
        return f"{target.path}: the run may fill its filesystem, nothing written: " + "; ".join(
            target.starved
        )
    if not writing:
        return None
    if target.in_use:
        return f"{target.path} is in use, nothing written: " + "; ".join(target.in_use)
    token = target.confirm_token
    what = "serial number" if token != target.path else "path (it reports no serial number)"
    if confirm is None or confirm.strip() != token:
        typed = "" if confirm is None else f" ({confirm.strip()!r} does not match)"
        return (
            f"writing to {target.path} destroys its data: type its {what} {token} to confirm{typed}"
        )
    return None


def unseen_line(processes: Sequence[UnseenProcess]) -> str:
    """The processes that could not be looked into, in one line: "could not look into 1
    process: pid 1 (init), its descriptors refused by /proc: a write it holds open would not
    be seen"."""
    count = len(processes)
    named = [f"pid {p.pid} ({p.comm}), its {p.why} by /proc" for p in processes[:MAX_UNSEEN_NAMED]]
    if count > MAX_UNSEEN_NAMED:
        named.append(f"and {count - MAX_UNSEEN_NAMED} more")
    holder = "it holds" if count == 1 else "they hold"
    return (
        f"could not look into {count} process{'es' * (count != 1)}: {'; '.join(named)}: "
        f"a write {holder} open would not be seen"
    )


def plan_writes(settings: BenchSettings, target: BenchTarget) -> bool:
    """Whether running `settings` on `target` writes (a plan that cannot be made does not:
    the run refuses before anything)."""
    try:
        return writes(plan(settings, target))
    except ValueError:
        return False


def unseen_note(settings: BenchSettings, target: BenchTarget) -> str | None:
    """The line to show before a run of `settings` that writes to `target`, when its
    inspection could not look into some process (`unseen_line`); None otherwise. Never a
    refusal: the operator decides."""
    if not target.unseen or not plan_writes(settings, target):
        return None
    return unseen_line(target.unseen)


@dataclass(frozen=True, slots=True)
class Place:
    """Where a run's tools read and write: a path through a descriptor nastui holds
    (/proc/PID/fd/N), which nobody else can point elsewhere, and the device number it must be
    (None for a directory's test file)."""

    path: str
    devno: str | None = None

    def recheck(self) -> None:
        """Raise `GuardRefused` unless the path still leads to the device held."""
        if self.devno is None:
            return
        try:
            st = Path(self.path).stat()
        except OSError as exc:
            raise GuardRefused(f"the held device cannot be checked: {exc.strerror}") from exc
        if not stat.S_ISBLK(st.st_mode) or _devno(st.st_rdev) != self.devno:
            raise GuardRefused(f"the held device is no longer device {self.devno}: stopped")


def _devno(raw: int) -> str:
    return f"{os.major(raw)}:{os.minor(raw)}"


def held_path(fd: int) -> str:
    """A path to this process's descriptor that any of its tools can open."""
    return f"/proc/{os.getpid()}/fd/{fd}"


class ExclusiveHold:
    """The target device opened (O_EXCL when `exclusive`) for as long as the run lasts, and
    refused unless it is device `devno` when that is given; `below`: the target, when the
    device held is one its writes reach through a loop device (for the messages)."""

    def __init__(
        self,
        device: str,
        devno: str | None = None,
        *,
        exclusive: bool = True,
        below: str | None = None,
    ) -> None:
        self.device, self.devno, self.exclusive = device, devno, exclusive
        self.below = below
        self._fd: int | None = None

    @property
    def _named(self) -> str:
        """The device in words: "/dev/loop6" or "/dev/loop6 (the target /dev/loop7 writes to
        it through a loop device)"."""
        if self.below is None:
            return self.device
        return f"{self.device} (the target {self.below} writes to it through a loop device)"

    def __enter__(self) -> ExclusiveHold:
        flags = os.O_RDONLY | os.O_CLOEXEC | (os.O_EXCL if self.exclusive else 0)
        try:
            self._fd = os.open(self.device, flags)
        except OSError as exc:
            if exc.errno == errno.EBUSY:
                raise GuardRefused(
                    f"{self._named} is busy (the kernel refused an exclusive open: mounted, "
                    "swap, an md/LVM/ZFS/btrfs member, or held by another program): "
                    "nothing written"
                ) from exc
            raise GuardRefused(f"{self._named} cannot be opened: {exc.strerror}") from exc
        st = os.fstat(self._fd)
        if self.devno is not None and (
            not stat.S_ISBLK(st.st_mode) or _devno(st.st_rdev) != self.devno
        ):
            self.__exit__()
            now = _devno(st.st_rdev) if stat.S_ISBLK(st.st_mode) else "something else"
            raise GuardRefused(
                f"{self._named} now names {now}, not the device inspected ({self.devno}): "
                "nothing written"
            )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        """Whether the device is held now."""
        return self._fd is not None

    @property
    def place(self) -> Place:
        """The held device as a `Place` for the tools."""
        if self._fd is None:
            raise GuardRefused(f"{self.device} is not held")
        st = os.fstat(self._fd)
        return Place(held_path(self._fd), _devno(st.st_rdev) if stat.S_ISBLK(st.st_mode) else None)


@contextlib.contextmanager
def held_device(target: BenchTarget, *, writing: bool) -> Iterator[ExclusiveHold]:
    """The target device held as inspected (`ExclusiveHold`, O_EXCL when `writing`) and, when
    writing, every device below it that its writes reach raw through a loop device
    (`BenchTarget.lowers`), O_EXCL too, for as long as the block lasts: a loop device claims
    nothing under it, so a mount, a swapon, mkfs or `btrfs device add` of one of those would
    otherwise go through while the run writes into it (the watch would only stop the run
    afterwards)."""
    with contextlib.ExitStack() as holds:
        hold = holds.enter_context(ExclusiveHold(target.path, target.devno, exclusive=writing))
        for path, number in target.lowers if writing else ():
            holds.enter_context(ExclusiveHold(path, number, below=target.path))
        yield hold


def fresh_name(run_id: str) -> str:
    """The name of a run's fresh directory (unless another run had it first)."""
    return f"{FRESH_PREFIX}{run_id}"


class FreshDirectory:
    """A new, empty directory (mode 0700) made for the run inside the directory inspected and
    held open; removed with everything in it afterwards. The parent is opened once and checked
    against the inspection (`identity`: its filesystem's device number and its inode); all the
    rest goes through descriptors, so renaming or swapping any path meanwhile changes nothing.

    It is named after the run; when something has that name (a run going on in another
    process, one killed before it cleaned up, anything else), the next free name with "-2",
    "-3"... is made instead: `mkdir` makes a name only if nothing has it, in one step, so what
    was there is never written into, reused or removed, and of two runs racing for one name
    each gets its own."""

    def __init__(self, parent: Path, run_id: str, identity: tuple[str, int] | None = None) -> None:
        self.parent, self.name, self.identity = parent, fresh_name(run_id), identity
        self._fds: list[int] = []

    @property
    def path(self) -> Path:
        """Where the fresh directory is (for messages)."""
        return self.parent / self.name

    def _open_parent(self) -> int:
        try:
            parent = os.open(self.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise GuardRefused(f"{self.parent} is not a directory: {exc.strerror}") from exc
        st = os.fstat(parent)
        if self.identity is not None and (_devno(st.st_dev), st.st_ino) != self.identity:
            os.close(parent)
            raise GuardRefused(f"{self.parent} is no longer the directory inspected")
        return parent

    def __enter__(self) -> Place:
        self._fds.append(self._open_parent())
        try:
            self.name = self._make(self._fds[0])
        except BaseException:
            self.__exit__()
            raise
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        self._fds.append(os.open(self.name, flags, dir_fd=self._fds[0]))
        os.fchmod(self._fds[1], 0o700)
        return Place(f"{held_path(self._fds[1])}/{TEST_FILE}")

    def _make(self, parent: int) -> str:
        """Make the first free name of the run's inside `parent`; the name made.

        Raises:
            GuardRefused: every name tried is taken, or the directory cannot be made
                (permissions, a full or read-only disk).
        """
        for name in numbered(self.name, MAX_TRIES):
            try:
                os.mkdir(name, 0o700, dir_fd=parent)
            except FileExistsError:
                continue
            except OSError as exc:
                raise GuardRefused(f"cannot make {self.parent / name}: {exc.strerror}") from exc
            return name
        raise GuardRefused(
            f"{self.path} and the next {MAX_TRIES - 1} names with -2, -3... already exist: "
            "nastui only writes in a fresh directory (remove the leftovers of earlier runs)"
        )

    def __exit__(self, *exc: object) -> None:
        if len(self._fds) == 2:
            shutil.rmtree(self.name, dir_fd=self._fds[0], ignore_errors=True)
        for fd in reversed(self._fds):
            os.close(fd)
        self._fds.clear()


@contextlib.contextmanager
def workspace(target: BenchTarget, run_id: str, *, writing: bool) -> Iterator[Place]:
    """Where the run's files go, guarded for the whole run; cleaned up afterwards.

    Yields the tools' path: the test file inside a fresh directory for a directory target;
    the device itself, through the descriptor held (O_EXCL when the run writes), for a device.
    """
    if target.kind is TargetKind.DEVICE:
        with held_device(target, writing=writing) as hold:
            yield hold.place
        return
    identity = None
    if target.devno is not None and target.inode is not None:
        identity = (target.devno, target.inode)
    with FreshDirectory(Path(target.path), run_id, identity) as place:
        yield place
