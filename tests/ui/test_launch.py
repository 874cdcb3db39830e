"""What the launcher sets before Textual is imported."""

from __future__ import annotations

import pytest

from nastui.ui.launch import textual_environment


@pytest.mark.parametrize(
    ("colors", "expected"),
    [
        ("16", {"TEXTUAL_COLOR_SYSTEM": "standard"}),
        ("256", {"TEXTUAL_COLOR_SYSTEM": "256"}),
        ("truecolor", {"TEXTUAL_COLOR_SYSTEM": "truecolor"}),
        ("none", {"NO_COLOR": "1"}),
        (None, {}),
    ],
)
def test_colour_depth(colors: str | None, expected: dict[str, str]) -> None:
    env: dict[str, str] = {}
    textual_environment(env, colors)
    assert {k: v for k, v in env.items() if k in ("TEXTUAL_COLOR_SYSTEM", "NO_COLOR")} == expected
    assert env["TEXTUAL_ANIMATIONS"] == "none"
    assert env["TEXTUAL_FPS"] == "20"


def test_operator_settings_win() -> None:
    env = {"TEXTUAL_FPS": "60", "TEXTUAL_ANIMATIONS": "full"}
    textual_environment(env, None)
    assert env == {"TEXTUAL_FPS": "60", "TEXTUAL_ANIMATIONS": "full"}
