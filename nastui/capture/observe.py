"""What nastui touches under a root while it polls: the footprint a capture bundle copies.

Instead of a list of paths kept beside the collectors (and wrong the day one changes), capture
watches one real poll: every file opened and every directory listed (Python's audit events
`open`, `os.listdir`, `os.scandir`), and every path looked at without opening it (`os.stat`,
`os.lstat`, `os.readlink`, wrapped while watching: `exists()`, `is_dir()`, `resolve()`). The
bundle then holds exactly what the collectors used, so a replay reads the same things.

One watch at a time per process. The audit hook, once added, stays (Python cannot remove one);
it does nothing while no watch is on.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_EVENTS = {"open": "opened", "os.listdir": "listed", "os.scandir": "listed"}


@dataclass
class Footprint:
    """Paths under `root` (relative, as written by the code, "sys/block/sda/size") that a poll
    opened, listed, or only looked at."""

    root: Path
    opened: set[str] = field(default_factory=set)
    listed: set[str] = field(default_factory=set)
    looked: set[str] = field(default_factory=set)

    def under(self, root: Path) -> Footprint:
        """The paths under `root`, relative to it (this footprint's root being "/")."""
        prefix = str(root).strip("/")
        if not prefix:
            return Footprint(root, set(self.opened), set(self.listed), set(self.looked))

        def inside(paths: set[str]) -> set[str]:
            return {p[len(prefix) + 1 :] for p in paths if p.startswith(prefix + "/")}

        return Footprint(root, inside(self.opened), inside(self.listed), inside(self.looked))

    def note(self, kind: str, path: object) -> None:
        """Record `path` (a str, bytes or path-like; a file descriptor is ignored) as `kind`."""
        if isinstance(path, int) or path is None:
            return
        try:
            text = os.fsdecode(os.fspath(path))  # type: ignore[call-overload]
        except TypeError:
            return
        absolute = os.path.normpath(Path.cwd() / text)
        root = str(self.root).rstrip("/")
        if root and absolute != root and not absolute.startswith(root + "/"):
            return
        relative = absolute[len(root) :].lstrip("/")
        if relative:
            getattr(self, kind).add(relative)


@dataclass
class _Watch:
    """The process's one watch, and whether the audit hook is in."""

    footprint: Footprint | None = None
    hooked: bool = False


_WATCH = _Watch()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    watch = _WATCH.footprint
    if watch is None:
        return
    kind = _EVENTS.get(event)
    if kind is not None and args:
        watch.note(kind, args[0] if args[0] is not None else ".")


def _looking(real: Callable[..., Any]) -> Callable[..., Any]:
    def looked(path: Any, *args: Any, **kwargs: Any) -> Any:
        watch = _WATCH.footprint
        if watch is not None:
            watch.note("looked", path)
        return real(path, *args, **kwargs)

    return looked


@contextmanager
def watching(root: Path) -> Iterator[Footprint]:
    """Record what is touched under `root` until the block ends.

    Raises:
        RuntimeError: a watch is already on in this process.
    """
    if _WATCH.footprint is not None:
        raise RuntimeError("a capture is already watching in this process")
    if not _WATCH.hooked:
        sys.addaudithook(_audit)
        _WATCH.hooked = True
    real = {name: getattr(os, name) for name in ("stat", "lstat", "readlink")}
    footprint = Footprint(root)
    _WATCH.footprint = footprint
    for name, function in real.items():
        setattr(os, name, _looking(function))
    try:
        yield footprint
    finally:
        for name, function in real.items():
            setattr(os, name, function)
        _WATCH.footprint = None
