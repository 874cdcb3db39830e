"""The device-in-use guard: never write to a device something else uses.

Four layers, each enough to refuse; `--confirm` overrides none of them:
1. the inspection (`nastui.collectors.fio_target`, `nastui.collectors.blockstack`): everything
   stacked on the device (partitions, holders, loop devices on it or on a file on it, at any
   offset), any of it mounted, swap, open in another process or exported (LIO, NVMe-oF), and
   signatures and labels at every offset their formats use; anything found is in
   `BenchTarget.in_use` and `refusal` says no;
2. the confirmation: writing to a raw device needs its serial number typed (WWN, or the path
   for a device that reports neither), never just /dev/sdX, which changes between boots;
3. the kernel: `ExclusiveHold` opens the device O_EXCL and keeps it open for the whole run, so
   it fails with EBUSY on a device mounted, used as swap or claimed by md, LVM or ZFS, and nobody
   can mount or assemble it while the benchmark writes;
4. the second look: once held, the runner inspects the device again (`BenchHost.in_use`), so a
   use that began after the first look (a loop device, which O_EXCL does not stop) refuses too.
A custom fio job only carries allowlisted options (`nastui.bench.fiojob`): the target is the
only file it names.
Directory targets are written only inside a fresh directory made for the run and removed after.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from nastui.bench.jobs import Step, Tool
from nastui.model import BenchTarget, TargetKind

FRESH_PREFIX = "nastui-bench-"
_WRITING = ("write", "rw", "trim")


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


def refusal(target: BenchTarget, *, writing: bool, confirm: str | None) -> str | None:
    """Why a run on `target` must not start, in one line; None when it may.

    Args:
        target: as inspected.
        writing: whether the run writes.
        confirm: what the user typed to confirm raw writes (None: nothing typed).
    """
    if target.kind is TargetKind.DIRECTORY or not writing:
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


class ExclusiveHold:
    """The target device opened O_EXCL for as long as the run lasts."""

    def __init__(self, device: str) -> None:
        self.device = device
        self._fd: int | None = None

    def __enter__(self) -> ExclusiveHold:
        try:
            self._fd = os.open(self.device, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
        except OSError as exc:
            if exc.errno == errno.EBUSY:
                raise GuardRefused(
                    f"{self.device} is busy (the kernel refused an exclusive open: mounted, "
                    "swap, an md/LVM/ZFS member, or held by another program): nothing written"
                ) from exc
            raise GuardRefused(f"{self.device} cannot be opened: {exc.strerror}") from exc
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        """Whether the device is held now."""
        return self._fd is not None


def fresh_directory(parent: Path, run_id: str) -> Path:
    """A new, empty directory for the run's files inside `parent` (mode 0700).

    Raises:
        GuardRefused: `parent` is not a writable directory, or the name is taken.
    """
    if not parent.is_dir():
        raise GuardRefused(f"{parent} is not a directory")
    path = parent / f"{FRESH_PREFIX}{run_id}"
    try:
        path.mkdir(mode=0o700)
    except FileExistsError as exc:
        raise GuardRefused(f"{path} already exists: nastui only writes in a fresh one") from exc
    except OSError as exc:
        raise GuardRefused(f"cannot make {path}: {exc.strerror}") from exc
    return path


def remove_fresh(path: Path) -> None:
    """Remove a directory `fresh_directory` made, with everything in it (and nothing else)."""
    if not path.name.startswith(FRESH_PREFIX) or path.is_symlink():
        raise ValueError(f"{path} is not a benchmark's own directory")
    shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def workspace(target: BenchTarget, run_id: str, *, writing: bool) -> Iterator[Path]:
    """Where the run's files go, guarded for the whole run; cleaned up afterwards.

    Yields the test file's path: inside a fresh directory for a directory target, the device
    itself (held O_EXCL when the run writes) for a device.
    """
    if target.kind is TargetKind.DEVICE:
        if not writing:
            yield Path(target.path)
            return
        with ExclusiveHold(target.path):
            yield Path(target.path)
        return
    fresh = fresh_directory(Path(target.path), run_id)
    try:
        yield fresh / "nastui-bench.dat"
    finally:
        remove_fresh(fresh)
