"""Every screen, view, dialog and drive detail of every scenario, at 80x24 and 120x40, in
ASCII mode: nothing but ASCII, no value cut without a mark, no number cut at all."""

from __future__ import annotations

import pytest

from nastui.sim import SCENARIOS
from tests.ui.cutcheck import find_cuts, known_values
from tests.ui.helpers import demo_app
from tests.ui.screentext import walk

SIZES = ((80, 24), (120, 40))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_every_screen_whole_and_ascii(scenario: str, size: tuple[int, int]) -> None:
    app = demo_app(scenario, ascii_only=True)
    problems: list[str] = []
    seen = 0
    async with app.run_test(size=size) as pilot:
        async for name, lines in walk(app, pilot):
            seen += 1
            assert len(lines) == size[1], name
            for line in lines:
                if not line.isascii():
                    problems.append(f"{name}: non-ASCII {line.rstrip()!r}")
            snapshot = app.snapshot
            assert snapshot is not None
            strings, numbers = known_values(snapshot)
            problems += [f"{name}: {cut}" for cut in find_cuts(lines, strings, numbers)]
    assert seen > 20
    assert not problems, "\n".join(problems[:40])
