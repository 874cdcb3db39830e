"""The fio json+ stream splitter on real captured streams (tests/fixtures/fio), cut ones and
mutated ones: documents, notes between them, documents cut short, and never a crash."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from nastui.bench.fiostream import PieceKind, StreamSplitter, split_stream
from nastui.bench.jobs import Step, Tool
from nastui.bench.readers import FioReader
from tests.conftest import FIXTURES

FIO = FIXTURES / "fio"


def lines(name: str) -> list[str]:
    return (FIO / name).read_text(encoding="utf-8").splitlines()


def kinds(name: str) -> list[PieceKind]:
    return [p.kind for p in split_stream(lines(name))]


def test_every_dump_of_a_clean_run_is_one_document() -> None:
    pieces = split_stream(lines("randread-4k-qd4-3s.jsonplus"))
    assert [p.kind for p in pieces] == [PieceKind.DOCUMENT] * 4
    for piece in pieces:
        data = json.loads(piece.text)
        assert data["fio version"] == "fio-3.33"
    assert pieces[0].line_no == 1
    assert pieces[1].line_no > pieces[0].line_no


def test_fio_message_between_dumps_is_a_note() -> None:
    pieces = split_stream(lines("randread-4k-qd1-sigint.jsonplus"))
    notes = [p for p in pieces if p.kind is PieceKind.NOTE]
    assert [n.text for n in notes] == ["fio: terminating on signal 2"]
    assert sum(p.kind is PieceKind.DOCUMENT for p in pieces) == 4
    assert pieces[-1].kind is PieceKind.DOCUMENT  # the final result after SIGINT


def test_killed_fio_leaves_complete_dumps_and_no_final_result() -> None:
    assert kinds("randread-4k-qd1-sigkill.jsonplus") == [PieceKind.DOCUMENT] * 2


def test_stream_cut_mid_document_gives_a_broken_piece_at_the_end() -> None:
    whole = lines("randread-4k-qd1-sigkill.jsonplus")
    cut = whole[: len(whole) * 3 // 4]  # as if the pipe closed while fio wrote dump two
    pieces = split_stream(cut)
    assert [p.kind for p in pieces] == [PieceKind.DOCUMENT, PieceKind.BROKEN]
    assert pieces[1].text.startswith("{")


def test_a_new_document_inside_an_open_one_breaks_the_open_one() -> None:
    splitter = StreamSplitter()
    assert splitter.feed("{") == []
    assert splitter.feed('  "jobs" : [') == []
    broken = splitter.feed("{")
    assert [p.kind for p in broken] == [PieceKind.BROKEN]
    assert splitter.inside
    assert [p.kind for p in splitter.feed("}")] == [PieceKind.DOCUMENT]
    assert splitter.close() == []


def test_line_ends_and_blank_lines() -> None:
    splitter = StreamSplitter()
    assert splitter.feed("\n") == []
    assert splitter.feed("{\r\n") == []
    piece = splitter.feed("}\n")
    assert piece[0].text == "{\n}"


def test_reader_on_killed_stream_uses_the_last_dump() -> None:
    step = Step(Tool.FIO, "killed", (("rw", "randread"),))
    reader = FioReader(0, step, t0=0.0, ramp=False)
    samples = [s for line in lines("randread-4k-qd1-sigkill.jsonplus") for s in reader.stdout(line)]
    assert len(samples) == 2
    result = reader.finish("fio exited -9")
    assert result.error == "fio exited -9"
    assert result.read_iops > 1000  # the figures measured before the kill are kept
    assert reader.last is not None
    assert result.bytes_done == reader.last.read.io_bytes


def _mutate(source: list[str], data: st.DataObject) -> list[str]:
    out = list(source)
    for _ in range(data.draw(st.integers(0, 8))):
        if not out:
            break
        i = data.draw(st.integers(0, len(out) - 1))
        action = data.draw(st.sampled_from(["drop", "dup", "garble", "brace", "cut", "swap"]))
        if action == "drop":
            del out[i]
        elif action == "dup":
            out.insert(i, out[i])
        elif action == "garble":
            out[i] = data.draw(st.text(max_size=40))
        elif action == "brace":
            out.insert(i, data.draw(st.sampled_from(["{", "}", "  }", "{ }"])))
        elif action == "cut":
            out = out[:i]
        else:
            j = data.draw(st.integers(0, len(out) - 1))
            out[i], out[j] = out[j], out[i]
    return out


SOURCES = [
    lines(name)
    for name in (
        "randread-4k-qd1-ramp2.jsonplus",
        "randread-4k-qd1-sigint.jsonplus",
        "randread-4k-qd1-layout.jsonplus",
    )
]


@settings(max_examples=60, deadline=None)
@given(source=st.sampled_from(SOURCES), data=st.data())
def test_splitter_and_reader_never_crash_on_mutated_streams(
    source: list[str], data: st.DataObject
) -> None:
    mutated = _mutate(source, data)
    step = Step(Tool.FIO, "mutated", (("rw", "randread"),))
    reader = FioReader(0, step, t0=0.0, ramp=data.draw(st.booleans()))
    samples = [s for line in mutated for s in reader.stdout(line)]
    result = reader.finish(None)
    for sample in samples:
        assert sample.seconds > 0
        assert sample.read_iops >= 0 and sample.write_iops >= 0
        assert sample.read_bps >= 0 and sample.write_bps >= 0
        assert sample.lat_mean_ns is None or sample.lat_mean_ns >= 0
    assert result.label == "mutated"
    pieces = split_stream(mutated)
    # a garbled "line" may itself hold a newline: count the input's lines as the pieces do
    given_lines = sum(len(line.split("\n")) for line in mutated)
    assert (
        sum(len(p.text.split("\n")) for p in pieces if p.kind is not PieceKind.NOTE) <= given_lines
    )


def test_fixture_directory_has_provenance_for_every_file() -> None:
    provenance = (FIO / "PROVENANCE.md").read_text(encoding="utf-8")
    for path in sorted(FIO.iterdir()):
        if path.suffix in (".jsonplus", ".json", ".stderr"):
            assert f"`{path.name}`" in provenance, path.name
    assert Path(FIO / "record.py").exists()
