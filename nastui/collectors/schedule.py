"""Where scrubs are scheduled: systemd timers and cron entries found under `root`.

Recognised:
- ZFS: `zfs-scrub-monthly@POOL.timer` / `zfs-scrub-weekly@POOL.timer` (OpenZFS 2.1.3+), the
  Debian zfsutils cron job (`/usr/lib/zfs-linux/scrub`, every pool), `zpool scrub POOL` in cron.
- mdraid: Debian's mdadm cron job (`checkarray --all`), `mdcheck_start.timer`, RHEL's
  `raid-check`: every array.
- btrfs: `btrfs-scrub@ESCAPED-PATH.timer`, btrfsmaintenance's `btrfs-scrub.timer` with the
  mount points of /etc/default/btrfsmaintenance (or /etc/sysconfig), `btrfs scrub start MNT`
  in cron.

An enabled timer is a link in /etc/systemd/system/*.wants/; its OnCalendar= comes from the unit
file (its template for an instance). The parsing is pure; `read_schedules` does the reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from nastui.collectors.sysfs import TABLE_LIMIT, list_names, read_text
from nastui.model import Pool, PoolKind

UNIT_DIRS = ("etc/systemd/system", "usr/lib/systemd/system", "lib/systemd/system")
CRON_FILES = ("etc/crontab", "var/spool/cron/crontabs/root")
CRON_DIRS = ("etc/cron.d", "etc/cron.daily", "etc/cron.weekly", "etc/cron.monthly")
MAINTENANCE = ("etc/default/btrfsmaintenance", "etc/sysconfig/btrfsmaintenance")

# Sample: zfs-scrub-monthly@tank.timer     btrfs-scrub@mnt-data.timer
_TEMPLATE = re.compile(r"^(?P<base>[\w-]+)@(?P<instance>[^.]*)\.timer$")
# Sample: OnCalendar=monthly
_ON_CALENDAR = re.compile(r"^\s*OnCalendar\s*=\s*(?P<when>.+?)\s*$", re.MULTILINE)
# Sample: 57 0 * * 0 root if [ -x /usr/share/mdadm/checkarray ] && [ $(date +\%d) -le 7 ]; then
# Sample: @monthly root /usr/local/bin/scrub
_CRON = re.compile(r"^(?P<when>@\w+|(?:\S+\s+){4}\S+)\s+(?P<command>.+)$")
# Sample: BTRFS_SCRUB_MOUNTPOINTS="/:/home"
_SETTING = re.compile(r'^(?P<key>BTRFS_SCRUB_\w+)="?(?P<value>[^"]*)"?\s*$', re.MULTILINE)
_ZPOOL_SCRUB = re.compile(r"zpool\s+scrub\s+(?:-\w+\s+)*(?P<pool>[\w.:-]+)")
_BTRFS_SCRUB = re.compile(r"btrfs\s+scrub\s+start\s+(?:-\w+\s+)*(?P<path>/\S*)")


@dataclass(frozen=True, slots=True)
class ScrubSchedule:
    """A scheduled scrub or check.

    Attributes:
        kind: which pools it is for.
        target: the pool name, md array or btrfs mount point; None for every pool of `kind`.
        text: what to show: "zfs-scrub-monthly@tank.timer (monthly)".
    """

    kind: PoolKind
    target: str | None
    text: str


def unescape_unit(instance: str) -> str:
    """A systemd path instance back to the path: "mnt-data" -> "/mnt/data", "-" -> "/"."""
    if instance in ("", "-"):
        return "/"
    path = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m[1], 16)), instance.replace("-", "/"))
    return "/" + path.strip("/")


def _timer(name: str, when: str | None, maintenance: Mapping[str, str]) -> ScrubSchedule | None:
    text = f"{name} ({when})" if when else name
    match = _TEMPLATE.match(name)
    if match is not None:
        base, instance = match["base"], match["instance"]
        if base in ("zfs-scrub-monthly", "zfs-scrub-weekly"):
            return ScrubSchedule(PoolKind.ZFS, instance, text)
        if base == "btrfs-scrub":
            return ScrubSchedule(PoolKind.BTRFS, unescape_unit(instance), text)
        return None
    if name == "mdcheck_start.timer":
        return ScrubSchedule(PoolKind.MDRAID, None, text)
    if name == "btrfs-scrub.timer":
        period = maintenance.get("BTRFS_SCRUB_PERIOD")
        points = maintenance.get("BTRFS_SCRUB_MOUNTPOINTS", "/")
        shown = f"{name} ({period or when or 'btrfsmaintenance'})"
        if points == "auto":
            return ScrubSchedule(PoolKind.BTRFS, None, shown)
        return ScrubSchedule(PoolKind.BTRFS, ":" + points, shown)  # ":"-list, see schedule_for
    return None


def _command(command: str, text: str) -> ScrubSchedule | None:
    """The schedule a cron command (or cron script) sets up, shown as `text`."""
    if "/usr/lib/zfs-linux/scrub" in command:
        return ScrubSchedule(PoolKind.ZFS, None, text)
    if "checkarray" in command or "raid-check" in command:
        return ScrubSchedule(PoolKind.MDRAID, None, text)
    if (zpool := _ZPOOL_SCRUB.search(command)) is not None:
        return ScrubSchedule(PoolKind.ZFS, zpool["pool"], text)
    if (btrfs := _BTRFS_SCRUB.search(command)) is not None:
        return ScrubSchedule(PoolKind.BTRFS, btrfs["path"], text)
    return None


def _cron_line(source: str, line: str) -> ScrubSchedule | None:
    match = _CRON.match(line.strip())
    if match is None or line.lstrip().startswith("#"):
        return None
    return _command(match["command"], f"{source}: {match['when']}")


def schedules_from(
    timers: Mapping[str, str | None], cron: Mapping[str, str], maintenance: str = ""
) -> list[ScrubSchedule]:
    """Every scrub schedule in enabled timers (name -> OnCalendar) and cron files
    (path relative to /etc or the spool -> text), with btrfsmaintenance's settings."""
    settings = {m["key"]: m["value"] for m in _SETTING.finditer(maintenance)}
    found = [s for name, when in sorted(timers.items()) if (s := _timer(name, when, settings))]
    for source, text in sorted(cron.items()):
        if source.startswith(("cron.daily", "cron.weekly", "cron.monthly")):
            period = source.split("/")[0].removeprefix("cron.")
            if (script := _command(text, f"{source} ({period})")) is not None:
                found.append(script)
            continue
        found.extend(s for line in text.splitlines() if (s := _cron_line(source, line)))
    return found


def schedule_for(pool: Pool, schedules: list[ScrubSchedule]) -> str | None:
    """The schedules that cover `pool`, joined; None when nothing schedules its scrubs."""
    names = {pool.name, pool.mountpoint}
    texts = []
    for schedule in schedules:
        if schedule.kind is not pool.kind:
            continue
        target = schedule.target
        covered = (
            target is None
            or target in names
            or (target.startswith(":") and pool.mountpoint in target[1:].split(":"))
        )
        if covered:
            texts.append(schedule.text)
    return "; ".join(dict.fromkeys(texts)) or None


def _unit_text(root: Path, name: str) -> str | None:
    template = _TEMPLATE.sub(lambda m: f"{m['base']}@.timer", name)
    for directory in UNIT_DIRS:
        for candidate in (name, template):
            text = read_text(root / directory / candidate, TABLE_LIMIT)
            if text is not None:
                return text
    return None


def enabled_timers(root: Path) -> dict[str, str | None]:
    """Enabled timers (links in /etc/systemd/system/*.wants) -> their OnCalendar=."""
    timers: dict[str, str | None] = {}
    for link in sorted((root / "etc/systemd/system").glob("*.wants/*.timer")):
        text = _unit_text(root, link.name) or ""
        when = _ON_CALENDAR.search(text)
        timers[link.name] = when["when"] if when else None
    return timers


def cron_texts(root: Path) -> dict[str, str]:
    """Cron tables and cron.{daily,weekly,monthly} scripts: name relative to /etc -> text."""
    found: dict[str, str] = {}
    files = [root / f for f in CRON_FILES]
    for directory in CRON_DIRS:
        path = root / directory
        files.extend(p for p in (path / n for n in list_names(path)) if p.is_file())
    for path in files:
        text = read_text(path, TABLE_LIMIT)
        if text is not None:
            found[str(path.relative_to(root)).removeprefix("etc/")] = text
    return found


def schedule_lines(relative: str, text: str) -> str | None:
    """What `read_schedules` uses of the file at `relative` (to the root): the scrub lines of a
    cron table or script, the BTRFS_SCRUB_ settings of btrfsmaintenance, a systemd unit
    whole; None for a file it does not read. A capture bundle keeps only this (a crontab may
    hold anything else, passwords too)."""
    if relative in MAINTENANCE:
        return "".join(m[0].strip() + "\n" for m in _SETTING.finditer(text))
    if relative.endswith(".timer") and relative.startswith(UNIT_DIRS):
        return text
    source = relative.removeprefix("etc/")
    if source.startswith(("cron.daily/", "cron.weekly/", "cron.monthly/")):
        kept = [line for line in text.splitlines() if _command(line, "") is not None]
    elif relative in CRON_FILES or relative.startswith("etc/cron.d/"):
        kept = [line for line in text.splitlines() if _cron_line(source, line) is not None]
    else:
        return None
    return "".join(line + "\n" for line in kept)


def read_schedules(root: Path = Path("/")) -> list[ScrubSchedule]:
    """Every scrub schedule configured on the machine (or tree) at `root`."""
    maintenance = next((t for f in MAINTENANCE if (t := read_text(root / f, TABLE_LIMIT))), "")
    return schedules_from(enabled_timers(root), cron_texts(root), maintenance)
