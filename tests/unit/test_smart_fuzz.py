"""Property tests: mutated and truncated real reports never crash the SMART parsers.

Every captured report (text and JSON) is cut short, has lines dropped, duplicated or mangled,
numbers replaced by garbage, JSON values swapped for other JSON; the parsers must either return a
reading the verdict rules can judge, or raise `ParseError` whose message starts with the name of
the input. Nothing else may escape (pySMART included: it is third-party code reading text).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui.cli.cmd_smart import explained
from nastui.collectors.smart.collector import parse_capture
from nastui.model import Thresholds
from nastui.model.errors import ParseError
from tests.smartbox import SMART

TEXTS = sorted(p for p in SMART.rglob("*") if p.is_file() and p.suffix == ".txt")
TEXTS += sorted((SMART / "pysmart").rglob("_-d_*"))
JSONS = sorted(p for p in SMART.rglob("*.json") if "local" not in p.parts)
SOURCE = "capture-under-test"
GARBAGE = st.sampled_from(
    ["", "-", "---", "0x", "NaN", "99999999999999999999", "-1", "?", "\u202f", "[", "]", ":", "%"]
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def judged(text: str) -> None:
    try:
        reading = parse_capture(text, SOURCE)
    except ParseError as exc:
        assert str(exc).startswith(SOURCE + ": ")
        return
    explained(reading, Thresholds(), 1_700_000_000.0)


@st.composite
def mangled_text(draw: st.DrawFn) -> str:
    path = draw(st.sampled_from(TEXTS))
    lines = path.read_text(errors="replace").splitlines()
    for _ in range(draw(st.integers(0, 6))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "dup", "cut", "garble", "numbers"]))
        if action == "drop":
            del lines[i]
        elif action == "dup":
            lines.insert(i, lines[i])
        elif action == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif action == "garble":
            lines[i] = draw(GARBAGE).join(
                lines[i].split(draw(st.sampled_from([" ", ":", "0", "1"])))
            )
        else:
            lines[i] = "".join(draw(GARBAGE) if c.isdigit() else c for c in lines[i])
    keep = draw(st.integers(0, len(lines)))
    return "\n".join(lines[:keep])


@given(mangled_text())
@SETTINGS
def test_mangled_text_reports_parse_or_raise_a_named_parse_error(text: str) -> None:
    judged(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def _set(node: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node[path[0]] = _set(node[path[0]], path[1:], value)
    return node


@st.composite
def mangled_json(draw: st.DrawFn) -> str:
    data = json.loads(draw(st.sampled_from(JSONS)).read_text())
    for _ in range(draw(st.integers(1, 5))):
        paths = _paths(data)
        data = _set(data, draw(st.sampled_from(paths)), draw(JSON_VALUES))
    text = json.dumps(data)
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


@given(mangled_json())
@SETTINGS
def test_mangled_json_reports_parse_or_raise_a_named_parse_error(text: str) -> None:
    judged(text)


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_is_never_a_crash(text: str) -> None:
    judged(text)


def test_corpus_files_exist() -> None:
    assert len(TEXTS) >= 15 and len(JSONS) >= 8
    assert all(isinstance(p, Path) for p in TEXTS)
