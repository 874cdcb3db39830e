"""Pictures of the fans screen, compared with reviewed SVGs in __snapshots__/.

The demo has no `[[zone]]` tables, so each fan zone it reports ("drives", "exhaust") is shown as
a draft on the default curve [[30, 20], [40, 50], [45, 100]]. Read each docstring before
accepting an update (`pytest tests/ui/test_snapshots_fans.py --snapshot-update`).
"""

from __future__ import annotations

import pytest

from tests.ui.helpers import demo_app
from tests.ui.test_snapshots import GLYPHS, SIZES, Compare


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("ascii_only", GLYPHS)
def test_fans(snap_compare: Compare, size: tuple[int, int], ascii_only: bool) -> None:
    """Fans screen of the healthy RV-4324: the panel titled "zone drives 1/2: curve,
    hottest-drive" with the curve rising from 20 % at 30 °C through 50 % at 40 °C to 100 % at
    45 °C, the first point selected (◆, or @ in ASCII), the operating point (×, or X) at 40 °C
    and 50 %; the status line "1/3 30 °C 20%  hyst 2  min 20%  draft"; five fans with zone,
    ~1100/~2000 rpm and 45 %; "curves give now" with drives and exhaust at 50 %; the replay over
    the seeded day of history (temperature and duty sparklines). ASCII: only + - | . o @ X,
    no degree signs, no block glyphs."""
    assert snap_compare(demo_app(ascii_only=ascii_only), press=["f"], terminal_size=size)


def test_fans_hot_bay(snap_compare: Compare) -> None:
    """A dead fan: fan-wall-2 at 0 rpm in bold red with STALLED in place of its zone; the
    hottest drive at 49 °C puts the operating point on the 100 % plateau and both zones at
    100 % in "curves give now"; the title says CRITICAL."""
    assert snap_compare(demo_app("hot-bay"), press=["f"], terminal_size=(80, 24))


def test_fans_editing(snap_compare: Compare) -> None:
    """After `>` `up` `up` `right`: the middle point selected and moved to 41 °C, 60 %, the
    curve redrawn through it, the status line "2/3 41 °C 60%" and the preview at the new
    duty for 40 °C (56 %)."""
    assert snap_compare(
        demo_app(), press=["f", "greater_than_sign", "up", "up", "right"], terminal_size=(80, 24)
    )
