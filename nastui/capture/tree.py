"""Copying a poll's footprint (`nastui.capture.observe`) from the root into the bundle's tree.

Every path is followed as the kernel would, component by component, so the links on the way
(/sys/block/sda -> ../devices/..., /dev/disk/by-id/...) are made again with the same text
(an absolute one made relative to the tree). Then, by what the poll did with it:
- opened, a regular file: copied, at most `FILE_LIMIT` bytes; from /etc only what nastui uses
  (the host name, the scrub lines of cron tables, systemd timers: `schedule_lines`);
- listed, a directory: its entries made again (links and where they lead, directories, empty
  files);
- only looked at (`exists()`, `is_dir()`): made again empty;
- a device node, FIFO or socket: never opened; under /dev an empty file stands for it (its kind
  is in the manifest), elsewhere it is left out.
Private places are never copied: /proc/PID other than its mount table, /etc beyond the above,
nastui's own state and configuration (the configuration comes redacted, `redact`). Every path
and content goes through the serial mask.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from nastui.capture.mask import SerialMask
from nastui.capture.observe import Footprint
from nastui.collectors.schedule import (
    CRON_DIRS,
    CRON_FILES,
    MAINTENANCE,
    UNIT_DIRS,
    schedule_lines,
)
from nastui.safeio import MIB, read_bounded

FILE_LIMIT = 4 * MIB
LIST_LIMIT = 10_000  # entries made again per listed directory
MAX_HOPS = 40  # links followed for one path, as the kernel's limit
_PROC_TABLES = ("mountinfo", "mounts")
_NODE_KINDS = (
    (stat.S_ISBLK, "block device"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISSOCK, "socket"),
)


def keeping(relative: str) -> str | None:
    """How a regular file at `relative` is kept: "whole", "schedule" (the lines nastui uses),
    "empty" (only its presence is used); None: left out."""
    parts = relative.split("/")
    if parts[0] in ("sys", "dev"):
        return "whole"
    if parts[0] == "proc":
        pid = len(parts) > 1 and parts[1].isdigit()
        return "whole" if not pid or parts[2:] in ([t] for t in _PROC_TABLES) else None
    if relative == "etc/hostname":
        return "whole"
    if relative == "etc/zfs/zpool.cache":
        return "empty"
    return "schedule" if schedule_lines(relative, "") is not None else None


_ETC_PLACES = (
    "etc/hostname",
    "etc/zfs/zpool.cache",
    *UNIT_DIRS,
    *CRON_DIRS,
    *CRON_FILES,
    *MAINTENANCE,
)


def in_bundle_area(relative: str) -> bool:
    """Whether a path may be in a bundle at all: /sys, /dev, /proc, and in /etc, /usr, /lib
    and /var only the places `keeping` keeps (and the directories leading to them)."""
    if relative.split("/", maxsplit=1)[0] in ("sys", "dev", "proc"):
        return True
    return any(
        relative == place or relative.startswith(place + "/") or place.startswith(relative + "/")
        for place in _ETC_PLACES
    )


def _directory_kept(relative: str) -> bool:
    """A directory made again from a listing: not a process's (/proc/PID)."""
    parts = relative.split("/")
    return not (parts[0] == "proc" and len(parts) == 2 and parts[1].isdigit())


@dataclass
class TreeReport:
    """What the copy did: files with content, empty stand-ins, device nodes, and what was left
    out with why (paths relative to the root, masked)."""

    copied: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    nodes: dict[str, str] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)


class TreeCopy:
    """Copies paths under `root` into `dest`, masking names and contents with `mask`."""

    def __init__(self, root: Path, dest: Path, mask: SerialMask) -> None:
        self._root = root
        self._dest = dest
        self._mask = mask
        self.report = TreeReport()

    def _out(self, relative: PurePosixPath) -> Path:
        return self._dest / self._mask.text(str(relative))

    def _dir(self, relative: PurePosixPath) -> None:
        self._out(relative).mkdir(parents=True, exist_ok=True)

    def _link(self, relative: PurePosixPath, target: str) -> None:
        out = self._out(relative)
        if out.is_symlink() or out.exists():
            return
        if target.startswith("/"):  # the tree's own root, wherever it is unpacked
            target = os.path.relpath(target.lstrip("/") or ".", str(relative.parent))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.symlink_to(self._mask.text(target))

    def _write(self, relative: PurePosixPath, data: bytes, *, listed: str) -> None:
        out = self._out(relative)
        if out.is_symlink() or out.exists():
            return
        out.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, self._mask.data(data))
        finally:
            os.close(fd)
        getattr(self.report, listed).append(self._mask.text(str(relative)))

    def walk(self, relative: str, *, follow: bool) -> tuple[PurePosixPath, os.stat_result] | None:
        """Make the directories and links along `relative` again; the path it physically
        leads to (its last link followed if `follow`) with its `lstat`; None when missing."""
        stack = list(reversed(PurePosixPath(relative).parts))
        here, hops = PurePosixPath("."), 0
        while stack:
            part = stack.pop()
            if part in ("", ".", "/"):
                continue
            if part == "..":
                here = here.parent
                continue
            there = here / part
            try:
                info = os.lstat(self._root / there)
            except OSError:
                return None
            if stat.S_ISLNK(info.st_mode):
                target = str((self._root / there).readlink())
                self._link(there, target)
                hops += 1
                if (not stack and not follow) or hops > MAX_HOPS:
                    return (there, info) if not stack else None
                if target.startswith("/"):
                    here = PurePosixPath(".")
                stack.extend(reversed(PurePosixPath(target).parts))
                continue
            if not stack:
                return there, info
            if not stat.S_ISDIR(info.st_mode):
                return None
            self._dir(there)
            here = there
        return None

    def _node(self, relative: PurePosixPath, info: os.stat_result) -> bool:
        """A device node, FIFO or socket: an empty stand-in under /dev, else left out. False
        when it is none of those."""
        kind = next((name for test, name in _NODE_KINDS if test(info.st_mode)), None)
        if kind is None:
            return False
        name = self._mask.text(str(relative))
        if relative.parts[0] == "dev":
            self.report.nodes[name] = kind
            self._write(relative, b"", listed="empty")
        else:
            self.report.left_out[name] = f"a {kind}: never opened"
        return True

    def _content(self, relative: PurePosixPath) -> bytes | None:
        text = str(relative)
        how = keeping(text)
        if how is None:
            self.report.left_out[self._mask.text(text)] = "not needed to replay, may be private"
            return None
        if how == "empty":
            return b""
        try:
            data = read_bounded(self._root / relative, FILE_LIMIT, follow=False)
        except OSError as exc:
            self.report.left_out[self._mask.text(text)] = str(exc.strerror or exc)
            return None
        if how == "schedule":
            kept = schedule_lines(text, data.decode("utf-8", "replace"))
            return (kept or "").encode()
        return data

    def opened(self, relative: str) -> None:
        """A path the poll opened."""
        if not in_bundle_area(relative):
            self.report.left_out[self._mask.text(relative)] = "not needed to replay, may be private"
            return
        found = self.walk(relative, follow=True)
        if found is None:
            return
        there, info = found
        if stat.S_ISDIR(info.st_mode):
            self._dir(there)
        elif not self._node(there, info) and stat.S_ISREG(info.st_mode):
            data = self._content(there)
            if data is not None:
                self._write(there, data, listed="copied" if data else "empty")

    def looked(self, relative: str, *, follow: bool = False) -> PurePosixPath | None:
        """A path the poll only looked at: made again, a file empty. Returns where it led."""
        if not in_bundle_area(relative):
            return None
        found = self.walk(relative, follow=follow)
        if found is None:
            return None
        there, info = found
        if stat.S_ISDIR(info.st_mode):
            self._dir(there)
        elif (
            not self._node(there, info)
            and stat.S_ISREG(info.st_mode)
            and keeping(str(there)) is not None
        ):
            self._write(there, b"", listed="empty")
        return there

    def listed(self, relative: str) -> None:
        """A directory the poll listed: its entries made again."""
        there = self.looked(relative, follow=True)
        if there is None or not (self._root / there).is_dir():
            return
        try:
            names = sorted(p.name for p in (self._root / there).iterdir())[:LIST_LIMIT]
        except OSError:
            return
        for name in names:
            entry = there / name
            if _directory_kept(str(entry)):
                self.looked(str(entry), follow=True)  # a link and where it leads

    def copy(self, footprint: Footprint) -> TreeReport:
        """Everything the poll touched: what it opened first (so contents win over empties)."""
        for relative in sorted(footprint.opened):
            self.opened(relative)
        for relative in sorted(footprint.listed):
            self.listed(relative)
        for relative in sorted(footprint.looked):
            self.looked(relative)
        return self.report
