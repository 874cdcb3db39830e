"""What each bay cell says in each view, and which style it takes (pure; no Textual here).

A cell is one or two lines of plain text plus a style key. The state mark (`+ ! X z . # ?`) is
always the first character, so a bay reads the same without colour, over a serial console, or
in a `tmux capture-pane` dump.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nastui.core import units
from nastui.core.baystate import LOCATE_MARK, BayState, bay_state, health_word
from nastui.core.summary import temp_label
from nastui.model import BaySlot, Drive, HostSnapshot, Thresholds


class View(StrEnum):
    """What the bay grid shows in each cell; `v` cycles through them in this order."""

    DEV = "dev"
    TEMP = "temp"
    HEALTH = "health"
    SERIAL = "serial"
    POOL = "pool"
    IO = "io"

    @property
    def heading(self) -> str:
        """Heading shown above the grid."""
        return _TITLES[self]

    def next(self) -> View:
        """The view after this one."""
        members = list(View)
        return members[(members.index(self) + 1) % len(members)]


_TITLES = {
    View.DEV: "device",
    View.TEMP: "temperature",
    View.HEALTH: "health",
    View.SERIAL: "serial",
    View.POOL: "pool/vdev",
    View.IO: "I/O MB/s",
}

# Temperature bands for the colour scale, relative to the drive class's warning limit.
TEMP_BANDS = ((-15.0, "cold"), (-8.0, "cool"), (0.0, "ok"), (5.0, "warm"))


@dataclass(frozen=True, slots=True)
class Cell:
    """One bay as drawn.

    Attributes:
        bay: bay number.
        state: its state (drives the mark and the default style).
        value: the view's text for this bay ("sdr", "37°", "WARN"...).
        second: what a two-line cell shows under it (the temperature, or the device name in
            the temperature view).
        style: style key: a `BayState` name, or "t-<band>" in the temperature view.
        locate: the locate LED is on.
        rebuilding: the drive is being rebuilt (resilver, recovery, btrfs replace): "R".
    """

    bay: int
    state: BayState
    value: str
    second: str
    style: str
    locate: bool
    rebuilding: bool = False

    def lines(self, width: int, height: int) -> tuple[str, ...]:
        """The cell's text for a `width` x `height` cell.

        One line: mark and value ("+sdr"). Two lines: mark, bay number and value on top with the
        second value below ("+ 3 sdq" / "  37"), or the value on its own line when too long
        ("+ 3" / " PK2331PB95FOVP"). A locate LED adds "*" after the bay number, a rebuild "R".
        A value still too long keeps its tail, the part that tells drives apart, behind a `~`
        ("~PB95FOVP").
        """
        led = (LOCATE_MARK if self.locate else "") + ("R" if self.rebuilding else "")
        if height == 1:
            value = self.value
            if len(value) + 1 + len(led) > width and value.startswith("sd"):
                value = value[2:]  # "sdcm" -> "cm": the distinctive part in a narrow cell
            head = f"{self.state.mark}{led}"
            return (head + cut_tail(value, width - len(head)),)
        head = f"{self.state.mark}{self.bay:>2}{led}"
        if len(head) + 1 + len(self.value) <= width:
            return (f"{head} {self.value}", "  " + cut_tail(self.second, width - 2))
        return (head, " " + cut_tail(self.value, width - 1))


CUT = "~"


def cut_tail(value: str, width: int) -> str:
    """`value` in `width` characters: whole, or its tail behind `~` ("~PB95FOVP")."""
    if len(value) <= width:
        return value
    if width <= 1:
        return CUT[:width]
    return CUT + value[len(value) - width + 1 :]


def temp_band(drive: Drive, limits: Thresholds) -> str:
    """The colour band of a drive's temperature: cold, cool, ok, warm, hot or crit."""
    temp = drive.temperature
    if temp is None:
        return "none"
    lim = limits.temps[drive.identity.drive_class]
    if temp.celsius >= lim.critical:
        return "crit"
    for offset, band in TEMP_BANDS:
        if temp.celsius < lim.warning + offset:
            return band
    return "hot"


def _io_value(drive: Drive) -> str:
    if drive.io is None:
        return "-"
    total = (drive.io.read_bytes_per_s + drive.io.write_bytes_per_s) / 1e6
    return f"{total:.0f}" if total >= 10 else f"{total:.1f}"


def value_text(
    view: View, snapshot: HostSnapshot, drive: Drive, limits: Thresholds, degree: str
) -> str:
    """The text a drive shows in `view`."""
    if view is View.TEMP:
        return temp_label(drive, snapshot.taken_at, limits, degree=degree)
    if view is View.HEALTH:
        return bay_state(BaySlot(0, drive.key), drive).label
    if view is View.SERIAL:
        return drive.identity.serial or "?"
    if view is View.POOL:
        found = snapshot.pool_of(drive.key)
        return f"{found[0].name}/{found[1]}" if found else "-"
    if view is View.IO:
        return _io_value(drive)
    return drive.dev


def make_cell(
    snapshot: HostSnapshot,
    slot: BaySlot,
    drive: Drive | None,
    view: View,
    limits: Thresholds,
    *,
    degree: str = "",
    rebuilding: frozenset[str] | None = None,
) -> Cell:
    """Build the cell of one bay holding `drive` (None when empty); `rebuilding` is
    `rebuilding_drives(snapshot)`, when the caller builds many cells of one snapshot."""
    state = bay_state(slot, drive)
    locate = slot.locate_lit
    if drive is None:
        value = "MISSING" if state is BayState.MISSING else "-"
        return Cell(slot.bay, state, value, "", state.name, locate)
    style = state.name
    if view is View.TEMP and state in (BayState.OK, BayState.STANDBY, BayState.WARNING):
        style = f"t-{temp_band(drive, limits)}"
    value = value_text(view, snapshot, drive, limits, degree)
    second_view = View.DEV if view is View.TEMP else View.TEMP
    second = value_text(second_view, snapshot, drive, limits, degree)
    onto = rebuilding_drives(snapshot) if rebuilding is None else rebuilding
    return Cell(slot.bay, state, value, second, style, locate, drive.key in onto)


_REBUILD_NOTES = ("resilvering", "recovering", "replace target")


def rebuilding_drives(snapshot: HostSnapshot) -> frozenset[str]:
    """Keys of the drives a pool is rebuilding onto now (marked "R" in their bay)."""
    return frozenset(
        node.drive
        for pool in snapshot.pools
        for _, node in pool.root.walk()
        if node.drive and any(n in (node.note or "") for n in _REBUILD_NOTES)
    )


def selected_summary(
    snapshot: HostSnapshot, slot: BaySlot, limits: Thresholds, *, degree: str = "", width: int = 0
) -> str:
    """One line about a bay for the status line: number, drive, temperature, health, pool,
    model, size, serial. Within `width` (0: no limit) the power state, then the size, then the
    model are left out before anything is cut; the serial is kept whole."""
    drive = snapshot.drive(slot.drive) if slot.drive else None
    if drive is None:
        missing = f", expected {slot.wanted}" if slot.expected and slot.wanted else ""
        return f"bay {slot.bay}: empty{missing}"
    ident = drive.identity
    temp = temp_label(drive, snapshot.taken_at, limits, degree=degree + "C")
    found = snapshot.pool_of(drive.key)
    led = " LOCATE" if slot.locate_lit else ""
    parts = {
        "head": f"bay {slot.bay}: {drive.dev} {temp} {health_word(drive)}{led}",
        "power": drive.power.value,
        "pool": f"{found[0].name}/{found[1]}" if found else "",
        "model": ident.model or "?",
        "size": units.size(ident.capacity_bytes) if ident.capacity_bytes else "",
        "serial": ident.serial or "",
    }
    for optional in ("", "power", "size", "model", "pool"):
        parts.pop(optional, None)
        line = " ".join(p for p in parts.values() if p)
        if not width or len(line) <= width:
            return line
    return line[: max(0, width - 1)] + CUT
