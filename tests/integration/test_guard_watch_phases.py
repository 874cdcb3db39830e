"""The watch catches a new user of the footprint at the first look that begins after it
appeared, whenever in the watch's half second it appears (real loop devices, root).

The target is a loop device over an image file, held O_EXCL as a run holds it, watched by
the runner's own watch (`BenchRunner._watch` over `LocalBenchHost.uses_now`, every
`WATCH_S`). In a thread, a user appears a chosen time after a look began (during the look,
just after it, mid-way, just before the next): another process opening the target through a
node of its own, one opening the backing file, one mapping it and closing its descriptor, a
loop device over the target, another over the backing file. Every look that began after the
user was in place must name it; looks before it must see nothing. A look that was under way
when the user appeared may see it or not: the next one, half a second later, must.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from nastui.bench.guard import ExclusiveHold
from nastui.bench.profiles import PROFILES
from nastui.bench.runner import BenchRunner, _Job
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.model import BenchRun, BenchTarget
from tests.blocklab import attached, image, mapped_then_closed, opened, opened_by_own_node

pytestmark = pytest.mark.integration

PHASES = (0.0, 0.12, 0.25, 0.37)  # seconds after a look began, before the user is started


@dataclasses.dataclass(frozen=True)
class Lab:
    """The target loop device, its backing file and a scratch directory."""

    device: str
    backing: Path
    scratch: Path


User = Callable[[Lab], contextlib.AbstractContextManager[object]]
USERS: dict[str, tuple[User, str]] = {
    "own-node": (lambda lab: opened_by_own_node(lab.device, lab.scratch / "node"), "open by pid"),
    "backing-open": (lambda lab: opened(lab.backing), "open by pid"),
    "backing-mapped": (lambda lab: mapped_then_closed(lab.backing), "mapped by pid"),
    "loop-over-target": (lambda lab: attached("-o", "1M", lab.device), "over it at offset"),
    "loop-over-backing": (lambda lab: attached("-o", "4M", str(lab.backing)), "backing file of"),
}


class Looks(LocalBenchHost):
    """The real host, each look's start, end and answer recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.looks: list[tuple[float, float, tuple[str, ...]]] = []
        self.began = threading.Event()

    async def uses_now(self, target: BenchTarget) -> tuple[str, ...]:
        began = time.monotonic()
        self.began.set()
        uses = await super().uses_now(target)
        self.looks.append((began, time.monotonic(), uses))
        return uses


@contextlib.asynccontextmanager
async def lab(tmp_path: Path) -> AsyncIterator[tuple[Lab, BenchTarget]]:
    backing = image(tmp_path / "t.img", 32)
    with attached(str(backing)) as device:
        target = await inspect_target(device)
        assert target.in_use == (), target.in_use
        with ExclusiveHold(device, target.devno):
            yield Lab(device, backing, tmp_path), target


@dataclasses.dataclass
class Appearance:
    """When the user was in place (monotonic), or why it could not be set up."""

    ready: float | None = None
    error: Exception | None = None


def appear(user: User, where: Lab, host: Looks, phase: float) -> tuple[threading.Event, Appearance]:
    """In a thread: a `phase` after the watch's first look began, the user; it goes away
    when the returned event is set."""
    done, seen = threading.Event(), Appearance()

    def run() -> None:
        host.began.wait(10)
        time.sleep(phase)
        try:
            with user(where):
                seen.ready = time.monotonic()
                done.wait(20)
        except Exception as exc:  # reported by the test, not lost in the thread
            seen.error = exc

    threading.Thread(target=run, daemon=True).start()
    return done, seen


async def watched(target: BenchTarget, host: Looks) -> str | None:
    """The runner's watch until it stops (or 5 s): why it stopped."""
    settings = PROFILES["randrw"].defaults
    base = BenchRun(run_id="phase", host="t", started_at=0.0, settings=settings, target=target)
    job = _Job(base, (), asyncio.Event())
    runner = BenchRunner(host, host_name="t", runs_dir=None)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(runner._watch(job), 5.0)
    return job.guard


@pytest.mark.parametrize("kind", list(USERS))
async def test_a_new_user_at_any_phase_is_caught_by_the_next_look(
    tmp_path: Path, kind: str
) -> None:
    user, named = USERS[kind]
    async with lab(tmp_path) as (where, target):
        for phase in PHASES:
            host = Looks()
            done, seen = appear(user, where, host, phase)
            try:
                why = await watched(target, host)
            finally:
                done.set()
            await asyncio.sleep(0.3)  # the user gone before the next phase's first look
            assert seen.error is None and seen.ready is not None, seen.error
            ready = seen.ready
            cycle = max((b for b, _e, _u in host.looks if b <= ready), default=ready)
            caught = min((e for _b, e, u in host.looks if u), default=ready) - ready
            print(f"{kind}: in place {ready - cycle:.3f} s into a cycle, caught {caught:.3f} s on")
            assert all(u == () for _b, end, u in host.looks if end < ready), host.looks
            assert all(u for began, _e, u in host.looks if began >= ready), host.looks
            assert why is not None and named in why, (why, host.looks)
