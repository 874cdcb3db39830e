"""Built-in chassis presets, drawn as the boxes are seen by the person standing at them.

Front-loaders are drawn facing the front; top-loaders from above with the front edge at the top
(row 0). Numbering follows the label on the chassis where the vendor prints one; any preset can
be renumbered in the configuration (`[chassis] preset = ..., order = ..., origin = ...`).
"""

from __future__ import annotations

from nastui.model import ChassisLayout, FaceLayout, Order, Origin, Side


def _front(rows: int, columns: int, order: Order = Order.ROWS) -> FaceLayout:
    return FaceLayout(Side.FRONT, rows, columns, order=order)


def _top(rows: int, columns: int, holes: frozenset[tuple[int, int]] = frozenset()) -> FaceLayout:
    return FaceLayout(Side.TOP, rows, columns, holes=holes)


def _data102_holes() -> frozenset[tuple[int, int]]:
    # Ultrastar Data102: front half 3 rows of 14 and 1 of 12, rear half 4 rows of 12;
    # the short rows leave the two right-hand cells empty.
    return frozenset((row, col) for row in range(3, 8) for col in (12, 13))


PRESETS: dict[str, ChassisLayout] = {
    layout.preset: layout
    for layout in (
        ChassisLayout(
            "Ri-vier RV-4324",
            "rv-4324",
            (_front(6, 4),),
            "4U, 24 x 3.5in front bays in 6 rows of 4 (the 74 TiB ZFS NAS this project began from)",
        ),
        ChassisLayout(
            "Norco RPC-4224",
            "norco-rpc-4224",
            (_front(6, 4),),
            "4U, 24 x 3.5in front bays in 6 rows of 4, one backplane per row",
        ),
        ChassisLayout(
            "Supermicro CSE-846",
            "supermicro-cse-846",
            (_front(6, 4, order=Order.COLUMNS),),
            "4U, 24 x 3.5in front bays in 6 rows of 4, numbered down the columns",
        ),
        ChassisLayout(
            "Supermicro CSE-847",
            "supermicro-cse-847",
            (
                _front(6, 4, order=Order.COLUMNS),
                FaceLayout(Side.REAR, 3, 4, first=24, order=Order.COLUMNS),
            ),
            "4U, 24 front bays (6 x 4) and 12 rear bays (3 x 4) beside the motherboard tray",
        ),
        ChassisLayout(
            "45Drives Storinator Q30",
            "45drives-q30",
            (_top(2, 15),),
            "4U top-loader, 30 bays in 2 rows of 15",
        ),
        ChassisLayout(
            "45Drives Storinator S45",
            "45drives-s45",
            (_top(3, 15),),
            "4U top-loader, 45 bays in 3 rows of 15",
        ),
        ChassisLayout(
            "45Drives Storinator XL60",
            "45drives-xl60",
            (_top(4, 15),),
            "4U top-loader, 60 bays in 4 rows of 15",
        ),
        ChassisLayout(
            "45HomeLab HL15",
            "hl15",
            (_top(1, 15),),
            "4U, 15 bays in one row, loaded from the top",
        ),
        ChassisLayout(
            "4-bay desktop NAS",
            "desktop-4",
            (_front(1, 4),),
            "4 vertical bays side by side (Synology DS9xx, QNAP TS-4xx class)",
        ),
        ChassisLayout(
            "8-bay desktop NAS",
            "desktop-8",
            (_front(1, 8),),
            "8 vertical bays side by side (Synology DS18xx class)",
        ),
        ChassisLayout(
            "12-bay 2U",
            "2u-12",
            (_front(3, 4),),
            "2U, 12 x 3.5in front bays in 3 rows of 4 (Supermicro CSE-826 class)",
        ),
        ChassisLayout(
            "102-bay top-loader",
            "top-102",
            (_top(8, 14, holes=_data102_holes()),),
            "4U top-loading JBOD, 102 bays (Ultrastar Data102 arrangement: rows of 14 and 12)",
        ),
    )
}


def preset(name: str) -> ChassisLayout | None:
    """The preset called `name` (case-insensitive), if there is one."""
    return PRESETS.get(name.strip().lower())


def with_numbering(
    layout: ChassisLayout,
    *,
    order: Order | None = None,
    origin: Origin | None = None,
    first: int | None = None,
) -> ChassisLayout:
    """A copy of `layout` renumbered: order/origin apply to every face; `first` to the first
    face, later faces following on from it."""
    faces = []
    next_first = first
    for face in layout.faces:
        start = face.first if next_first is None else next_first
        faces.append(
            FaceLayout(
                face.side,
                face.rows,
                face.columns,
                start,
                order or face.order,
                origin or face.origin,
                face.holes,
            )
        )
        if next_first is not None:
            next_first = start + face.bay_count
    return ChassisLayout(layout.name, layout.preset, tuple(faces), layout.description)
