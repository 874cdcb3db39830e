"""Building apps on the simulator for UI tests: frozen clock, one poll, fixed size."""

from __future__ import annotations

from nastui.session import Source, open_session
from nastui.ui.app import NastuiApp, make_app


def demo_app(scenario: str = "healthy-24-bay", *, ascii_only: bool = False) -> NastuiApp:
    """An app on `scenario` with the sim clock standing still (deterministic pictures)."""
    session = open_session(Source(demo=True, scenario=scenario), {})
    return make_app(session, ascii_only=ascii_only, live=False)
