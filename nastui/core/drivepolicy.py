"""What the operator's configuration and the drive's nature do to a verdict (pure).

- A virtual disk (virtio, Xen, QEMU, VirtualBox, VMware, Hyper-V, Google) has no SMART of its
  own: that is what it is, not an unknown state. Its "no SMART" finding becomes an OK note, so a
  VM can be OK; `nastui status --verbose` says it once.
- `[[collectors.ignore]]` rules (`nastui.model.IgnoreRule`) turn the findings they name, or all
  of a drive's findings, into OK notes marked "ignored": still shown, never alerted.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Iterable

from nastui.model import Drive, DriveIdentity, Health, IgnoreRule, Reason, Transport, Verdict

VIRTUAL_NOTE = "virtual disk: no SMART (watch the host's drives instead)"
NO_SMART = "no-smart"
# Vendor or model prefixes of virtual disks, as sysfs and smartctl report them.
# Sample: "QEMU HARDDISK"  "VBOX HARDDISK"  "VMware Virtual disk"  "Msft Virtual Disk"
_VIRTUAL_PREFIXES = (
    "qemu ",
    "qemu harddisk",
    "vbox ",
    "vmware",
    "virtual disk",
    "msft virtual",
    "virtual hd",
    "persistentdisk",
    "google persistentdisk",
    "xen ",
)
_VIRTUAL_VENDORS = frozenset({"qemu", "vbox", "vmware", "msft", "google", "xen"})


def is_virtual(identity: DriveIdentity) -> bool:
    """Whether the drive is a hypervisor's virtual disk (by transport, vendor or model)."""
    if identity.transport is Transport.VIRTUAL:
        return True
    if identity.vendor and identity.vendor.strip().lower().rstrip(",") in _VIRTUAL_VENDORS:
        return True
    model = (identity.model or "").strip().lower()
    return model.startswith(_VIRTUAL_PREFIXES)


def rule_matches(rule: IgnoreRule, drive: Drive, bay: int | None) -> bool:
    """Whether `rule` selects `drive` (in `bay`): every selector it sets must match."""
    ident = drive.identity
    if rule.serial is not None and rule.serial != ident.serial:
        return False
    if rule.model is not None and not fnmatch.fnmatchcase(ident.model or "", rule.model):
        return False
    return rule.bay is None or rule.bay == bay


def _ignored(reason: Reason) -> Reason:
    return dataclasses.replace(reason, health=Health.OK, text=f"{reason.text} (ignored)")


def apply_policy(
    drive: Drive, verdict: Verdict, rules: Iterable[IgnoreRule], bay: int | None
) -> Verdict:
    """`verdict` with a virtual disk's missing SMART as an OK note, and the findings the
    matching ignore rules name (all, for a rule without `findings`) as OK notes."""
    virtual = is_virtual(drive.identity)
    matching = [r for r in rules if rule_matches(r, drive, bay)]
    if not virtual and not matching:
        return verdict
    whole = any(not r.findings for r in matching)
    keys = frozenset().union(*(r.findings for r in matching))
    reasons: list[Reason] = []
    for found in verdict.reasons:
        reason = found
        if virtual and reason.key == NO_SMART and reason.health is Health.UNKNOWN:
            reason = dataclasses.replace(reason, health=Health.OK, text=VIRTUAL_NOTE)
        if reason.health is not Health.OK and (whole or reason.key in keys):
            reason = _ignored(reason)
        reasons.append(reason)
    if whole and not reasons:
        return Verdict(Health.OK)
    return Verdict.of(reasons)
