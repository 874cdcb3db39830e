"""`ReplayHost`: benchmarks replayed from real fio recordings, for the demo, tests and pictures.

A recording is fio's stdout from a real `--output-format=json+ --status-interval=1` run and the
device's /proc/diskstats counters read as each dump ended (`*.jsonplus[.gz]` + `*.diskstats`).
Every fio step replays the next recording through the real path (splitter, parser, differ,
runner), dd and write-sync-close steps refuse, and the clock is the recording's own, so a replay
gives the same samples every time. With `pace` > 0 each dump waits that many seconds (the demo
moves like a live run); 0 replays at once (tests, screenshots).

The demo recordings in `data/` were made on a 2-core Debian 12 VM: randrw 4k 50/50 QD1 on a loop
device over a file on virtio disk ("disk") and over a file in /dev/shm ("shm"), reduced to the
fields nastui reads (first 20 dumps; the values are fio's).
"""

from __future__ import annotations

import asyncio
import gzip
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from nastui.bench.host import LineHandler, Pairs, SimulatedOutcome
from nastui.model import BenchTarget, DriveIdentity, TargetKind, Transport, UnseenProcess

# A package resource, not a path beside __file__: the zipapp (`make dist`) runs from its archive.
DATA: Traversable = resources.files("nastui.bench") / "data"
DEMO_RECORDINGS = ("demo-disk", "demo-shm")


@dataclass(frozen=True, slots=True)
class Recording:
    """A recorded fio stream and the device counters beside each of its dumps."""

    name: str
    lines: tuple[str, ...]
    disk: tuple[tuple[float, int, int], ...]  # (seconds since start, read bytes, write bytes)

    @classmethod
    def load(cls, stream: Path | Traversable, side: Path | Traversable | None = None) -> Recording:
        """`NAME.jsonplus` or `NAME.jsonplus.gz`, with the device counters of `side` (default:
        `NAME.diskstats` beside it) if present."""
        raw = stream.read_bytes()
        if stream.name.endswith(".gz"):
            raw = gzip.decompress(raw)
        name = stream.name.split(".")[0]
        if side is None and isinstance(stream, Path):
            side = stream.with_name(f"{name}.diskstats")
        disk = []
        if side is not None and side.is_file():
            for line in side.read_text(encoding="utf-8").splitlines():
                parts = line.split()
                if len(parts) == 4:
                    disk.append((int(parts[1]) / 1000.0, int(parts[2]), int(parts[3])))
        lines = tuple(raw.decode("utf-8", "replace").splitlines())
        return cls(name, lines, tuple(disk))


def demo_recordings() -> list[Recording]:
    """The recordings shipped for the demo."""
    return [
        Recording.load(DATA / f"{name}.jsonplus.gz", DATA / f"{name}.diskstats")
        for name in DEMO_RECORDINGS
    ]


def demo_target(path: str | None = None) -> BenchTarget:
    """A directory target for demos: a 4 TB disk with 3 TB free, on a 32 GiB machine.

    The directory is real (/tmp by default): the run makes its fresh
    directory there and removes it, as on a real target; nothing else touches it.
    """
    identity = DriveIdentity(
        model="HGST HUS724040ALA640",
        serial="PN2334PBG6P4SK",
        firmware="MFAOA8B0",
        capacity_bytes=4_000_787_030_016,
        transport=Transport.SATA,
        rotational=True,
    )
    return BenchTarget(
        path=path or "/tmp",  # a fresh directory is made inside it and removed
        kind=TargetKind.DIRECTORY,
        dev="sdc",
        identity=identity,
        size_bytes=4_000_787_030_016,
        free_bytes=3_000_000_000_000,
        fs_type="xfs",
        ram_bytes=32 << 30,
    )


class ReplayHost:
    """A `BenchHost` that replays recordings instead of running programs."""

    def __init__(self, recordings: Sequence[Recording], *, pace: float = 0.0) -> None:
        if not recordings:
            raise ValueError("a replay needs at least one recording")
        self.recordings = list(recordings)
        self.pace = pace
        self.played = 0
        self._clock = 0.0
        self._disk: tuple[int, int] | None = None

    @property
    def python(self) -> str:
        """Not used: write-sync-close does not replay."""
        return sys.executable

    def now(self) -> float:
        """The recording's clock: when the current dump's counters were read."""
        return self._clock

    def disk_bytes(self, dev: str) -> tuple[int, int] | None:
        """The recorded counters at the current dump."""
        return self._disk

    async def in_use(self, target: BenchTarget) -> tuple[str, ...]:
        """A recording's target is what it was described as."""
        return target.in_use

    async def uses_now(self, target: BenchTarget) -> tuple[str, ...]:
        """A recording has no other users."""
        return ()

    def unseen(self) -> tuple[UnseenProcess, ...]:
        """A recording's look saw every process."""
        return ()

    async def smart(self, target: BenchTarget) -> Pairs | None:
        """No SMART in a replay."""
        return None

    async def run(self, argv: Sequence[str], *, timeout: float) -> SimulatedOutcome:
        """Nothing runs in a replay (the write-cache switch, for one, cannot)."""
        return SimulatedOutcome(1, error=f"{argv[0]} does not run in a replay")

    async def stream(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        on_stdout: LineHandler,
        on_stderr: LineHandler,
        stop: asyncio.Event,
    ) -> SimulatedOutcome:
        """Feed the next recording's lines; stops early (like fio after SIGINT) on `stop`."""
        if argv[0] != "fio":
            tool = "write-sync-close" if "nastui.bench.wsc" in argv else Path(argv[0]).name
            return SimulatedOutcome(127, error=f"{tool} steps are not recorded for replay")
        recording = self.recordings[self.played % len(self.recordings)]
        self.played += 1
        base = self._clock
        dumps = 0
        for line in recording.lines:
            if line == "}" and dumps < len(recording.disk):
                at, read, write = recording.disk[dumps]  # read as the dump ended
                self._clock, self._disk = base + at, (read, write)
            on_stdout(line)
            if line != "}":
                continue
            dumps += 1
            if self.pace > 0:
                await asyncio.sleep(self.pace)
            if stop.is_set():
                break
        self._disk = None  # the next recording's counters are another device's
        return SimulatedOutcome(0)
