"""The chassis as the operator sees it: faces (front, rear, top) of bays in rows and columns.

Geometry (`Chassis`, `Face`, `Bay`) comes from the configuration or a preset and never changes
while nastui runs; which drive sits in which bay (`BaySlot`) is collected every poll.
Row 0 is the top row as drawn (for a top-loader: the row nearest the front), column 0 the left.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Side(StrEnum):
    """Which face of the box a group of bays is on."""

    FRONT = "front"
    REAR = "rear"
    TOP = "top"


@dataclass(frozen=True, slots=True)
class Bay:
    """One physical drive bay.

    Attributes:
        number: the bay number printed on the chassis (unique across faces).
        side: the face it is on.
        row: row on that face, 0 at the top as drawn.
        column: column on that face, 0 at the left.
    """

    number: int
    side: Side
    row: int
    column: int


@dataclass(frozen=True, slots=True)
class Face:
    """A grid of bays on one side of the chassis; grid cells without a bay are holes."""

    side: Side
    rows: int
    columns: int
    bays: tuple[Bay, ...]

    def at(self, row: int, column: int) -> Bay | None:
        """The bay drawn at this grid cell, or None for a hole."""
        for bay in self.bays:
            if bay.row == row and bay.column == column:
                return bay
        return None


@dataclass(frozen=True, slots=True)
class Chassis:
    """The whole box.

    Attributes:
        name: human name ("Ri-vier RV-4324").
        preset: the preset key it came from ("rv-4324"), or "custom".
        faces: front first, then rear, then top.
    """

    name: str
    preset: str
    faces: tuple[Face, ...]

    @property
    def bays(self) -> tuple[Bay, ...]:
        """Every bay, in face order then bay-number order."""
        return tuple(b for f in self.faces for b in sorted(f.bays, key=lambda b: b.number))

    def bay(self, number: int) -> Bay | None:
        """The bay with this number, if the chassis has one."""
        for face in self.faces:
            for bay in face.bays:
                if bay.number == number:
                    return bay
        return None


class Order(StrEnum):
    """Which way bay numbers run across a face."""

    ROWS = "rows"  # along a row, then the next row
    COLUMNS = "columns"  # down a column, then the next column


class Origin(StrEnum):
    """The grid corner that holds the face's first bay number."""

    TOP_LEFT = "top-left"
    TOP_RIGHT = "top-right"
    BOTTOM_LEFT = "bottom-left"
    BOTTOM_RIGHT = "bottom-right"


@dataclass(frozen=True, slots=True)
class FaceLayout:
    """How to lay out and number the bays of one face (from a preset or the config).

    Attributes:
        side: front, rear or top.
        rows, columns: grid size as drawn.
        first: the number of the first bay on this face.
        order: numbers run along rows or down columns...
        origin: ...starting from this corner.
        holes: (row, column) cells with no bay; numbering skips them.
    """

    side: Side
    rows: int
    columns: int
    first: int = 0
    order: Order = Order.ROWS
    origin: Origin = Origin.TOP_LEFT
    holes: frozenset[tuple[int, int]] = frozenset()

    @property
    def bay_count(self) -> int:
        """Bays on this face."""
        return self.rows * self.columns - len(self.holes)


@dataclass(frozen=True, slots=True)
class ChassisLayout:
    """A chassis before numbering: its name, preset key and face layouts."""

    name: str
    preset: str
    faces: tuple[FaceLayout, ...]
    description: str = ""

    @property
    def bay_count(self) -> int:
        """Bays on all faces."""
        return sum(f.bay_count for f in self.faces)


class LedState(StrEnum):
    """The bay's identify/fault LED as last set or read."""

    OFF = "off"
    LOCATE = "locate"
    FAULT = "fault"
    BLINK = "activity-blink"
    UNKNOWN = "unknown"


class MappedBy(StrEnum):
    """How a drive was matched to its bay; shown so a wrong mapping can be traced."""

    SERIAL = "serial"
    BY_ID = "by-id"
    BY_PATH = "by-path"
    ENCLOSURE = "enclosure"
    CONTROLLER = "controller"


@dataclass(frozen=True, slots=True)
class EnclosureSlot:
    """Where an SES enclosure or a RAID/HBA controller says a drive sits.

    Attributes:
        enclosure: the enclosure's id: its SES logical id ("500605b00a1b2c30"), or the
            controller tool's enclosure number ("252" for storcli, "1" for sas2ircu).
        slot: the slot number as the enclosure numbers it.
        source: who said so: "ses", "storcli", "sas2ircu" or "sas3ircu".
        name: the slot's own name, where it has one ("Slot03", "SLOT 04").
        locate_path: the kernel's SES `locate` file for this slot, when it has one.
        sg_device: the enclosure's SCSI generic device ("/dev/sg5"), for sg_ses.
    """

    enclosure: str
    slot: int
    source: str = "ses"
    name: str | None = None
    locate_path: str | None = None
    sg_device: str | None = None

    @property
    def ref(self) -> str:
        """The "ENCLOSURE:SLOT" text an `enclosure` bay binding matches."""
        return f"{self.enclosure}:{self.slot}"


@dataclass(frozen=True, slots=True)
class BayBinding:
    """The configuration's word on which drive belongs in a bay: exactly one matcher is set.

    Attributes:
        bay: bay number.
        serial: drive serial number.
        by_id: a /dev/disk/by-id name (with or without the directory).
        by_path: a /dev/disk/by-path name: the controller port, whatever drive is in it.
        enclosure: SES enclosure and slot, "ENCLOSURE:SLOT" as the collectors report them.
        line: the configuration line it came from (for messages), when known.
    """

    bay: int
    serial: str | None = None
    by_id: str | None = None
    by_path: str | None = None
    enclosure: str | None = None
    line: int | None = None

    @property
    def describe(self) -> str:
        """The matcher as "serial PK1334..." for messages."""
        for name, value in (
            ("serial", self.serial),
            ("by-id", self.by_id),
            ("by-path", self.by_path),
            ("enclosure slot", self.enclosure),
        ):
            if value:
                return f"{name} {value}"
        return "nothing"


@dataclass(frozen=True, slots=True)
class BaySlot:
    """What is in one bay right now.

    Attributes:
        bay: the bay number.
        drive: `Drive.key` of the drive in it, or None when empty.
        mapped_by: how the drive was matched to this bay.
        expected: the configuration says a drive belongs here (an empty expected bay is a
            missing drive; a bay listed as empty on purpose is not).
        led: locate/fault LED state, when known.
        wanted: the configured matcher for an expected bay ("serial WD-WCC4E1234567").
    """

    bay: int
    drive: str | None
    mapped_by: MappedBy | None = None
    expected: bool = False
    led: LedState = LedState.UNKNOWN
    wanted: str | None = None

    @property
    def locate_lit(self) -> bool:
        """Whether its locate LED is lit (steadily, or the activity blink standing in for one)."""
        return self.led in (LedState.LOCATE, LedState.BLINK)
