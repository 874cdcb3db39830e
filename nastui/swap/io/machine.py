"""`MachineSwap`: the swap's hands on a real machine (`nastui.swap.logic.hands.SwapHands`).

Sector sizes and use are read from the tree the session reads (`probe`); the writes run in
order through the session's runner (the one subprocess chokepoint), stopping at the first
failure, and nothing runs with the new drive's placeholder still in it or a kernel name that
moves (`nastui.swap.logic.argv.unsafe`); the burn-in runs behind the bench guard (`burnin`).
The probe and the burn-in (the bench guard with them) are imported when first used: every
command opens a session, few of them swap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nastui.control.runproto import Runner, RunResult
from nastui.model import Drive, HostSnapshot
from nastui.swap.logic.argv import Ran, argv_for, unsafe
from nastui.swap.logic.burnin import BurnIn
from nastui.swap.logic.hands import Members
from nastui.swap.logic.names import Op, OpKind
from nastui.swap.logic.plan import Sectors

REPLACE_TIMEOUT_S = 120.0


def _line(result: RunResult) -> str:
    lines = (result.stderr.strip() or result.stdout.strip()).splitlines()
    return lines[-1].strip() if lines else result.describe()


async def run_ops(
    ops: Sequence[Op], run: Runner, *, timeout: float = REPLACE_TIMEOUT_S
) -> list[Ran]:
    """Run the operations in order; stop at the first that fails or is unsafe."""
    done: list[Ran] = []
    for op in ops:
        argv = argv_for(op)
        why = unsafe(argv)
        if why is not None:
            done.append(Ran(argv, False, why))
            break
        # `btrfs replace start` leaves a child running the replace, holding its output open
        background = op.kind is OpKind.BTRFS_REPLACE
        result = await run(argv, timeout=timeout, leaves_child=background)
        done.append(Ran(argv, result.ok, _line(result) if not result.ok else "done"))
        if not result.ok:
            break
    return done


class MachineSwap:
    """A real machine under `root` (its sysfs and devices), its commands through `run`."""

    def __init__(self, root: Path, run: Runner, *, timeout: float = REPLACE_TIMEOUT_S) -> None:
        self.root = root
        self._run = run
        self._timeout = timeout

    def sectors(self, snapshot: HostSnapshot) -> dict[str, Sectors]:
        """Sector sizes from /sys/block/DEV/queue."""
        from nastui.swap.io.probe import sectors

        found = {d.key: sectors(self.root, d.dev) for d in snapshot.drives}
        return {k: v for k, v in found.items() if v is not None}

    async def in_use(self, drive: Drive) -> tuple[str, ...]:
        """The bench guard's inspection of /dev/DEV."""
        from nastui.swap.io.probe import in_use

        return await in_use(f"/dev/{drive.dev}", self.root)

    async def write(
        self, ops: tuple[Op, ...], at: float, *, new_key: str, members: Members
    ) -> list[Ran]:
        """Run them (`run_ops`); `at`, `new_key` and `members` are the simulator's business."""
        return await run_ops(ops, self._run, timeout=self._timeout)

    async def burn_in(self, device: str, tool: str, timeout: float) -> BurnIn:
        """`nastui.swap.io.burnin.burn_in` on this machine's tree."""
        from nastui.swap.io.burnin import burn_in

        return await burn_in(device, tool, root=self.root, timeout=timeout)
