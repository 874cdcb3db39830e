"""`nastui config init [FILE]`: write the annotated example configuration, with what this box
has (drives, pools, hwmon fans) filled in as comments at the top, ready to copy into place.

It never overwrites: an existing file, or a directory that does not exist (other than the
default location's, which is created), is an error (exit 73) naming the fix. `-` writes to
standard output.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from nastui import exits
from nastui.config.example import example_text
from nastui.config.keys import undocumented
from nastui.core import units
from nastui.history.dirs import make_dir
from nastui.model import Drive, HostSnapshot
from nastui.session import Session

CONFIG_DIR_MODE = 0o755  # /etc/nastui, ~/.config/nastui: readable, written only by the owner
CONFIG_MODE = 0o644
MAX_BINDINGS = 128  # a 102-bay top-loader and its spares


@dataclass(frozen=True, slots=True)
class ChipFans:
    """A hwmon chip with fans: its name, device path and (channel, has a pwm) pairs."""

    name: str
    device: str | None
    channels: tuple[tuple[int, bool], ...]


def default_path(env: Mapping[str, str], euid: int) -> Path:
    """Where `config init` writes without a FILE: $NASTUI_CONFIG, else /etc/nastui for root,
    else $XDG_CONFIG_HOME (~/.config)/nastui/config.toml."""
    if env.get("NASTUI_CONFIG"):
        return Path(env["NASTUI_CONFIG"])
    if euid == 0:
        return Path("/etc/nastui/config.toml")
    xdg = env.get("XDG_CONFIG_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path(env.get("HOME", "~")) / ".config"
    return base / "nastui" / "config.toml"


def _natural(dev: str) -> tuple[int, str]:
    """sda < sdb < sdz < sdaa; nvme0n1 < nvme1n1."""
    return len(dev), dev


def _drive_lines(snapshot: HostSnapshot) -> list[str]:
    lines: list[str] = []
    drives = sorted(snapshot.drives, key=lambda d: _natural(d.dev))
    for drive in drives:
        ident = drive.identity
        size = units.size(ident.capacity_bytes) if ident.capacity_bytes else "?"
        model = " ".join((ident.model or "unknown model").split())
        lines.append(f"#   {drive.dev:<8} {model}  serial {ident.serial or '?'}  {size}")
    return lines + _binding_lines(snapshot, drives)


def _port_order(drive: Drive) -> tuple[bool, list[int | str], tuple[int, str]]:
    """Controller port order (natural: scsi-0:0:9 before scsi-0:0:10), drives without a port
    after those with one."""
    parts = re.split(r"(\d+)", drive.by_path or "")
    return drive.by_path is None, [int(p) if p.isdigit() else p for p in parts], _natural(drive.dev)


def _binding_lines(snapshot: HostSnapshot, drives: Sequence[Drive]) -> list[str]:
    """Ready-to-uncomment bay bindings, numbered as the chassis numbers its bays: by the
    port's by-path name where the drive has one (a replacement plugged into that bay lands in
    it), else by serial."""
    bindings = suggested_bindings(snapshot, [d for d in drives if d.by_path or d.identity.serial])
    if not bindings:
        return []
    numbers = sorted(slot.bay for slot in snapshot.slots)
    span = f"bays {numbers[0]} to {numbers[-1]}" if numbers else "its bays"
    lines = [
        f"# To bind them to bays, uncomment (this chassis numbers {span}; a drive seen in a",
        "# bay has its number, the others the free bays in controller port order: check the",
        "# labels on the box). A by_path binding is the port: the drive that replaces this one",
        "# lands in the same bay.",
    ]
    for bay, drive in bindings:
        serial = drive.identity.serial
        if drive.by_path:
            now = f"  # now {serial}" if serial else ""
            match = f'#by_path = "{drive.by_path}"{now}'
        else:
            match = f'#serial = "{serial}"'
        lines += ["#[[chassis.bay]]", f"#bay = {bay}", match]
    return lines


def suggested_bindings(
    snapshot: HostSnapshot, drives: Sequence[Drive], most: int = MAX_BINDINGS
) -> list[tuple[int, Drive]]:
    """(bay, drive) for up to `most` drives, in bay order and numbered as the chassis numbers
    its bays: the bay a drive is seen in (SES, a controller table, the demo), else the next bay
    nobody sits in, in controller port order."""
    free = sorted(slot.bay for slot in snapshot.slots if slot.drive is None and not slot.expected)
    seen = sorted(
        ((bay, d) for d in drives if (bay := snapshot.bay_of(d.key)) is not None),
        key=lambda pair: pair[0],
    )
    unseen = sorted((d for d in drives if snapshot.bay_of(d.key) is None), key=_port_order)
    return (seen + list(zip(free, unseen, strict=False)))[:most]


def _fan_lines(chips: Sequence[ChipFans]) -> list[str]:
    lines: list[str] = []
    for chip in chips:
        for channel, pwm in chip.channels:
            control = f"pwm = {channel}" if pwm else "no pwm: read only"
            where = f'  hwmon_device = "{chip.device}"' if chip.device else ""
            lines.append(f'#   hwmon_name = "{chip.name}"{where}  fan{channel} ({control})')
    return lines


def detected_block(snapshot: HostSnapshot, chips: Sequence[ChipFans], now: float) -> list[str]:
    """The comment lines saying what this box has, for the top of the file."""
    stamp = time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(now))
    lines = [
        f"# Found on {snapshot.host} by `nastui config init`, {stamp}: comments only; copy what",
        "# you need into the sections below.",
        "#",
        f"# Drives ({len(snapshot.drives)}):",
        *(_drive_lines(snapshot) or ["#   none found"]),
        "#",
        f"# Pools ({len(snapshot.pools)}):",
        *(
            [f"#   {p.name:<12} {p.kind.value:<6} {p.state.value}" for p in snapshot.pools]
            or ["#   none found"]
        ),
        "#",
        '# hwmon fans (for [[fan]] driver = "hwmon"):',
        *(_fan_lines(chips) or ["#   none found"]),
    ]
    return [*lines, "", ""]


def _chips(root: Path) -> list[ChipFans]:
    from nastui.collectors.hwmon_fans import fan_channels, list_chips

    found = []
    for chip in list_chips(root):
        channels = tuple((n, (chip.path / f"pwm{n}").exists()) for n in fan_channels(chip))
        if channels:
            found.append(ChipFans(chip.name, chip.device, channels))
    return found


def render(session: Session, demo: bool, root: Path | None) -> str | None:
    """The file's text: the detected block, then the example; None without the example, or
    with one that does not document every key validation takes (`nastui.config.keys`): a
    broken build, never written out as the reference."""
    example = example_text()
    if example is None or undocumented(example):
        return None
    snapshot = session.poll_now()
    chips = [] if demo else _chips(root or Path("/"))
    return "\n".join(detected_block(snapshot, chips, session.clock.now())) + example


def write_new(target: Path, text: str, *, make_parent: bool, err: TextIO | None = None) -> int:
    """Write `text` to a file that must not exist yet; 0, or 73 after one line on `err` (the
    stderr of the moment: `--ascii` redirects it)."""
    err = sys.stderr if err is None else err
    if make_parent:
        make_dir(target.parent, CONFIG_DIR_MODE)
    elif not target.parent.is_dir():
        print(
            f"nastui: {target.parent} does not exist: create it first, or name another FILE",
            file=err,
        )
        return exits.EX_CANTCREAT
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, CONFIG_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), CONFIG_MODE)  # whatever the umask: it names commands
            handle.write(text)
    except FileExistsError:
        print(
            f"nastui: {target} exists and is left alone: check it with `nastui config check "
            f"{target}`, or move it away first",
            file=err,
        )
        return exits.EX_CANTCREAT
    except OSError as exc:
        print(f"nastui: cannot write {target}: {exc.strerror or exc}", file=err)
        return exits.EX_NOPERM if isinstance(exc, PermissionError) else exits.EX_CANTCREAT
    target.chmod(0o644)
    return exits.OK
