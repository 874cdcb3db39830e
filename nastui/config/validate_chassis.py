"""The `[chassis]` section: a preset or a custom box of faces, bays left empty, bay bindings.

Faces are numbered in the order they are written; a face without `first` follows on from the face
before it (the first face starts at 0). Face layouts are returned front first, then rear, then top.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Iterable

from nastui.config.keys import BAY_KEYS, CHASSIS_KEYS, FACE_KEYS, GRID_KEYS, MATCHERS
from nastui.config.presets import PRESETS, preset, with_numbering
from nastui.config.schema import ChassisConfig
from nastui.config.validate_base import Section, repeat_of
from nastui.config.validate_values import dotted, is_integer, show
from nastui.core.layout import build_chassis, duplicate_bay_numbers
from nastui.model import BayBinding, ChassisLayout, FaceLayout, Order, Origin, Side

# Bounds: the largest real boxes have about 100 bays; a grid beyond these is a typo, and building
# it (one object per bay) would stall every reader of the configuration.
MAX_ROWS = MAX_COLUMNS = 128
MAX_FACE_BAYS = 1024
MAX_BAY = 9999  # the highest bay number (first, bay, empty)
_SIDE_ORDER = (Side.FRONT, Side.REAR, Side.TOP)
_DISK_DIRS = {"by_id": "/dev/disk/by-id/", "by_path": "/dev/disk/by-path/"}

# Sample: 500605b00a1b2c30:7
_ENCLOSURE_SLOT = re.compile(r"(?P<enclosure>\S+):(?P<slot>\d+)")


def read_chassis(root: Section) -> ChassisConfig:
    """The chassis configuration; defaults (a guessed layout) without a `[chassis]` table."""
    sec = root.table_at("chassis")
    if sec is None:
        return ChassisConfig()
    sec.check_keys(CHASSIS_KEYS)
    before = len(sec.ctx.problems)
    layout = _layout(sec)
    bays = None
    if layout is not None and len(sec.ctx.problems) == before:
        bays = {bay.number for bay in build_chassis(layout).bays}
    return ChassisConfig(
        layout=layout or ChassisConfig().layout,
        bindings=_bindings(sec, bays),
        empty=_empty(sec, bays),
        configured=True,
    )


def _layout(sec: Section) -> ChassisLayout | None:
    if sec.has("preset"):
        _conflicts(sec, "preset", (*GRID_KEYS, "face"), "a preset fixes the grid")
        return _preset_layout(sec)
    if sec.has("face"):
        _conflicts(sec, "face", FACE_KEYS, "set it in each [[chassis.face]]")
        return _faces_layout(sec)
    if sec.has("rows") or sec.has("columns"):
        face = _face(sec, 0)
        name = sec.text("name") or "Custom chassis"
        return ChassisLayout(name, "custom", (face,)) if face else None
    if any(sec.misspelt(key) for key in ("preset", "rows", "columns", "face")):
        return None
    sec.report(
        None,
        "chassis needs a layout: set chassis.preset (one of: "
        f"{', '.join(PRESETS)}), or chassis.rows and chassis.columns, or [[chassis.face]] tables",
    )
    return None


def _conflicts(sec: Section, anchor: str, keys: Iterable[str], why: str) -> None:
    for key in keys:
        if sec.has(key):
            sec.report(key, f"{sec.name(key)} cannot be used with {sec.name(anchor)} ({why})")


def _preset_layout(sec: Section) -> ChassisLayout | None:
    name = sec.text("preset")
    layout = preset(name) if name else None
    if name is not None and layout is None:
        sec.report(
            "preset",
            f"chassis.preset {show(name)} is not a preset; choose one of: {', '.join(PRESETS)}",
        )
    order = sec.choice("order", Order)
    origin = sec.choice("origin", Origin)
    first = sec.integer("first", low=0, high=MAX_BAY)
    display = sec.text("name")
    if layout is None:
        return None
    layout = with_numbering(layout, order=order, origin=origin, first=first)
    return dataclasses.replace(layout, name=display) if display else layout


def _faces_layout(sec: Section) -> ChassisLayout | None:
    faces: list[tuple[Section, FaceLayout]] = []
    sides: dict[Side, Section] = {}
    for face_sec in sec.tables("face"):
        face_sec.check_keys(FACE_KEYS)
        following = faces[-1][1].first + faces[-1][1].bay_count if faces else 0
        face = _face(face_sec, following)
        if face is None:
            continue
        if first := repeat_of(sides, face.side, face_sec):
            face_sec.report(
                "side" if face_sec.has("side") else None,
                f"{face_sec.key}: {first.where} is already the {face.side} face; "
                "give each face its own side",
            )
            continue  # so at most one face per side is ever built
        faces.append((face_sec, face))
    if not faces:  # each bad face said why; an empty list has not yet
        if sec.table.get("face") == []:
            sec.report("face", "chassis.face must hold at least one face")
        return None
    _check_numbering(faces)
    ordered = sorted((face for _, face in faces), key=lambda f: _SIDE_ORDER.index(f.side))
    return ChassisLayout(sec.text("name") or "Custom chassis", "custom", tuple(ordered))


def _face(sec: Section, first: int) -> FaceLayout | None:
    """One face from a `[[chassis.face]]` table (or the `[chassis]` shorthand)."""
    rows = sec.integer("rows", low=1, high=MAX_ROWS, required=True)
    columns = sec.integer("columns", low=1, high=MAX_COLUMNS, required=True)
    side = sec.choice("side", Side, Side.FRONT)
    start = sec.integer("first", min(first, MAX_BAY), low=0, high=MAX_BAY)
    order = sec.choice("order", Order, Order.ROWS)
    origin = sec.choice("origin", Origin, Origin.TOP_LEFT)
    if rows is None or columns is None:
        return None
    if rows * columns > MAX_FACE_BAYS:
        sec.report(
            None,
            f"{sec.key} is {rows} x {columns} = {rows * columns} bays; "
            f"a face holds at most {MAX_FACE_BAYS}",
        )
        return None
    holes = _holes(sec, rows, columns)
    if len(holes) >= rows * columns:
        sec.report("holes", f"{sec.name('holes')} leave no bays on {sec.key}")
        return None
    return FaceLayout(side, rows, columns, start, order, origin, holes)


def _holes(sec: Section, rows: int, columns: int) -> frozenset[tuple[int, int]]:
    holes: set[tuple[int, int]] = set()
    for path, row_value, column_value in sec.pairs("holes", integers=True, what="row, column"):
        row, column = int(row_value), int(column_value)
        if not (0 <= row < rows and 0 <= column < columns):
            sec.ctx.report(
                path,
                f"{dotted(path)} [{row}, {column}] is outside the {rows} x {columns} grid "
                f"(rows 0-{rows - 1}, columns 0-{columns - 1}, counted from 0)",
            )
            continue
        holes.add((row, column))
    return frozenset(holes)


def _check_numbering(faces: list[tuple[Section, FaceLayout]]) -> None:
    """Report the first face whose bay numbers an earlier face already uses."""
    layout = ChassisLayout("", "", tuple(face for _, face in faces))
    clash = set(duplicate_bay_numbers(build_chassis(layout)))
    if not clash:
        return
    seen: set[int] = set()
    for face_sec, face in faces:
        numbers = set(range(face.first, face.first + face.bay_count))
        if numbers & seen & clash:
            free = max(seen) + 1
            face_sec.report(
                "first" if face_sec.has("first") else None,
                f"{face_sec.key} numbers {_bays(numbers & seen)} that an earlier face "
                f"already numbers; set {face_sec.name('first')} = {free} (or higher)",
            )
            return
        seen |= numbers


def ranges(numbers: Collection[int]) -> str:
    """Bay numbers as compact ranges: "0-23, 100-111"."""
    spans: list[list[int]] = []
    for number in sorted(numbers):
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _bays(numbers: Collection[int]) -> str:
    """ "bay 3" or "bays 2-3, 7"."""
    return f"{'bay' if len(numbers) == 1 else 'bays'} {ranges(numbers)}"


def _empty(sec: Section, bays: set[int] | None) -> frozenset[int]:
    empty: set[int] = set()
    for path, item in sec.items("empty"):
        if not (isinstance(item, int) and is_integer(item) and 0 <= item <= MAX_BAY):
            sec.ctx.report(path, f"{dotted(path)} must be a bay number, got {show(item)}")
        elif bays is not None and item not in bays:
            sec.ctx.report(path, f"{dotted(path)}: {_no_bay(item, bays)}")
        else:
            empty.add(item)
    return frozenset(empty)


def _no_bay(number: int, bays: Collection[int]) -> str:
    return f"there is no bay {number} in this chassis (it has {_bays(bays)})"


def _bindings(sec: Section, bays: set[int] | None) -> tuple[BayBinding, ...]:
    bindings: list[BayBinding] = []
    by_bay: dict[int, Section] = {}
    by_matcher: dict[tuple[str, str], Section] = {}
    for bay_sec in sec.tables("bay"):
        binding = _binding(bay_sec, bays)
        if binding is None:
            continue
        if first := repeat_of(by_bay, binding.bay, bay_sec):
            message = f"bay {binding.bay} is already bound by {first.where}"
            bay_sec.report("bay", f"{bay_sec.name('bay')}: {message}")
        kind, value = _matcher(binding)
        if first := repeat_of(by_matcher, (kind, value), bay_sec):
            message = f"{binding.describe} is already bound by {first.where}"
            bay_sec.report(kind, f"{bay_sec.name(kind)}: {message}")
        bindings.append(binding)
    return tuple(bindings)


def _binding(sec: Section, bays: set[int] | None) -> BayBinding | None:
    sec.check_keys(BAY_KEYS)
    bay = sec.integer("bay", low=0, high=MAX_BAY, required=True)
    if bay is not None and bays is not None and bay not in bays:
        sec.report("bay", f"{sec.name('bay')}: {_no_bay(bay, bays)}")
    values = {key: sec.text(key) for key in MATCHERS if sec.has(key)}
    if len(values) != 1:
        given = f"it sets {', '.join(values)}" if values else "it sets none"
        sec.report(None, f"{sec.key} must set exactly one of {', '.join(MATCHERS)}; {given}")
        return None
    ((key, value),) = values.items()
    if value is None or bay is None or not _matcher_ok(sec, key, value):
        return None
    return BayBinding(
        bay,
        serial=values.get("serial"),
        by_id=values.get("by_id"),
        by_path=values.get("by_path"),
        enclosure=values.get("enclosure"),
        line=sec.line(),
    )


def _matcher_ok(sec: Section, key: str, value: str) -> bool:
    if key == "enclosure" and not _ENCLOSURE_SLOT.fullmatch(value):
        sec.wrong(key, 'an enclosure and slot as "ENCLOSURE:SLOT" (slot a number)')
        return False
    directory = _DISK_DIRS.get(key)
    if directory and "/" in value and not value.startswith(directory):
        sec.wrong(key, f"a name in {directory} (with or without that directory)")
        return False
    return True


def _matcher(binding: BayBinding) -> tuple[str, str]:
    """The binding's matcher, normalised the way `core.layout.match_binding` compares it."""
    if binding.serial:
        return "serial", binding.serial.strip().lower()
    if binding.by_id:
        return "by_id", binding.by_id.removeprefix(_DISK_DIRS["by_id"])
    if binding.by_path:
        return "by_path", binding.by_path.removeprefix(_DISK_DIRS["by_path"])
    return "enclosure", binding.enclosure or ""
