"""Reading a swap never makes a directory: `status` and every daemon cycle ask for it."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from nastui.session import Source, open_session
from nastui.swap.flow import status


def test_a_stateless_demo_reads_no_swap_and_makes_no_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(status, "_SCRATCH", [])
    made: list[str] = []

    def mkdtemp(**kw: str) -> str:
        made.append("dir")
        return "/nonexistent"

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    session = open_session(Source(demo=True, scenario="failing-drive"), {})
    snapshot = session.backend.snapshot()  # type: ignore[attr-defined]
    assert status.swap_view(session, snapshot)[1:] == ([], False)
    assert status.alerts_with_swap(session, snapshot, [])[0] == []
    assert status.swap_records(session) == []
    assert made == []
    assert status.swap_dir(session) == Path("/nonexistent") and made == ["dir"]
