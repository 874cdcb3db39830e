"""Why smartctl gave no report for a drive, as one line naming the thing and the fix (pure).

`problem_of` reads a finished smartctl run (exit status bits, output, the runner's own verdict)
and says what went wrong, or None when the output is a report (a drive in standby is a report).
Problems that are the same for every drive (smartctl missing, not root) are `host`-wide, so a
24-bay box shows one line, not 24.

Samples (real, smartmontools 7.3 on Debian 12):
    Smartctl open device: /dev/vda [SAT] failed: Operation not permitted          exit 2
    Smartctl open device: /tmp/nofile [SAT] failed: No such device                 exit 2
    A mandatory SMART command failed: exiting. To continue, add one or more '-T permissive'
    options.                                                                       exit 4
    /dev/sdc: Unknown USB bridge [0x0bc2:0x2322 (0x100)]
    Please specify device type with the -d option.                                 exit 1
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nastui.collectors.runner import CommandResult
from nastui.collectors.smart.reading import COMMAND_FAILED, OPEN_FAILED
from nastui.model import Transport

INSTALL = "install smartmontools (apt-get install smartmontools)"
# Sample: Smartctl open device: /dev/vda [SAT] failed: Operation not permitted
_OPEN_FAILED = re.compile(r"open device: (?P<path>\S+)(?: \[[^]]*\])? failed: (?P<why>.+)$", re.I)
# Sample: /dev/sdc: Unknown USB bridge [0x0bc2:0x2322 (0x100)]
_USB_BRIDGE = re.compile(
    r"Unknown USB bridge|Unsupported USB bridge|unsupported scsi opcode|"
    r"Read Device Identity failed|scsi error unsupported field",
    re.I,
)
# Sample: === START OF INFORMATION SECTION ===      Device is in STANDBY mode, exit(2)
_REPORT = re.compile(r"^(=== START OF .* SECTION ===|Device is in .+ mode)", re.M)
# Sample: Device is in STANDBY mode, exit(2)
_STANDBY = re.compile(r"^Device is in .+ mode", re.M)
# Sample: A mandatory SMART command failed: exiting. To continue, add one or more '-T permissive'
_MANDATORY = re.compile(r"mandatory SMART command failed", re.I)
_DENIED = ("permission denied", "operation not permitted")
_GONE = ("no such device", "no such file")


@dataclass(frozen=True, slots=True)
class SmartProblem:
    """Why SMART could not be read.

    Attributes:
        text: one line naming the thing and the fix.
        host_wide: the same for every drive (shown once for the host, not per drive).
    """

    text: str
    host_wide: bool = False


def _last_line(result: CommandResult) -> str:
    for stream in (result.stderr, result.stdout):
        lines = [line.strip() for line in stream.splitlines() if line.strip()]
        if lines:
            return lines[-1][:160]
    return "no output"


def _open_failure(result: CommandResult, path: str, is_device: bool, euid: int) -> SmartProblem:
    match = _OPEN_FAILED.search(result.stdout + "\n" + result.stderr)
    why = match["why"].strip() if match else _last_line(result)
    lower = why.lower()
    if not is_device:
        return SmartProblem(
            f"SMART not read: {path} is not a device node (a tree captured from "
            "another box? SMART is read from the drives of the machine nastui runs on)"
        )
    if any(word in lower for word in _DENIED):
        if euid != 0:
            return SmartProblem(
                "SMART not read: smartctl needs root to open the drives (permission denied): "
                "run nastui as root",
                host_wide=True,
            )
        return SmartProblem(
            f"SMART not read: opening {path} is not permitted even as root "
            "(a container or VM without raw disk access)"
        )
    if any(word in lower for word in _GONE):
        return SmartProblem(f"SMART not read: {path} is gone ({why}): drive removed?")
    return SmartProblem(f"SMART not read: smartctl could not open {path}: {why}")


def problem_of(
    result: CommandResult,
    *,
    path: str,
    transport: Transport,
    is_device: bool = True,
    euid: int = 0,
) -> SmartProblem | None:
    """What went wrong with a smartctl run, or None when its output is a report.

    Args:
        result: the finished run.
        path: the device path smartctl was given.
        transport: how the drive is attached (a USB bridge gets its own explanation).
        is_device: `path` is a device node (not a file in a captured tree).
        euid: nastui's effective user id (permission problems mean "run as root" only if not 0).
    """
    if result.not_found or (result.error and result.returncode == 127):
        return SmartProblem(f"SMART not read: smartctl not found: {INSTALL}", host_wide=True)
    if result.error:
        return SmartProblem(f"SMART not read: {result.error}", host_wide=True)
    if result.timed_out or result.returncode is None:
        return SmartProblem(
            f"SMART not read: smartctl timed out after {result.duration:.0f} s (drive hung or very "
            "slow); nastui asks again at the next SMART poll"
        )
    output = result.stdout + "\n" + result.stderr
    status = result.returncode or 0
    if _STANDBY.search(result.stdout):
        return None
    if transport is Transport.USB and _USB_BRIDGE.search(output):
        return SmartProblem(
            "SMART not read: the USB bridge does not pass SMART through, so nastui cannot read "
            "this drive's health (try smartctl -d sat,12 or -d usbjmicron by hand)"
        )
    if not is_device and (status & (OPEN_FAILED | COMMAND_FAILED) or not _REPORT.search(output)):
        return _open_failure(result, path, is_device, euid)
    if _MANDATORY.search(output):
        return SmartProblem(
            "SMART not read: the drive refuses SMART commands (smartctl: a mandatory "
            "SMART command failed): SMART unsupported, or disabled in the firmware"
        )
    if _REPORT.search(result.stdout):
        return None
    if status & OPEN_FAILED or "open device" in output:
        return _open_failure(result, path, is_device, euid)
    if status & 0x01:
        return SmartProblem(
            f"SMART not read: smartctl rejected nastui's command line ({_last_line(result)}): "
            "smartmontools too old? nastui needs 6.0 or newer",
            host_wide=True,
        )
    return SmartProblem(f"SMART not read: smartctl printed no SMART report ({_last_line(result)})")
