"""Checking the drive put in for a swap before anything writes to it (pure).

`check_new_drive` weighs what the collectors and the benchmark guard found: it is not in use
(partitions, holders, signatures, mounts: `nastui.collectors.fio_target.inspect_target` on the
real machine), not a serial that failed before, big enough, the right sector size, not SMR on
ZFS, and a SMART quick look (the drive's verdict, reallocated/pending/uncorrectable sectors,
power-on hours: a "new" drive with 30,000 hours is flagged).

A `Finding` that blocks stops `swap replace`; a warning is shown and asked about (`--confirm`
names the serial, so the operator has read it).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from nastui.core.units import size
from nastui.model import Drive
from nastui.swap.logic.plan import Needs, Sectors, is_smr

USED_HOURS = 100
"""Power-on hours above which a drive sold as new is flagged as used."""

_DEFECTS = ((5, "reallocated"), (197, "pending"), (198, "offline uncorrectable"))


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing found about the new drive.

    Attributes:
        blocks: True when the replace must not run with this drive.
        text: one line naming the thing and what to do.
    """

    blocks: bool
    text: str


def _size(drive: Drive, needs: Needs) -> list[Finding]:
    have = drive.identity.capacity_bytes
    if needs.min_bytes is None:
        return []
    if have is None:
        return [Finding(True, "its size is unknown: nastui cannot tell it is big enough")]
    if have < needs.min_bytes:
        text = f"too small: {size(have)} < {size(needs.min_bytes)} needed: use a bigger drive"
        return [Finding(True, text)]
    return []


def _sectors(found: Sectors | None, needs: Needs) -> list[Finding]:
    want = needs.sectors
    if want is None or found is None:
        return [] if want is None else [Finding(False, "its sector size is unknown")]
    if found.logical > want.logical:
        return [
            Finding(
                True,
                f"logical sector {found.logical} B, the pool's members use {want.logical} B: "
                "it cannot join (use a 512e drive)",
            )
        ]
    if found.physical != want.physical:
        return [
            Finding(
                False,
                f"physical sector {found.physical} B, the others {want.physical} B "
                "(works; may be slower)",
            )
        ]
    return []


def _smart(drive: Drive) -> list[Finding]:
    out = []
    if drive.smart_passed is False:
        out.append(Finding(True, "SMART overall health: FAILED: send it back"))
    for attr_id, name in _DEFECTS:
        attr = drive.attribute(attr_id)
        if attr is not None and attr.raw:
            out.append(Finding(attr_id != 5, f"{attr.raw} {name} sector(s): not a healthy drive"))
    hours = drive.power_on_hours
    if hours is not None and hours > USED_HOURS:
        out.append(Finding(False, f"{hours:,} power-on hours: a used drive, not a new one"))
    if not drive.has_smart:
        out.append(Finding(False, "no SMART data read: check it with smartctl -x first"))
    return out


def check_new_drive(
    drive: Drive,
    needs: Needs | None,
    *,
    in_use: Sequence[str] = (),
    failed_serials: Collection[str] = (),
    sectors: Sectors | None = None,
) -> tuple[Finding, ...]:
    """Everything found about `drive` as the replacement (empty: fit to use)."""
    found: list[Finding] = [Finding(True, f"in use: {why}") for why in in_use]
    serial = drive.identity.serial
    if serial and serial in failed_serials:
        found.append(Finding(True, f"serial {serial} failed before in this box: use another drive"))
    if needs is not None:
        found += _size(drive, needs)
        found += _sectors(sectors, needs)
        if needs.no_smr and is_smr(drive.identity.model):
            text = f"{drive.identity.model} is drive-managed SMR: ZFS resilvers on it crawl or fail"
            found.append(Finding(True, text))
    found += _smart(drive)
    return tuple(found)


def blocking(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    """The findings that stop the replace."""
    return tuple(f for f in findings if f.blocks)
