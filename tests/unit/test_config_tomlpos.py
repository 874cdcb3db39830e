"""The TOML line indexer: hand-written cases and generated documents that must index exactly."""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.config.tomlpos import KeyPath, index_lines

SAMPLE = """\
# a comment with [brackets] and key = value
hostname = "nano"  # trailing [comment]

[chassis]
preset = "rv-4324"
a."b c".'d' = 1
empty = [
  5,  # a comment inside
  7,
]
notes = \"\"\"
[fake]
x = 1
\"\"\"

[[chassis.bay]]
bay = 1

[[chassis.bay]]
bay = 2
serial = "PK1"

[ zone . extra ]
y = { a = [1,
  2] }
z = 3
"""


def test_sample_lines() -> None:
    lines = index_lines(SAMPLE).lines
    assert lines[("hostname",)] == 2
    assert lines[("chassis",)] == 4
    assert lines[("chassis", "preset")] == 5
    assert lines[("chassis", "a", "b c", "d")] == 6
    assert lines[("chassis", "a")] == 6
    assert lines[("chassis", "empty")] == 7
    assert lines[("chassis", "empty", 0)] == 8
    assert lines[("chassis", "empty", 1)] == 9
    assert lines[("chassis", "notes")] == 11
    assert lines[("chassis", "bay")] == 16
    assert lines[("chassis", "bay", 0, "bay")] == 17
    assert lines[("chassis", "bay", 1)] == 19
    assert lines[("chassis", "bay", 1, "serial")] == 21
    assert lines[("zone", "extra", "y")] == 24
    assert lines[("zone", "extra", "z")] == 26


def test_multiline_string_contents_are_not_keys() -> None:
    lines = index_lines(SAMPLE).lines
    assert ("chassis", "fake") not in lines
    assert ("fake",) not in lines
    assert ("chassis", "x") not in lines


def test_missing_key_falls_back_to_enclosing_table() -> None:
    index = index_lines(SAMPLE)
    assert index.line_of(("chassis", "bay", 1, "by_id")) == 19
    assert index.line_of(("chassis", "nothing", "deeper")) == 4
    assert index.line_of(("absent",)) is None
    assert index.line_of(()) is None


def test_nested_arrays_of_tables_count_per_parent() -> None:
    text = "[[fan]]\n[[fan.pin]]\na = 1\n[[fan.pin]]\na = 2\n[[fan]]\n[[fan.pin]]\na = 3\n"
    tomllib.loads(text)
    lines = index_lines(text).lines
    assert lines[("fan", 0, "pin", 1, "a")] == 5
    assert lines[("fan", 1, "pin", 0, "a")] == 8


def test_subtable_of_array_element() -> None:
    text = "[[zone]]\nname = 'a'\n[zone.pid]\nkp = 1\n[[zone]]\nname = 'b'\n[zone.pid]\nkp = 2\n"
    lines = index_lines(text).lines
    assert lines[("zone", 1, "pid", "kp")] == 8
    assert lines[("zone", 0, "pid")] == 3


def test_explicit_table_after_implicit_one_takes_its_line() -> None:
    lines = index_lines("[a.b]\nx = 1\n[a]\ny = 2\n").lines
    assert lines[("a",)] == 3
    assert lines[("a", "b")] == 1


def test_quoted_keys_are_unescaped() -> None:
    lines = index_lines('"t\\u00e9st" = 1\n\'lit\\eral\' = 2\n"a.b" = 3\n').lines
    assert lines[("tést",)] == 1
    assert lines[("lit\\eral",)] == 2
    assert lines[("a.b",)] == 3


def test_strings_with_quotes_and_brackets_do_not_confuse_values() -> None:
    text = 'a = "x]\\"#["\nb = \'[\'\nc = """q"""""\nd = [\'\'\'x\n]\'\'\', 2]\ne = 1\n'
    tomllib.loads(text)
    lines = index_lines(text).lines
    assert [lines[(k,)] for k in "abcde"] == [1, 2, 3, 4, 6]
    assert lines[("d", 1)] == 5


def test_crlf_line_endings() -> None:
    lines = index_lines("a = 1\r\n[t]\r\nb = [\r\n 1,\r\n]\r\n").lines
    assert lines[("t", "b", 0)] == 4


def test_invalid_text_is_skipped_not_raised() -> None:
    lines = index_lines('= 1\n[\n"bad \\q" = 2\nx = "unterminated\ny = 3\n[[t\nz = [1,\n').lines
    assert lines[("y",)] == 5


# ---------------------------------------------------------------- generated documents

_BARE = re.compile(r"[A-Za-z0-9_-]+")
NAMES = st.one_of(
    st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=6),
    st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
        max_size=6,
    ),
)
TRICKY = ("[fake]", "[[fake]]", "key = 1", "# hash", "x = [", '"quoted"', "'single'", "")
SCALARS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8).map(
        lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    ),
    st.sampled_from(["true", "1.5", "1979-05-27", "inf", "'#['", '"]"', "{ a = [1, 2] }"]),
    st.lists(st.sampled_from(TRICKY), max_size=3).map(lambda ls: '"""\n' + "\n".join(ls) + '"""'),
    st.lists(st.sampled_from(TRICKY), max_size=3).map(lambda ls: "'''\n" + "\n".join(ls) + "'''"),
)
COMMENTS = st.sampled_from(["", "  # c", " # [fake] x = 1", "# ]"])
FILLER = st.lists(st.sampled_from(["", "# comment", "   # [[fake]]", "\t"]), max_size=2)


def render_key(name: str, style: int) -> str:
    """A key as bare (when it can be), literal (when it can be) or basic string."""
    if style == 0 and _BARE.fullmatch(name):
        return name
    if style == 1 and "'" not in name:
        return f"'{name}'"
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class Doc:
    """A document being written, with the line each key path must get."""

    lines: list[str] = field(default_factory=list)
    expected: dict[KeyPath, int] = field(default_factory=dict)
    tables: list[KeyPath] = field(default_factory=list)

    def add(self, text: str) -> int:
        """Append (possibly several) lines; the 1-based line of the first."""
        line = len(self.lines) + 1
        self.lines.extend(text.split("\n"))
        return line

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@st.composite
def arrays(draw: st.DrawFn) -> tuple[str, list[int]]:
    """An array value (on one line or several) and each item's line offset from the key's."""
    items = draw(st.lists(st.one_of(SCALARS, st.sampled_from(["[1, [2]]", "[]"])), max_size=4))
    several = draw(st.booleans())
    text = "["
    offsets: list[int] = []
    for item in items:
        if several:
            text += "".join("\n" + filler for filler in draw(FILLER)) + "\n  "
        offsets.append(text.count("\n"))
        text += item + ("," + draw(COMMENTS) if several else ", ")
    return text + ("\n]" if several else "]"), offsets


@st.composite
def key_values(draw: st.DrawFn, doc: Doc, table: KeyPath, names: list[str]) -> None:
    for name in names:
        filler = draw(FILLER)
        if filler:
            doc.add("\n".join(filler))
        parts = [name] + ([draw(NAMES)] if draw(st.booleans()) else [])
        dot = draw(st.sampled_from([".", " . "]))
        key = dot.join(render_key(p, draw(st.integers(0, 2))) for p in parts)
        value, offsets = draw(st.one_of(SCALARS.map(lambda v: (v, [])), arrays()))
        line = doc.add(f"{key} = {value}{draw(COMMENTS)}")
        path = (*table, *parts)
        if len(parts) == 2:
            doc.expected.setdefault((*table, parts[0]), line)
        doc.expected[path] = line
        for index, offset in enumerate(offsets):
            doc.expected[(*path, index)] = line + offset


@st.composite
def documents(draw: st.DrawFn) -> Doc:
    doc = Doc()
    names = draw(st.lists(NAMES, unique=True, min_size=1, max_size=7))
    split = draw(st.integers(0, len(names)))
    draw(key_values(doc, (), names[:split]))
    for name in names[split:]:
        key = render_key(name, draw(st.integers(0, 2)))
        inner = draw(st.lists(NAMES, unique=True, max_size=4))
        if draw(st.booleans()):
            for index in range(draw(st.integers(1, 3))):
                line = doc.add(f"[[{key}]]")
                doc.expected.setdefault((name,), line)
                doc.expected[(name, index)] = line
                doc.tables.append((name, index))
                draw(key_values(doc, (name, index), inner))
            continue
        line = doc.add(f"[ {key} ]{draw(COMMENTS)}")
        doc.expected[(name,)] = line
        doc.tables.append((name,))
        draw(key_values(doc, (name,), inner[1:]))
        if inner:
            sub = render_key(inner[0], draw(st.integers(0, 2)))
            line = doc.add(f"[{key}.{sub}]")
            doc.expected[(name, inner[0])] = line
            doc.tables.append((name, inner[0]))
            draw(key_values(doc, (name, inner[0]), draw(st.lists(NAMES, unique=True, max_size=3))))
    return doc


@settings(max_examples=200, deadline=None)
@given(documents())
def test_generated_documents_index_exactly(doc: Doc) -> None:
    tomllib.loads(doc.text)  # the generator writes valid TOML
    assert dict(index_lines(doc.text).lines) == doc.expected


@settings(max_examples=100, deadline=None)
@given(documents())
def test_missing_keys_point_at_their_table(doc: Doc) -> None:
    index = index_lines(doc.text)
    for table in doc.tables:
        assert index.line_of((*table, "\x00missing")) == doc.expected[table]
