"""The footprint rule against stacks nobody listed: a hypothesis state machine on real loop
devices (root).

It builds random stacks of small images (4 MiB): loop devices over images, over other loop
devices and over files on mounted ext4 filesystems, at offsets and with size limits; other
processes holding a device or file open (in a thread with a descriptor table of its own, too)
or mapped with the descriptor closed. Then it picks a target, names it through a symbolic link
that is swapped to another device as the run starts, and runs a short write profile (a custom
fio job of two jobs: fio opens the file once per job). The oracle:

- the guard refused exactly when the target's footprint (worked out here, from what the
  machine built, by this file's own simple model) overlapped another user;
- every byte of every image outside the footprint allowed is unchanged, and so is every file
  of a filesystem the footprint runs through (checksums; filesystems outside the footprint are
  frozen during the run, so their devices' bytes can be compared raw).

Runs in CI with a fixed budget (`EXAMPLES` examples of up to `STEPS` steps, derandomized:
the same sequence every time); NASTUI_STACK_SEED=N explores other sequences (printed), and a
failure prints the steps that led to it. Where the kernel has device-mapper or partition
tables (the QEMU lab, tests/lab/), the `lab layers` rules add dm-linear devices and partitions
too; here their preconditions keep them off.

Another helper's tools may open our loop devices for a moment (`btrfs device scan` probes every
device): a refusal that names only processes this machine did not start is retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from nastui.bench.profiles import PROFILES
from nastui.bench.runner import BenchRunner, Event, StepStarted
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.model import BenchRun, RunState
from tests.blocklab import (
    MIB,
    mapped_then_closed,
    need_root,
    opened,
    opened_in_thread,
    read_all,
    sh,
)
from tests.conftest import require_tool

pytestmark = pytest.mark.integration
EXAMPLES = int(os.environ.get("NASTUI_STACK_EXAMPLES", "30"))
STEPS = 12
SEED = os.environ.get("NASTUI_STACK_SEED")
IMAGE = 4 * MIB
FILE = MIB // 4  # a file on a filesystem (a 2 MiB ext4 holds a few)
JOB = (
    "[global]\nioengine=libaio\ndirect=1\n"
    "[fill]\nrw=write\nbs=64k\nsize=100%\n"
    "[scatter]\nstonewall\nrw=randwrite\nbs=4k\nsize=100%\nio_size=256k\n"
)
HAS_DM = "device-mapper" in Path("/proc/devices").read_text() and bool(shutil.which("dmsetup"))


# ---------------------------------------------------------------- the machine's own model
@dataclass(eq=False)
class Image:
    """A raw image file (on the root filesystem)."""

    path: Path
    size: int = IMAGE


@dataclass(eq=False)
class FsFile:
    """A file on a mounted filesystem."""

    fs: Fs
    path: Path
    size: int


@dataclass(eq=False)
class Loop:
    """A block device built by this machine: a loop device (or a dm-linear device or a
    partition, `linear` False for dm: the guard cannot see its map)."""

    dev: str
    lower: Image | Loop | FsFile
    offset: int
    size: int
    kind: str = "loop"

    @property
    def name(self) -> str:
        return Path(self.dev).name


@dataclass(eq=False)
class Fs:
    """An ext4 made on a loop device and mounted."""

    loop: Loop
    mount: Path
    files: list[FsFile] = field(default_factory=list)


Node = Image | Loop | FsFile


@dataclass(eq=False)
class Holder:
    """Another process using `node`: "open", "thread" (its own descriptor table), "mmap"."""

    pid: int
    node: Node
    kind: str


def below(loop: Loop) -> tuple[Node, int, int, bool]:
    """Where `loop`'s bytes are: its lower node, range, and whether the map is known."""
    return loop.lower, loop.offset, loop.offset + loop.size, loop.kind != "dm"


def footprint(target: Loop) -> tuple[list[tuple[Node, int, int, Fs | None]], set[int]]:
    """Everything a write to `target` reaches: (node, start, end, the filesystem it is
    reached inside of), and the identities of the chain's own links."""
    reached: list[tuple[Node, int, int, Fs | None]] = [(target, 0, target.size, None)]
    chain: set[int] = set()
    queue = list(reached)
    while queue:
        node, start, end, _inside = queue.pop()
        step: list[tuple[Node, int, int, Fs | None]] = []
        if isinstance(node, Loop):
            chain.add(id(node))
            lower, low, high, linear = below(node)
            size = lower.size
            if linear:
                step.append((lower, low + start, min(low + end, high), None))
            else:
                step.append((lower, 0, size, None))
        elif isinstance(node, FsFile):
            chain.add(id(node.fs))
            step.append((node.fs.loop, 0, node.fs.loop.size, node.fs))
        reached += step
        queue += step
    return reached, chain


@dataclass(eq=False)
class World:
    """What the machine has built."""

    images: list[Image] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    filesystems: list[Fs] = field(default_factory=list)
    holders: list[Holder] = field(default_factory=list)

    def users(self, node: Node) -> Iterator[tuple[object, int, int]]:
        """Who uses `node`: (who, start, end)."""
        for loop in self.loops:
            lower, low, high, linear = below(loop)
            if lower is node:
                yield (loop, low, high) if linear else (loop, 0, node.size)
        for fs in self.filesystems:
            if fs.loop is node:
                yield fs, 0, node.size
        for holder in self.holders:
            if holder.node is node:
                end = 4096 if holder.kind == "mmap" and isinstance(node, Loop) else node.size
                yield holder, 0, end

    def conflict(self, target: Loop) -> bool:
        """The oracle: does any user outside the chain overlap the footprint?"""
        reached, chain = footprint(target)
        for node, start, end, inside in reached:
            for who, low, high in self.users(node):
                if id(who) in chain or who is inside:
                    continue
                if not isinstance(node, Loop) or (low < end and start < high):
                    return True
        return False


@dataclass(frozen=True)
class Allowed:
    """What a write to the target may change: image ranges, the filesystems it runs through
    (whose other files must not change) and the files it writes."""

    ranges: list[tuple[Image, int, int]]
    through: list[Fs]
    files: list[FsFile]


def allowed_for(target: Loop) -> Allowed:
    reached = footprint(target)[0]
    ranges = [(n, a, b) for n, a, b, _ in reached if isinstance(n, Image)]
    through = [inside for *_, inside in reached if inside is not None]
    files = [n for n, *_ in reached if isinstance(n, FsFile)]
    return Allowed(ranges, through, files)


NOTHING = Allowed([], [], [])


def outside(data: bytes, allowed: list[tuple[int, int]]) -> bytes:
    """`data` with the allowed ranges cut out."""
    kept, at = [], 0
    for start, end in sorted(allowed):
        kept.append(data[at:start] if start > at else b"")
        at = max(at, end)
    kept.append(data[at:])
    return b"".join(kept)


def losetup(*args: str) -> str:
    return subprocess.run(
        ["losetup", "-f", "--show", *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def settle() -> None:
    """Every loop device's cache written down to the images (one sync per layer)."""
    for _ in range(3):
        sh("sync")


# --------------------------------------------------------------------------- the machine
class StackMachine(RuleBasedStateMachine):
    """Random stacks, random targets, the guard's verdict and every byte checked."""

    workdir: Path
    tally: ClassVar[Counter[str]] = Counter()

    def __init__(self) -> None:
        super().__init__()
        self.world = World()
        self.stack = contextlib.ExitStack()
        self.count = 0

    @initialize()
    def start(self) -> None:
        self.count = 0
        base = StackMachine.workdir / f"example-{time.monotonic_ns()}"
        base.mkdir()
        self.base = base
        self.new_image()

    def path(self, stem: str) -> Path:
        self.count += 1
        return self.base / f"{stem}-{self.count}"

    # ----------------------------------------------------------------- building the stack
    @precondition(lambda self: len(self.world.images) < 3)
    @rule()
    def new_image(self) -> None:
        path = self.path("img")
        path.write_bytes(os.urandom(IMAGE))
        self.world.images.append(Image(path))

    def attach(self, lower: Node, backing: str, offset: int, limit: int | None) -> None:
        size = lower.size - offset
        if limit is not None:
            size = min(size, limit)
        if size < FILE or len(self.world.loops) >= 6:
            return
        args = ["-o", str(offset), *(("--sizelimit", str(limit)) if limit else ()), backing]
        dev = losetup(*args)
        self.stack.callback(subprocess.run, ["losetup", "-d", dev], capture_output=True)
        self.world.loops.append(Loop(dev, lower, offset, size))

    @rule(
        pick=st.integers(0, 99),
        offset=st.sampled_from([0, MIB, 2 * MIB]),
        limit=st.sampled_from([None, MIB, 2 * MIB]),
    )
    def loop_over_an_image(self, pick: int, offset: int, limit: int | None) -> None:
        image = self.world.images[pick % len(self.world.images)]
        self.attach(image, str(image.path), offset, limit)

    @precondition(lambda self: bool(self.world.loops))
    @rule(
        pick=st.integers(0, 99),
        offset=st.sampled_from([0, MIB // 2, MIB]),
        limit=st.sampled_from([None, MIB]),
    )
    def loop_over_a_loop(self, pick: int, offset: int, limit: int | None) -> None:
        lower = self.world.loops[pick % len(self.world.loops)]
        self.attach(lower, lower.dev, offset, limit)

    @precondition(lambda self: any(self.free_for_a_filesystem()))
    @rule(pick=st.integers(0, 99))
    def filesystem_on_a_loop(self, pick: int) -> None:
        free = list(self.free_for_a_filesystem())
        loop = free[pick % len(free)]
        sh("mkfs.ext4", "-q", "-F", "-O", "^has_journal", "-E", "lazy_itable_init=0", loop.dev)
        where = self.path("mnt")
        where.mkdir()
        sh("mount", "-o", "noatime", loop.dev, str(where))  # a read changes no byte of it
        self.stack.callback(subprocess.run, ["umount", "-l", str(where)], capture_output=True)
        self.world.filesystems.append(Fs(loop, where))

    def free_for_a_filesystem(self) -> Iterator[Loop]:
        """Loops of 2 MiB or more that may be written: by the oracle's own rule, nobody else
        uses any byte of them (mkfs on a loop sharing bytes with a mounted one would corrupt
        it: the machine must not do what it checks the guard never does)."""
        for loop in self.world.loops:
            if loop.size >= 2 * MIB and not self.world.conflict(loop):
                yield loop

    @precondition(lambda self: bool(self.world.filesystems))
    @rule(pick=st.integers(0, 99))
    def loop_over_a_file_on_a_filesystem(self, pick: int) -> None:
        fs = self.world.filesystems[pick % len(self.world.filesystems)]
        path = fs.mount / f"file-{self.count}"
        self.count += 1
        path.write_bytes(os.urandom(FILE))
        file = FsFile(fs, path, FILE)
        fs.files.append(file)
        self.attach(file, str(path), 0, None)

    @precondition(lambda self: bool(self.world.loops or self.world.images))
    @rule(pick=st.integers(0, 99), kind=st.sampled_from(["open", "thread", "mmap"]))
    def another_process(self, pick: int, kind: str) -> None:
        nodes: list[Node] = [*self.world.loops, *self.world.images]
        nodes += [f for fs in self.world.filesystems for f in fs.files]
        node = nodes[pick % len(nodes)]
        path = node.dev if isinstance(node, Loop) else str(node.path)
        how = {"open": opened, "thread": opened_in_thread, "mmap": mapped_then_closed}[kind]
        pid = self.stack.enter_context(how(path))
        self.world.holders.append(Holder(pid, node, kind))

    # ------------------------------------------------- the lab's layers (dm, partitions)
    @precondition(lambda self: HAS_DM and bool(self.world.loops))
    @rule(pick=st.integers(0, 99))
    def dm_linear_on_a_loop(self, pick: int) -> None:
        """Lab only: a dm-linear device over the second half of a loop device (the guard
        sees dm members whole: it cannot read a dm map)."""
        lower = self.world.loops[pick % len(self.world.loops)]
        sectors = lower.size // 2 // 512
        name = f"nastui-stack-{os.getpid()}-{self.count}"
        self.count += 1
        table = f"0 {sectors} linear {lower.dev} {sectors}"
        sh("dmsetup", "create", name, "--table", table)
        self.stack.callback(subprocess.run, ["dmsetup", "remove", name], capture_output=True)
        dev = str(Path(f"/dev/mapper/{name}").resolve())
        self.world.loops.append(Loop(dev, lower, sectors * 512, sectors * 512, kind="dm"))

    # ---------------------------------------------------------------------- the check
    @precondition(lambda self: bool(self.world.loops))
    @rule(pick=st.integers(0, 99), swap=st.integers(0, 99))
    def benchmark(self, pick: int, swap: int) -> None:
        self.check(pick, swap)

    # the same rule twice more: runs are what is checked, so they come as often as building
    @precondition(lambda self: bool(self.world.loops))
    @rule(pick=st.integers(0, 99), swap=st.integers(0, 99))
    def benchmark_again(self, pick: int, swap: int) -> None:
        self.check(pick, swap)

    @precondition(lambda self: bool(self.world.loops))
    @rule(pick=st.integers(0, 99), swap=st.integers(0, 99))
    def benchmark_once_more(self, pick: int, swap: int) -> None:
        self.check(pick, swap)

    def check(self, pick: int, swap: int) -> None:
        """Benchmark a target; the oracle (see the module docstring)."""
        target = self.world.loops[pick % len(self.world.loops)]
        others = [loop for loop in self.world.loops if loop is not target]
        victim = others[swap % len(others)] if others else None
        expected = self.world.conflict(target)
        allowed = allowed_for(target)
        for _attempt in range(5):
            run, before, after = self.run_once(target, victim, allowed.through)
            if expected or not self.only_strangers(run):
                break
            time.sleep(0.3)
        refused = run.state is RunState.REFUSED
        StackMachine.tally[f"runs {run.state.value}"] += 1
        StackMachine.tally[f"with a swap: {victim is not None}"] += 1
        assert refused is expected, (
            f"{target.name}: expected {'a refusal' if expected else 'a run'}: {run.message}"
        )
        assert refused or run.state is RunState.COMPLETE, run.message
        self.compare(before, after, NOTHING if refused else allowed)

    def only_strangers(self, run: BenchRun) -> bool:
        """A refusal whose reasons all name processes this machine did not start."""
        if run.state is not RunState.REFUSED or "pid " not in run.message:
            return False
        ours = {h.pid for h in self.world.holders}
        reasons = run.message.split(": ", 1)[-1].split("; ")
        return all("pid " in r and not any(f"pid {p} " in r for p in ours) for r in reasons)

    def snapshot(self) -> dict[Path, bytes]:
        """Every image's bytes and every filesystem file's content."""
        settle()
        files = [f.path for fs in self.world.filesystems for f in fs.files]
        return {p: read_all(p) for p in [*(i.path for i in self.world.images), *files]}

    def run_once(
        self, target: Loop, victim: Loop | None, through: list[Fs]
    ) -> tuple[BenchRun, dict[Path, bytes], dict[Path, bytes]]:
        """One run on `target` named through a link swapped to `victim` as it starts, every
        filesystem it does not run through frozen; the bytes before and after."""
        link = self.path("target")
        link.symlink_to(target.dev)

        def swapped(event: Event) -> None:
            if isinstance(event, StepStarted) and victim is not None:
                new = self.path("swap")
                new.symlink_to(victim.dev)
                new.replace(link)

        with contextlib.ExitStack() as freezes:
            for fs in self.world.filesystems:
                if fs not in through:
                    sh("fsfreeze", "--freeze", str(fs.mount))
                    freezes.callback(subprocess.run, ["fsfreeze", "--unfreeze", str(fs.mount)])
            before = self.snapshot()
            run = asyncio.run(bench(str(link), swapped))
            after = self.snapshot()
        return run, before, after

    def compare(
        self, before: dict[Path, bytes], after: dict[Path, bytes], allowed: Allowed
    ) -> None:
        """Every byte outside what was allowed is as it was."""
        for image in self.world.images:
            ranges = [(a, b) for i, a, b in allowed.ranges if i is image]
            same = outside(before[image.path], ranges) == outside(after[image.path], ranges)
            assert same, f"{image.path.name}: bytes outside the footprint changed"
        for fs in self.world.filesystems:
            if fs not in allowed.through:
                continue  # frozen: its bytes are the images' bytes, compared above
            for file in fs.files:
                if file not in allowed.files:
                    assert before[file.path] == after[file.path], f"{file.path.name} changed"

    def teardown(self) -> None:
        self.stack.close()


async def bench(path: str, on_event: object) -> BenchRun:
    target = await inspect_target(path)
    settings_ = dataclasses.replace(PROFILES["custom"].defaults, job_text=JOB)
    runner = BenchRunner(
        LocalBenchHost(),
        host_name="test",
        runs_dir=None,
        on_event=on_event,  # type: ignore[arg-type]
    )
    return await runner.run(settings_, target, confirm=target.confirm_token)


@pytest.mark.timeout(300)  # 40-90 s here (2 cores, loaded); an exploring seed may take more
def test_random_stacks(tmp_path: Path) -> None:
    """The machine, with a fixed budget (see the module docstring)."""
    need_root()
    require_tool("fio", "fio")
    require_tool("mkfs.ext4", "e2fsprogs")
    require_tool("fsfreeze", "util-linux")
    StackMachine.workdir = tmp_path
    budget = settings(
        max_examples=EXAMPLES,
        stateful_step_count=STEPS,
        deadline=None,
        derandomize=SEED is None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: bounded time
        print_blob=True,
    )
    machine = StackMachine.TestCase
    machine.settings = budget
    if SEED is not None:
        print(f"NASTUI_STACK_SEED={SEED}")
        machine = seed(int(SEED))(machine)
    began = time.monotonic()
    machine().runTest()
    took = time.monotonic() - began
    print(f"{EXAMPLES} examples of up to {STEPS} steps in {took:.1f} s: {dict(StackMachine.tally)}")
