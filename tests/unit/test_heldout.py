"""The held-out public captures (tests/fixtures/heldout, scored before the parsers were changed:
35/51) all keep their pools with the right name, state, scan, last scrub, ZFS remove/expand,
recovering members and scrub errors, through the same collectors `nastui pools` uses."""

from __future__ import annotations

import json

import pytest

from tests.perf.heldout_score import HELDOUT, KINDS, misses

EXPECTED = json.loads((HELDOUT / "EXPECTED.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_heldout_sample(name: str) -> None:
    pools = KINDS[name.split("/", maxsplit=1)[0]]((HELDOUT / name).read_text())
    assert misses(pools, EXPECTED[name]) == []
