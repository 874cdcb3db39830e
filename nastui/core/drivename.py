"""A drive as an operator names it on the command line: the one resolver every command uses
(`smart ack`, `locate`, `selftest`, `bench`, `swap`), so a name that works for one works for all.

Accepted (pure, on a snapshot): a bay number, a serial (any case), a kernel name (`sda`), a
/dev path, and the stable names (`/dev/disk/by-id/...`, `/dev/disk/by-vdev/...` or their last
component).
"""

from __future__ import annotations

from nastui.model import Drive, HostSnapshot

_PREFIXES = ("/dev/", "disk/by-id/", "disk/by-vdev/")
# What `find_drive` accepts, in the words of every command's help that takes a drive.
DRIVE_NAMES = "bay number, serial, device name (sda), /dev path, or by-id or by-vdev name"


def find_drive(snapshot: HostSnapshot, target: str) -> tuple[Drive | None, int | None]:
    """The drive `target` names and its bay: (None, bay) for an empty bay, (None, None) when
    nothing answers to the name."""
    name = target
    for prefix in _PREFIXES:
        name = name.removeprefix(prefix)
    if target.isdigit() and snapshot.slot(int(target)) is not None:
        slot = snapshot.slot(int(target))
        drive = snapshot.drive(slot.drive) if slot and slot.drive else None
        return drive, int(target)
    for drive in snapshot.drives:
        serial = (drive.identity.serial or "").lower()
        if name in (drive.dev, *drive.by_id, drive.by_vdev) or (serial and serial == name.lower()):
            return drive, snapshot.bay_of(drive.key)
    return None, None
