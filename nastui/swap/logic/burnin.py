"""The new drive's optional burn-in before it joins the pool: the command and its verdict (pure).

    badblocks -wv -b 4096 -f DEVICE       four patterns written and read back over the drive
    fio --name=nastui-burnin --filename=DEVICE --rw=write --bs=1M --direct=1
        --ioengine=psync --verify=crc32c --do_verify=1 --verify_state_save=0
        --output-format=json
                                          the drive written once, then read back and checked

Both destroy what is on the drive; the caller (`nastui.swap.io.burnin`) runs them only on
the swap's checked new drive, after its serial was typed, held O_EXCL. badblocks gets `-f`
because that hold is what makes its own "in use" probe (an O_EXCL open) fail: the guard
(nothing stacked, mounted or signed, and the exclusive hold for the whole run) is nastui's. No
`-s`: its progress, days of it on a big drive, would only fill the captured output. fio keeps no
verify state file (it would land in the working directory).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

__all__ = ["BADBLOCKS", "FIO", "TOOLS", "BurnIn", "burnin_argv", "parse_badblocks", "parse_fio"]

BADBLOCKS = "badblocks"
FIO = "fio"
TOOLS = (BADBLOCKS, FIO)

# Sample: Pass completed, 0 bad blocks found. (0/0/0 errors)
_PASS = re.compile(
    r"Pass completed, (?P<bad>\d+) bad blocks found\. "
    r"\((?P<read>\d+)/(?P<write>\d+)/(?P<corrupt>\d+) errors\)"
)


@dataclass(frozen=True, slots=True)
class BurnIn:
    """How a burn-in went.

    Attributes:
        passed: it ran to the end and found nothing.
        refused: it did not run (the device is in use, or cannot be opened), or it was
            stopped because the device came into use; the text says which.
        text: one line: the finding, or why it was refused.
        argv: the command, naming the device as the operator knows it (the tool itself was
            given the held descriptor's path).
    """

    passed: bool
    refused: bool
    text: str
    argv: tuple[str, ...]


def burnin_argv(tool: str, device: str) -> tuple[str, ...]:
    """The burn-in command for `device` (an allowlisted tool; ValueError otherwise)."""
    if tool == BADBLOCKS:
        return ("badblocks", "-wv", "-b", "4096", "-f", device)
    if tool == FIO:
        return (
            "fio",
            "--name=nastui-burnin",
            f"--filename={device}",
            "--rw=write",
            "--bs=1M",
            "--direct=1",
            "--ioengine=psync",
            "--verify=crc32c",
            "--do_verify=1",
            "--verify_state_save=0",
            "--output-format=json",
        )
    raise ValueError(f"unknown burn-in tool {tool!r}: use one of {', '.join(TOOLS)}")


def parse_badblocks(output: str, returncode: int) -> tuple[bool, str]:
    """(passed, one line) from badblocks' output (stdout and stderr together)."""
    found = _PASS.search(output)
    if found is None:
        last = next((x.strip() for x in reversed(output.splitlines()) if x.strip()), "")
        return False, f"badblocks did not finish (exit {returncode}): {last or 'no output'}"
    bad = int(found["bad"])
    errors = f"{found['read']}/{found['write']}/{found['corrupt']} read/write/compare errors"
    if bad or returncode != 0:
        return False, f"{bad} bad blocks ({errors})"
    return True, f"0 bad blocks ({errors})"


def parse_fio(stdout: str, returncode: int) -> tuple[bool, str]:
    """(passed, one line) from fio's JSON output of the write-and-verify job."""
    # Sample: {"fio version": "fio-3.33", "jobs": [{"jobname": "nastui-burnin", "error": 0,
    #   "write": {"io_bytes": 8388608}, "read": {"io_bytes": 8388608}}]}
    try:
        job = json.loads(stdout[stdout.index("{") :])["jobs"][0]
        error = int(job["error"])
        written = int(job["write"]["io_bytes"])
        verified = int(job["read"]["io_bytes"])
    except (ValueError, KeyError, IndexError, TypeError):
        return False, f"fio gave no result (exit {returncode})"
    sizes = f"{written} bytes written, {verified} read back and verified (crc32c)"
    if error or returncode != 0 or verified < written or written == 0:
        return False, f"fio error {error} (exit {returncode}): {sizes}"
    return True, sizes
