"""Readers that turn a running step's output into samples and, at its end, a result (pure).

One reader per tool, all with the same face (`StepReader`): the runner hands every stdout and
stderr line in as it arrives and gets back the samples it completed; `finish` gives the step's
result. A reader never raises on odd output: what it cannot read becomes a note, and a step with
no usable result says why in `StepResult.error`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Protocol

from nastui.bench.fiodiff import Differ, step_result
from nastui.bench.fiojson import Dump, parse_dump
from nastui.bench.fiostream import PieceKind, StreamSplitter
from nastui.bench.jobs import Step
from nastui.bench.sizes import parse_size
from nastui.model import BenchSample, Phase, StepResult
from nastui.model.errors import ParseError

# Sample: 235929600 bytes (236 MB, 225 MiB) copied, 1 s, 235 MB/s
# Sample: 0 bytes copied, 0.00067514 s, 0.0 kB/s
# (dd's last progress update and its final line can share one line: the last match counts.)
_DD_COPIED = re.compile(r"(?P<bytes>\d+) bytes? (?:\([^)]*\) )?copied, (?P<secs>[\d.]+) s")
# Sample: dd: error writing '/dev/full': No space left on device
_DD_ERROR = re.compile(r"^dd: (?P<what>.+)$")
# Sample: 1200+0 records in
_DD_RECORDS = re.compile(r"^\d+\+\d+ records (in|out)$")
MAX_NOTES = 50


class StepReader(Protocol):
    """What the runner feeds a step's output to."""

    notes: list[str]

    def stdout(self, line: str) -> list[BenchSample]:
        """One line of standard output; the samples it completed."""
        ...

    def stderr(self, line: str) -> list[BenchSample]:
        """One line of standard error; the samples it completed."""
        ...

    def finish(self, failure: str | None) -> StepResult:
        """The step's result; `failure` says how the program ended if not well."""
        ...


class _Notes:
    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES and text.strip():
            self.notes.append(text.strip()[:300])


class FioReader(_Notes):
    """fio's json+ status stream: splitter, parser and differ in one."""

    def __init__(self, index: int, step: Step, *, t0: float, ramp: bool) -> None:
        super().__init__()
        self.step = step
        self.splitter = StreamSplitter()
        self.differ = Differ(index, t0=t0, ramp=ramp)
        self.version: str | None = None

    def stdout(self, line: str) -> list[BenchSample]:
        samples = []
        for piece in self.splitter.feed(line):
            if piece.kind is PieceKind.NOTE:
                self.note(piece.text)
            elif piece.kind is PieceKind.BROKEN:
                self.note(f"fio output cut short at line {piece.line_no}")
            else:
                sample = self._document(piece.text, piece.line_no)
                if sample is not None:
                    samples.append(sample)
        return samples

    def _document(self, text: str, line_no: int) -> BenchSample | None:
        try:
            dump = parse_dump(text, f"fio status dump at line {line_no}")
        except ParseError as exc:
            self.note(str(exc))
            return None
        self.version = dump.version or self.version
        return self.differ.push(dump)

    def stderr(self, line: str) -> list[BenchSample]:
        self.note(line)
        return []

    @property
    def last(self) -> Dump | None:
        """The newest dump read."""
        return self.differ.last

    def finish(self, failure: str | None) -> StepResult:
        for piece in self.splitter.close():
            self.note(f"fio output cut short at line {piece.line_no}")
        last = self.differ.last
        if last is None:
            why = failure or "fio printed no result"
            detail = f": {self.notes[-1]}" if self.notes else ""
            return StepResult(
                self.step.label, self.step.params, self.step.cache, error=why + detail
            )
        result = step_result(self.step.label, self.step.params, last)
        error = result.error or failure
        if error and self.notes:
            error += f" ({self.notes[-1]})"  # fio says why on stderr
        return _with(result, self.step, error)


def _with(result: StepResult, step: Step, error: str | None) -> StepResult:
    """`result` with the step's params (a custom job's text is not repeated), cache and error."""
    params = step.params if step.param("job") is None else (("job", "custom"),)
    return dataclasses.replace(result, params=params, cache=step.cache, error=error)


def dd_progress(line: str) -> tuple[int, float] | None:
    """(bytes copied, seconds) from a dd progress or final line; None for other lines."""
    found = list(_DD_COPIED.finditer(line))
    if not found:
        return None
    last = found[-1]
    return int(last["bytes"]), float(last["secs"])


class _Progress(_Notes):
    """Samples from (cumulative bytes, seconds) pairs: dd and write-sync-close."""

    def __init__(self, index: int, step: Step, *, t0: float, block: int) -> None:
        super().__init__()
        self.index, self.step, self.t0, self.block = index, step, t0, max(1, block)
        self.done = (0, 0.0)
        self.reading = step.param("rw") in ("read", "source")

    def advance(self, copied: int, seconds: float) -> list[BenchSample]:
        before_bytes, before_s = self.done
        if copied < before_bytes or seconds < before_s:
            return []
        self.done = (copied, seconds)
        if seconds - before_s < 0.05:
            return []
        rate = (copied - before_bytes) / (seconds - before_s)
        rates = {"read_bps": rate} if self.reading else {"write_bps": rate}
        iops = {k.replace("bps", "iops"): v / self.block for k, v in rates.items()}
        sample = BenchSample(
            t=round(self.t0 + seconds, 3),
            step=self.index,
            phase=Phase.RUN,
            seconds=round(seconds - before_s, 3),
            bytes_done=copied,
            **rates,
            **iops,
        )
        return [sample]

    def result(self, error: str | None, timings: tuple[tuple[str, float], ...] = ()) -> StepResult:
        copied, seconds = self.done
        rate = copied / seconds if seconds > 0 else 0.0
        return StepResult(
            label=self.step.label,
            params=self.step.params,
            cache=self.step.cache,
            seconds=round(seconds, 6),
            read_bps=rate if self.reading else 0.0,
            write_bps=0.0 if self.reading else rate,
            read_iops=rate / self.block if self.reading else 0.0,
            write_iops=0.0 if self.reading else rate / self.block,
            bytes_done=copied,
            timings=timings,
            error=error,
        )


class DdReader(_Progress):
    """dd's `status=progress` lines on stderr (each `\\r`-ended) and its final summary."""

    def __init__(self, index: int, step: Step, *, t0: float) -> None:
        super().__init__(index, step, t0=t0, block=parse_size(step.param("bs") or "1M"))
        self.error: str | None = None

    def stdout(self, line: str) -> list[BenchSample]:
        self.note(line)
        return []

    def stderr(self, line: str) -> list[BenchSample]:
        progress = dd_progress(line)
        if progress is not None:
            return self.advance(*progress)
        match = _DD_ERROR.match(line)
        if match:
            self.error = match["what"]
        if not _DD_RECORDS.match(line):
            self.note(line)
        return []

    def finish(self, failure: str | None) -> StepResult:
        return self.result(self.error or failure)


class WscReader(_Progress):
    """The write-sync-close timer's JSON lines (`nastui.bench.wsc`)."""

    def __init__(self, index: int, step: Step, *, t0: float) -> None:
        super().__init__(index, step, t0=t0, block=int(step.param("record") or 1))
        self.error: str | None = None
        self.timings: tuple[tuple[str, float], ...] = ()

    def stdout(self, line: str) -> list[BenchSample]:
        try:
            record = json.loads(line)
        except ValueError:
            self.note(line)
            return []
        if not isinstance(record, dict):
            self.note(line)
            return []
        if "error" in record:
            self.error = str(record["error"])
            return []
        try:
            copied = int(record["bytes"])
            if record.get("done"):
                phases = (("write", "write_s"), ("fsync", "fsync_s"), ("close", "close_s"))
                self.timings = tuple((name, float(record[key])) for name, key in phases)
                return self.advance(copied, sum(t for _, t in self.timings))
            return self.advance(copied, float(record["t"]))
        except (KeyError, TypeError, ValueError):
            self.note(line)
            return []

    def stderr(self, line: str) -> list[BenchSample]:
        self.note(line)
        return []

    def finish(self, failure: str | None) -> StepResult:
        error = self.error or failure
        if not self.timings and error is None:
            error = "write-sync-close printed no result"
        return self.result(error, self.timings)
