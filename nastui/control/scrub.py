"""Scrub actions: start, pause and stop a pool's scrub (an md array's check), the `Scrubber`
seam the CLI and the UI call.

- ZFS: libzfs_core through pyzfs when it offers the call (`scrub_zfs`), else `zpool scrub`,
  `zpool scrub -p`, `zpool scrub -s`; `ScrubResult.method` says which was used.
- btrfs: `btrfs scrub start MNT` / `btrfs scrub cancel MNT`; btrfs has no pause.
- md: "check" or "idle" written to /sys/block/mdX/md/sync_action; md has no pause either.

Every action says what happened in one line and never raises; lack of root is reported as such
(`ScrubResult.permission`), and an action a pool kind cannot do as unsupported.

Commands run through the one runner (`nastui.collectors.runner.run`), which the front end hands
in: the layers keep control from importing collectors.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Protocol, runtime_checkable

from nastui.control.runproto import Runner, RunResult
from nastui.control.scrub_zfs import LzcScrub, load_lzc_scrub, outcome
from nastui.model import Pool, PoolKind, ScrubAction, ScrubResult

_DENIED = ("Operation not permitted", "Permission denied", "must be superuser", "permission denied")
_PAUSE = {
    PoolKind.BTRFS: "btrfs has no scrub pause: stop cancels it, and `btrfs scrub resume` "
    "continues a canceled scrub later",
    PoolKind.MDRAID: "md has no check pause: stop ends it (the next check starts over)",
}


class Scrubber(Protocol):
    """Something that can start, pause or stop a pool's scrub."""

    async def scrub(self, pool: Pool, action: ScrubAction) -> ScrubResult:
        """Do `action` on `pool`; never raises for a tool failure (see `ScrubResult.ok`)."""
        ...


@runtime_checkable
class HasScrubber(Protocol):
    """A backend that brings its own scrubber (the simulator)."""

    def scrubber(self) -> Scrubber:
        """Its scrubber."""
        ...


@runtime_checkable
class HasRoot(Protocol):
    """A backend reading a machine (or a tree) at `root`."""

    @property
    def root(self) -> Path:
        """The tree it reads."""
        ...


def zfs_argv(pool: str, action: ScrubAction) -> tuple[str, ...]:
    """`zpool scrub` for the action (start also resumes a paused scrub)."""
    flag = {ScrubAction.START: (), ScrubAction.PAUSE: ("-p",), ScrubAction.STOP: ("-s",)}[action]
    return ("zpool", "scrub", *flag, pool)


def btrfs_argv(mountpoint: str, action: ScrubAction) -> tuple[str, ...] | None:
    """`btrfs scrub start|cancel MNT`; None for pause, which btrfs does not have."""
    verb = {ScrubAction.START: "start", ScrubAction.STOP: "cancel"}.get(action)
    return ("btrfs", "scrub", verb, mountpoint) if verb else None


def md_sync_action(action: ScrubAction) -> str | None:
    """What to write to sync_action: "check" to start, "idle" to stop; None for pause."""
    return {ScrubAction.START: "check", ScrubAction.STOP: "idle"}.get(action)


def _says(result: RunResult, words: tuple[str, ...]) -> bool:
    return any(w in result.stdout + result.stderr for w in words)


def _last_line(result: RunResult) -> str:
    lines = (result.stderr.strip() or result.stdout.strip()).splitlines()
    return lines[-1].strip() if lines else result.describe()


def _verb(action: ScrubAction) -> str:
    return {ScrubAction.START: "started", ScrubAction.PAUSE: "paused", ScrubAction.STOP: "stopped"}[
        action
    ]


class NoScrubber:
    """No way to scrub from here: every call fails safe and says why."""

    def __init__(self, why: str) -> None:
        self._why = why

    async def scrub(self, pool: Pool, action: ScrubAction) -> ScrubResult:
        """Do nothing; explain."""
        return ScrubResult(pool.name, action, False, "none", self._why, supported=False)


class LocalScrubber:
    """Scrubs on this machine, for pools as the local collectors report them."""

    def __init__(
        self,
        run: Runner,
        root: Path = Path("/"),
        *,
        timeout: float = 20.0,
        lzc: LzcScrub | str | None = None,
    ) -> None:
        """Args:
        run: the command runner (`nastui.collectors.runner.run`).
        root: where /sys is (md's sync_action).
        timeout: seconds each command may take.
        lzc: the libzfs_core call to use, or why there is none; found on first use if None.
        """
        self._run = run
        self._root = root
        self._timeout = timeout
        self._lzc = lzc

    async def scrub(self, pool: Pool, action: ScrubAction) -> ScrubResult:
        """Do `action` on `pool` the way its kind does it."""
        if pool.kind is PoolKind.ZFS:
            return await self._zfs(pool, action)
        if action is ScrubAction.PAUSE:
            text = f"{pool.name}: {_PAUSE[pool.kind]}"
            return ScrubResult(pool.name, action, False, "none", text, supported=False)
        if pool.kind is PoolKind.BTRFS:
            return await self._btrfs(pool, action)
        return await asyncio.to_thread(self._md, pool, action)

    def _lzc_call(self) -> LzcScrub | str:
        if self._lzc is None:
            self._lzc = load_lzc_scrub()
        return self._lzc

    async def _zfs(self, pool: Pool, action: ScrubAction) -> ScrubResult:
        lzc = self._lzc_call()
        why = lzc if isinstance(lzc, str) else ""
        if not isinstance(lzc, str):
            code = await asyncio.to_thread(lzc, pool.name, action)
            done, meaning = outcome(code, action)
            if done:
                text = f"{pool.name}: scrub {_verb(action)} (libzfs_core: {meaning})"
                return ScrubResult(pool.name, action, True, "libzfs_core", text)
            if code != 1029:  # ZFS_ERR_IOC_CMD_UNAVAIL: the kernel module is older; use zpool
                text = f"{pool.name}: scrub not {_verb(action)}: {meaning} (libzfs_core)"
                return ScrubResult(
                    pool.name, action, False, "libzfs_core", text, permission=code != 1
                )
            why = "the ZFS kernel module has no scrub ioctl for libzfs_core"
        result = await self._run(zfs_argv(pool.name, action), timeout=self._timeout)
        return self._cli_result(pool, action, result, "zpool scrub", why)

    async def _btrfs(self, pool: Pool, action: ScrubAction) -> ScrubResult:
        argv = btrfs_argv(pool.mountpoint or "", action)
        if pool.mountpoint is None or argv is None:
            why = f"{pool.name} is not mounted: btrfs scrubs a mounted filesystem"
            return ScrubResult(pool.name, action, False, "btrfs scrub", why)
        # `btrfs scrub start` forks the scrub into the background holding its output open.
        result = await self._run(argv, timeout=self._timeout, leaves_child=True)
        return self._cli_result(pool, action, result, "btrfs scrub", "")

    def _cli_result(
        self, pool: Pool, action: ScrubAction, result: RunResult, method: str, why: str
    ) -> ScrubResult:
        tool = method.split(maxsplit=1)[0]
        if result.not_found:
            text = f"{pool.name}: {tool} not found, nothing done"
            return ScrubResult(pool.name, action, False, method, text)
        note = f" ({why}; used {method})" if why else f" ({method})"
        if result.ok:
            return ScrubResult(
                pool.name, action, True, method, f"{pool.name}: scrub {_verb(action)}{note}"
            )
        denied = _says(result, _DENIED)
        text = f"{pool.name}: scrub not {_verb(action)}: {_last_line(result)}"
        if denied:
            text += " (run as root)"
        return ScrubResult(pool.name, action, False, method, text, permission=not denied)

    def _md(self, pool: Pool, action: ScrubAction) -> ScrubResult:
        path = self._root / "sys/block" / pool.name / "md/sync_action"
        value = md_sync_action(action) or "idle"
        word = "check" if action is ScrubAction.START else "check stop"
        try:
            path.write_text(value + "\n", encoding="ascii")
        except PermissionError:
            text = f"{pool.name}: {word} refused: writing {path} needs root"
            return ScrubResult(pool.name, action, False, "md sysfs", text, permission=False)
        except OSError as exc:
            reason = "another resync or check is running" if exc.errno == 16 else exc.strerror
            text = f"{pool.name}: {word} refused: {reason}"
            return ScrubResult(pool.name, action, False, "md sysfs", text)
        verb = "started" if action is ScrubAction.START else "stopped"
        return ScrubResult(
            pool.name, action, True, "md sysfs", f"{pool.name}: check {verb} ({path.name}={value})"
        )


def scrubber_for(backend: object, run: Runner, *, timeout: float = 20.0) -> Scrubber:
    """The scrubber for a backend: its own (the simulator's), or the machine's at its root."""
    if isinstance(backend, HasScrubber):
        return backend.scrubber()
    if isinstance(backend, HasRoot):
        return LocalScrubber(run, backend.root, timeout=timeout)
    return NoScrubber("this source cannot scrub")
