"""`SwapHands`: what a drive swap does to a box, the seam between the swap and the box.

The real machine's (`nastui.swap.io.machine.MachineSwap`: sysfs, the bench guard's inspection,
the runner) and the simulator's (`nastui.sim.swap.SimSwap`: its hands, kept in the demo's state
directory) each implement it, and a `Backend` offers its own (`Backend.swap`), so the swap's
steps never ask which box they are on.
"""

from __future__ import annotations

from typing import Protocol

from nastui.model import Drive, HostSnapshot
from nastui.swap.logic.argv import Ran
from nastui.swap.logic.burnin import BurnIn
from nastui.swap.logic.names import Op
from nastui.swap.logic.plan import Sectors

Members = tuple[tuple[str, str, str], ...]
"""(pool, what its commands name, member) of each pool the old drive is in, as a swap keeps."""


class SwapHands(Protocol):
    """The reads and writes of a swap beyond a snapshot."""

    def sectors(self, snapshot: HostSnapshot) -> dict[str, Sectors]:
        """The logical and physical sector sizes of the snapshot's drives (those known)."""
        ...

    async def in_use(self, drive: Drive) -> tuple[str, ...]:
        """Why `drive` is in use (empty: nothing found); what cannot be read counts as in use."""
        ...

    async def write(
        self, ops: tuple[Op, ...], at: float, *, new_key: str, members: Members
    ) -> list[Ran]:
        """Run the swap's writes in order, stopping at the first that fails or is unsafe."""
        ...

    async def burn_in(self, device: str, tool: str, timeout: float) -> BurnIn:
        """Write and read back the new drive at `device` with `tool` (badblocks or fio)."""
        ...
