"""The annotated example configuration, `config.example.toml`, as shipped.

The wheel carries it as `nastui/data/config.example.toml`; a source checkout (an editable
install) reads it from the top of the tree, where it is maintained.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

EXAMPLE_NAME = "config.example.toml"


def example_text() -> str | None:
    """The example configuration's text; None when this install has none (a broken build)."""
    packaged = resources.files("nastui") / "data" / EXAMPLE_NAME
    candidates = [packaged, Path(__file__).resolve().parents[2] / EXAMPLE_NAME]
    for candidate in candidates:
        try:
            return candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeError):
            continue
    return None
