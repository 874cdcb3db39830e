"""Every test here is an integration test (real tools, real processes, global resources such
as loop devices, tmux servers and ports), marked or not: `make check` leaves them out and
`make test` runs them one at a time, after the rest has run on every core."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.integration)
