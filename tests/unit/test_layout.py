"""Bay numbering, presets and drive-to-bay assignment."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nastui.config.presets import PRESETS, preset, with_numbering
from nastui.core.layout import (
    assign_bays,
    build_chassis,
    duplicate_bay_numbers,
    match_binding,
    number_face,
)
from nastui.model import (
    BayBinding,
    ChassisLayout,
    Drive,
    DriveIdentity,
    FaceLayout,
    LedState,
    MappedBy,
    Order,
    Origin,
    Side,
)


def grid(layout: FaceLayout) -> list[list[int | None]]:
    face = number_face(layout)
    return [
        [b.number if (b := face.at(r, c)) else None for c in range(face.columns)]
        for r in range(face.rows)
    ]


def test_rows_from_top_left() -> None:
    assert grid(FaceLayout(Side.FRONT, 2, 3)) == [[0, 1, 2], [3, 4, 5]]


def test_columns_from_top_left() -> None:
    assert grid(FaceLayout(Side.FRONT, 2, 3, order=Order.COLUMNS)) == [[0, 2, 4], [1, 3, 5]]


def test_rows_from_bottom_left_starting_at_one() -> None:
    layout = FaceLayout(Side.FRONT, 2, 3, first=1, origin=Origin.BOTTOM_LEFT)
    assert grid(layout) == [[4, 5, 6], [1, 2, 3]]


def test_columns_from_bottom_right() -> None:
    layout = FaceLayout(Side.FRONT, 2, 2, order=Order.COLUMNS, origin=Origin.BOTTOM_RIGHT)
    assert grid(layout) == [[3, 1], [2, 0]]


def test_holes_are_skipped_by_numbering() -> None:
    layout = FaceLayout(Side.TOP, 2, 3, holes=frozenset({(0, 1)}))
    assert grid(layout) == [[0, None, 1], [2, 3, 4]]
    assert layout.bay_count == 5


@given(
    rows=st.integers(1, 9),
    cols=st.integers(1, 17),
    first=st.integers(0, 100),
    order=st.sampled_from(list(Order)),
    origin=st.sampled_from(list(Origin)),
)
def test_numbering_is_a_bijection(
    rows: int, cols: int, first: int, order: Order, origin: Origin
) -> None:
    face = number_face(FaceLayout(Side.FRONT, rows, cols, first, order, origin))
    numbers = sorted(b.number for b in face.bays)
    assert numbers == list(range(first, first + rows * cols))
    assert len({(b.row, b.column) for b in face.bays}) == rows * cols


EXPECTED_BAYS = {
    "rv-4324": 24,
    "norco-rpc-4224": 24,
    "supermicro-cse-846": 24,
    "supermicro-cse-847": 36,
    "45drives-q30": 30,
    "45drives-s45": 45,
    "45drives-xl60": 60,
    "hl15": 15,
    "desktop-4": 4,
    "desktop-8": 8,
    "2u-12": 12,
    "top-102": 102,
}


@pytest.mark.parametrize("name", sorted(EXPECTED_BAYS))
def test_every_preset_builds_with_its_bay_count(name: str) -> None:
    layout = preset(name)
    assert layout is not None
    chassis = build_chassis(layout)
    assert len(chassis.bays) == EXPECTED_BAYS[name] == layout.bay_count
    assert duplicate_bay_numbers(chassis) == []
    assert sorted(b.number for b in chassis.bays) == list(range(len(chassis.bays)))


def test_presets_are_all_tested() -> None:
    assert set(PRESETS) == set(EXPECTED_BAYS)


def test_rv4324_is_six_rows_of_four() -> None:
    chassis = build_chassis(PRESETS["rv-4324"])
    (face,) = chassis.faces
    assert (face.rows, face.columns, face.side) == (6, 4, Side.FRONT)


def test_cse847_rear_follows_front() -> None:
    chassis = build_chassis(PRESETS["supermicro-cse-847"])
    _front, rear = chassis.faces
    assert rear.side is Side.REAR
    assert min(b.number for b in rear.bays) == 24
    assert chassis.bay(35) is not None and chassis.bay(35).side is Side.REAR  # type: ignore[union-attr]


def test_data102_rows_of_14_and_12() -> None:
    (face,) = build_chassis(PRESETS["top-102"]).faces
    per_row = [sum(1 for b in face.bays if b.row == r) for r in range(face.rows)]
    assert per_row == [14, 14, 14, 12, 12, 12, 12, 12]


def test_preset_lookup_is_case_insensitive() -> None:
    assert preset(" RV-4324 ") is PRESETS["rv-4324"]
    assert preset("nope") is None


def test_renumbering_continues_across_faces() -> None:
    layout = with_numbering(PRESETS["supermicro-cse-847"], first=1, order=Order.ROWS)
    chassis = build_chassis(layout)
    front, rear = chassis.faces
    assert min(b.number for b in front.bays) == 1
    assert min(b.number for b in rear.bays) == 25
    assert max(b.number for b in rear.bays) == 36


def test_duplicate_numbers_are_found() -> None:
    layout = ChassisLayout(
        "bad", "custom", (FaceLayout(Side.FRONT, 1, 2), FaceLayout(Side.REAR, 1, 2))
    )
    assert duplicate_bay_numbers(build_chassis(layout)) == [0, 1]


def drive(
    dev: str, serial: str, *, by_id: tuple[str, ...] = (), by_path: str | None = None
) -> Drive:
    return Drive(dev, DriveIdentity(model="M", serial=serial), by_id=by_id, by_path=by_path)


CHASSIS = build_chassis(PRESETS["desktop-4"])


def test_bindings_by_every_matcher() -> None:
    drives = [
        drive("sda", "AAA"),
        drive("sdb", "BBB", by_id=("ata-M_BBB",)),
        drive("sdc", "CCC", by_path="pci-0000:00:1f.2-ata-3"),
        drive("sdd", "DDD"),
    ]
    bindings = [
        BayBinding(0, serial="aaa"),
        BayBinding(1, by_id="/dev/disk/by-id/ata-M_BBB"),
        BayBinding(2, by_path="pci-0000:00:1f.2-ata-3"),
        BayBinding(3, enclosure="0:7"),
    ]
    slots = assign_bays(CHASSIS, drives, bindings, enclosure_slots={"DDD": "0:7"})
    assert [(s.bay, s.drive, s.mapped_by) for s in slots] == [
        (0, "AAA", MappedBy.SERIAL),
        (1, "BBB", MappedBy.BY_ID),
        (2, "CCC", MappedBy.BY_PATH),
        (3, "DDD", MappedBy.ENCLOSURE),
    ]
    assert all(s.expected for s in slots)


def test_missing_and_empty_on_purpose() -> None:
    slots = assign_bays(
        CHASSIS,
        [drive("sda", "AAA")],
        [BayBinding(0, serial="AAA"), BayBinding(1, serial="GONE")],
        empty_on_purpose=[3],
    )
    assert slots[1].drive is None and slots[1].expected  # a drive that should be there
    assert slots[1].wanted == "serial GONE"
    assert slots[2].drive is None and not slots[2].expected  # nothing said about bay 2
    assert slots[3].drive is None and not slots[3].expected


def test_bindings_win_over_automatic_location() -> None:
    drives = [drive("sda", "AAA"), drive("sdb", "BBB")]
    slots = assign_bays(
        CHASSIS,
        drives,
        [BayBinding(0, serial="BBB")],
        located={"BBB": (2, MappedBy.ENCLOSURE), "AAA": (0, MappedBy.ENCLOSURE)},
        leds={0: LedState.LOCATE},
    )
    # BBB is bound to bay 0, so its SES finding is ignored; AAA's bay 0 is taken.
    assert [s.drive for s in slots] == ["BBB", None, None, None]
    assert slots[0].led is LedState.LOCATE


def test_a_drive_is_placed_once() -> None:
    slots = assign_bays(
        CHASSIS, [drive("sda", "AAA")], [BayBinding(0, serial="AAA"), BayBinding(1, serial="AAA")]
    )
    assert [s.drive for s in slots] == ["AAA", None, None, None]


def test_match_binding_needs_a_value_on_both_sides() -> None:
    no_serial = Drive("sdz", DriveIdentity())
    assert match_binding(BayBinding(0, serial="X"), no_serial, {}) is None
    assert match_binding(BayBinding(0, by_path="p"), no_serial, {}) is None
    assert match_binding(BayBinding(0), no_serial, {}) is None


def _assign_by_trying_every_drive(
    drives: list[Drive], bindings: list[BayBinding], slots_enc: dict[str, str]
) -> dict[int, tuple[str, MappedBy]]:
    """The rule `assign_bays` keeps, written the slow and obvious way: each binding, in order,
    takes the first drive (in collected order) it matches that no earlier binding took."""
    placed: dict[int, tuple[str, MappedBy]] = {}
    used: set[str] = set()
    bays = {b.number for b in CHASSIS.bays}
    for binding in bindings:
        if binding.bay not in bays or binding.bay in placed:
            continue
        for d in drives:
            how = match_binding(binding, d, slots_enc)
            if how is not None and d.key not in used:
                placed[binding.bay] = (d.key, how)
                used.add(d.key)
                break
    return placed


_NAMES = st.sampled_from(["a", "A", "b", " b ", "c", ""])


@given(
    specs=st.lists(
        st.tuples(_NAMES, st.lists(_NAMES, max_size=2), st.none() | _NAMES, st.none() | _NAMES),
        max_size=6,
    ),
    matchers=st.lists(
        st.tuples(
            st.integers(0, 4),
            st.none() | _NAMES,
            st.none() | _NAMES.map(lambda n: f"/dev/disk/by-id/{n}" if n else n),
            st.none() | _NAMES,
            st.none() | _NAMES,
        ),
        max_size=8,
    ),
)
def test_indexed_assignment_matches_trying_every_drive(
    specs: list[tuple[str, list[str], str | None, str | None]],
    matchers: list[tuple[int, str | None, str | None, str | None, str | None]],
) -> None:
    drives = [
        drive(f"sd{i}", serial, by_id=tuple(ids), by_path=path)
        for i, (serial, ids, path, _) in enumerate(specs)
    ]
    slots_enc = {d.key: enc for d, (*_, enc) in zip(drives, specs, strict=True) if enc}
    bindings = [
        BayBinding(bay, serial=s, by_id=i, by_path=p, enclosure=e) for bay, s, i, p, e in matchers
    ]
    slots = assign_bays(CHASSIS, drives, bindings, enclosure_slots=slots_enc)
    got = {s.bay: (s.drive, s.mapped_by) for s in slots if s.drive is not None}
    assert got == _assign_by_trying_every_drive(drives, bindings, slots_enc)
