"""The drive's volatile write cache, read and switched for the write-cache matrix, and always
put back the way it was.

SATA (and SATA behind USB): `hdparm -W /dev/sdX` reads, `hdparm -W0|-W1` sets. SAS/SCSI:
`sdparm --get=WCE`, `sdparm --set=WCE=0|1` (the current value only: a power cycle restores the
saved one). NVMe, loop and virtual disks: not switched (the matrix refuses them).

`WriteCacheSwitch.restore` is awaited in the runner's `finally`, which runs on normal ends,
failures, Ctrl-C and SIGTERM/SIGHUP (`nastui.bench.runner.stop_on_signals` turns those into a
stop): only a SIGKILL of nastui itself can leave the setting changed, and `nastui bench show`
then names the original value saved with the run.
"""

from __future__ import annotations

import re

from nastui.bench.host import BenchHost
from nastui.model import BenchTarget, TargetKind, Transport

CACHE_TIMEOUT_S = 30.0
# Sample: " write-caching =  1 (on)"
_HDPARM = re.compile(r"write-caching\s*=\s*(?P<value>[01])")
# Sample: "WCE           1  [cha: y, def:  1, sav:  1]"
_SDPARM = re.compile(r"^\s*WCE\s+(?P<value>[01])\b", re.MULTILINE)


class CacheError(Exception):
    """The write cache could not be read or switched."""


def cache_tool(target: BenchTarget) -> str | None:
    """ "hdparm" for SATA, "sdparm" for SAS/SCSI, None where nastui cannot switch it."""
    if target.kind is not TargetKind.DEVICE or target.identity is None:
        return None
    transport = target.identity.transport
    if transport in (Transport.SATA, Transport.USB):
        return "hdparm"
    if transport is Transport.SAS:
        return "sdparm"
    return None


def read_argv(tool: str, device: str) -> tuple[str, ...]:
    """The command that reads the write-cache setting."""
    if tool == "hdparm":
        return ("hdparm", "-W", device)
    return ("sdparm", "--get=WCE", device)


def set_argv(tool: str, device: str, on: bool) -> tuple[str, ...]:
    """The command that switches the write cache on or off."""
    if tool == "hdparm":
        return ("hdparm", f"-W{1 if on else 0}", device)
    return ("sdparm", f"--set=WCE={1 if on else 0}", device)


def parse_setting(tool: str, output: str) -> bool | None:
    """On (True) or off (False) from hdparm's or sdparm's output; None when it does not say."""
    match = (_HDPARM if tool == "hdparm" else _SDPARM).search(output)
    return None if match is None else match["value"] == "1"


class WriteCacheSwitch:
    """Switches one drive's write cache and remembers how it was found."""

    def __init__(self, host: BenchHost, target: BenchTarget) -> None:
        tool = cache_tool(target)
        if tool is None:
            raise CacheError(
                f"the write cache of {target.path} cannot be switched by nastui "
                "(only SATA disks through hdparm and SAS disks through sdparm)"
            )
        self.tool, self.device, self.host = tool, target.path, host
        self.original: bool | None = None
        self.current: bool | None = None

    async def read(self) -> bool:
        """The setting now; the first reading is remembered as the original.

        Raises:
            CacheError: the tool failed or said nothing readable.
        """
        result = await self.host.run(read_argv(self.tool, self.device), timeout=CACHE_TIMEOUT_S)
        value = parse_setting(self.tool, result.stdout) if result.ok else None
        if value is None:
            raise CacheError(f"write cache of {self.device} not read: {result.describe()}")
        if self.original is None:
            self.original = value
        self.current = value
        return value

    async def switch(self, on: bool) -> None:
        """Set the cache on or off and check that it took.

        Raises:
            CacheError: the tool failed, or the drive kept its old setting.
        """
        if self.original is None:
            await self.read()
        result = await self.host.run(set_argv(self.tool, self.device, on), timeout=CACHE_TIMEOUT_S)
        if not result.ok:
            raise CacheError(f"write cache of {self.device} not switched: {result.describe()}")
        if await self.read() != on:
            raise CacheError(f"{self.device} kept its write cache {'off' if on else 'on'}")

    async def restore(self) -> str | None:
        """Put the original setting back (when it was changed); a note when that failed."""
        if self.original is None or self.current == self.original:
            return None
        try:
            await self.switch(self.original)
        except CacheError as exc:
            state = "on" if self.original else "off"
            return f"{exc}: set it {state} again by hand ({' '.join(self._restore_argv())})"
        return None

    def _restore_argv(self) -> tuple[str, ...]:
        return set_argv(self.tool, self.device, bool(self.original))
