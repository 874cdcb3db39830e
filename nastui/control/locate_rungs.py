"""What the locate ladder's rungs write with, shared by the ladder (a bay found through its
drive, `nastui.control.locate_ladder`) and the put-out of an empty bay from its record
(`nastui.control.locate_empty`): the runner seam, the argv of `ledctl` and `sg_ses`, and the
write of an SES slot's `locate` file with its read-back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from nastui import safeio

SES, LEDCTL, SG_SES = "ses-sysfs", "ledctl", "sg_ses"
TIMEOUT = 20.0


class CommandOutcome(Protocol):
    """What the runner returns (`nastui.collectors.runner.CommandResult`), as used here."""

    @property
    def returncode(self) -> int | None:
        """Exit status."""
        ...

    @property
    def stdout(self) -> str:
        """Standard output."""
        ...

    @property
    def stderr(self) -> str:
        """Standard error."""
        ...

    @property
    def ok(self) -> bool:
        """Exited 0 in time."""
        ...

    @property
    def not_found(self) -> bool:
        """The program is not installed."""
        ...


RunFn = Callable[..., Awaitable[CommandOutcome]]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One rung tried: whether it worked, and what it did or what is missing."""

    ok: bool
    detail: str


def ledctl_argv(device: str, on: bool) -> tuple[str, ...]:
    """`ledctl --listed-only locate=/dev/sdX` (or `locate_off=`). Without `--listed-only`,
    ledctl turns off every other LED it manages (ledctl(8): "all other LEDs are turned off"):
    lighting one bay would put out another bay's failure or locate LED. A ledctl too old to
    know the option refuses the command line, and the ladder goes on to its next rung."""
    return ("ledctl", "--listed-only", f"{'locate' if on else 'locate_off'}={device}")


def sg_ses_argv(
    sg_device: str, on: bool, *, slot: int | None, sas_address: str | None
) -> tuple[str, ...]:
    """`sg_ses --dev-slot-num=N --set=ident /dev/sgM` (or `--sas-addr=`, `--clear=ident`)."""
    where = f"--dev-slot-num={slot}" if slot is not None else f"--sas-addr={sas_address}"
    return ("sg_ses", where, f"--{'set' if on else 'clear'}=ident", sg_device)


def last_line(result: CommandOutcome) -> str:
    """The first line a failed tool said (stderr first), for a one-line reason."""
    for stream in (result.stderr, result.stdout):
        lines = [line.strip() for line in stream.splitlines() if line.strip()]
        if lines:
            return lines[0][:160]
    return f"exit status {result.returncode}"


async def run_tool(run: RunFn, argv: tuple[str, ...], package: str) -> Attempt:
    """Run an LED tool through the runner: what it did, or why not (`package` installs it)."""
    result = await run(argv, timeout=TIMEOUT)
    if result.not_found:
        return Attempt(False, f"not installed (apt-get install {package})")
    if not result.ok:
        return Attempt(False, last_line(result))
    return Attempt(True, " ".join(argv))


def write_locate(path: Path, on: bool) -> str | None:
    """Write 1 or 0 to an SES slot's `locate` file and read it back: None when it took, else
    why not, in one line. Only an existing regular file is written (`safeio.write_existing`:
    never created, never a FIFO or a device, never through a link)."""
    try:
        safeio.write_existing(path, b"1\n" if on else b"0\n")
        readback = safeio.read_text_bounded(path, safeio.ATTR_LIMIT).strip()
    except PermissionError:
        return f"writing {path}: permission denied (run as root)"
    except OSError as exc:
        return f"writing {path}: {exc.strerror or exc}"
    if readback != ("1" if on else "0"):
        return f"{path} reads {readback!r} after writing: the enclosure ignored it"
    return None
