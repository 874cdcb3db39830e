"""Saved runs: one JSON file (everything) and one CSV file (steps and samples) per run.

    <runs dir>/<run id>.json    {"version": 1, "run": {...BenchRun...}}
    <runs dir>/<run id>.csv     kind,run_id,model,serial,firmware,profile,step,label,cache,...

The runs directory is $NASTUI_BENCH_DIR, else `bench/` in nastui's state directory
(/var/lib/nastui for root, ~/.local/state/nastui otherwise); the demo's runs go to its own
state directory (`nastui.cli.cmd_bench`), never the machine's. Each CSV row carries the device's
identity and the profile, so a spreadsheet of several runs needs no join. Files are written to a
temporary name and renamed, so a run is either saved whole or not at all.
"""

from __future__ import annotations

import csv
import dataclasses
import enum
import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nastui.bench.names import natural
from nastui.core.statefiles import state_dir
from nastui.history.dirs import PRIVATE_DIR_MODE, make_dir
from nastui.model import (
    BenchRun,
    BenchSample,
    BenchSettings,
    BenchTarget,
    DriveIdentity,
    Phase,
    RunState,
    StepResult,
    TargetKind,
    Transport,
    UnseenProcess,
)
from nastui.model.errors import ParseError
from nastui.safeio import write_atomic

FORMAT_VERSION = 1
RESULT_MODE = 0o600  # a run's files, in their 0700 directory
SAMPLE_FIELDS = tuple(f.name for f in dataclasses.fields(BenchSample))
STEP_FIELDS = ("seconds", "read_iops", "write_iops", "read_bps", "write_bps", "lat_mean_ns")
CSV_FIELDS = (
    "kind",
    "run_id",
    "model",
    "serial",
    "firmware",
    "profile",
    "label",
    "cache",
    *dict.fromkeys((*SAMPLE_FIELDS, *STEP_FIELDS, "lat_p50_ns", "lat_p99_ns", "lat_p999_ns")),
    "error",
)


def runs_dir(env: Mapping[str, str], euid: int) -> Path:
    """Where runs are saved: $NASTUI_BENCH_DIR, else <state dir>/bench."""
    if env.get("NASTUI_BENCH_DIR"):
        return Path(env["NASTUI_BENCH_DIR"])
    return state_dir(env, euid) / "bench"


def demo_runs_dir(env: Mapping[str, str], demo_dir: Path | None) -> Path | None:
    """Where the demo saves its runs, `bench run --demo` and the interface's demo alike:
    $NASTUI_BENCH_DIR, else `bench/` in the demo's own state directory `demo_dir` (None: the
    demo keeps none), never the machine's: a modelled drive's run there would read as
    measured."""
    if env.get("NASTUI_BENCH_DIR"):
        return Path(env["NASTUI_BENCH_DIR"])
    return demo_dir / "bench" if demo_dir is not None else None


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def to_dict(run: BenchRun) -> dict[str, Any]:
    """A run as plain JSON data."""
    return {"version": FORMAT_VERSION, "run": _plain(run)}


def _pairs(raw: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in raw)


def _target(raw: Mapping[str, Any]) -> BenchTarget:
    ident = raw.get("identity")
    identity = None
    if isinstance(ident, Mapping):
        fields = {**ident, "transport": Transport(ident.get("transport", "unknown"))}
        identity = DriveIdentity(**fields)
    fields = {**raw, "kind": TargetKind(raw["kind"]), "identity": identity}
    lists = {k: tuple(raw.get(k, ())) for k in ("in_use", "footprint", "starved")}
    unseen = tuple(UnseenProcess(**p) for p in raw.get("unseen", ()))
    lowers = _pairs(raw.get("lowers", ()))
    return BenchTarget(**{**fields, **lists, "unseen": unseen, "lowers": lowers})


def _settings(raw: Mapping[str, Any]) -> BenchSettings:
    tuples = ("iodepths", "numjobs", "record_sizes")
    fields: dict[str, Any] = {k: tuple(v) if k in tuples else v for k, v in raw.items()}
    return BenchSettings(**fields)


def _step(raw: Mapping[str, Any]) -> StepResult:
    timings = tuple((str(k), float(v)) for k, v in raw.get("timings", ()))
    return StepResult(**{**raw, "params": _pairs(raw.get("params", ())), "timings": timings})


def from_dict(data: Any, source: str) -> BenchRun:
    """A run from `to_dict`'s data.

    Raises:
        ParseError: not a saved run (naming `source`).
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("run"), Mapping):
        raise ParseError(source, "not a saved nastui benchmark run")
    if data.get("version") != FORMAT_VERSION:
        raise ParseError(source, f"format version {data.get('version')!r} is not {FORMAT_VERSION}")
    raw = data["run"]
    try:
        fields: dict[str, Any] = dict(raw)
        for key in ("smart_before", "smart_after"):
            fields[key] = None if raw.get(key) is None else _pairs(raw[key])
        fields.update(
            settings=_settings(raw["settings"]),
            target=_target(raw["target"]),
            state=RunState(raw["state"]),
            steps=tuple(_step(s) for s in raw.get("steps", ())),
            samples=tuple(
                BenchSample(**{**s, "phase": Phase(s["phase"])}) for s in raw.get("samples", ())
            ),
            warnings=tuple(raw.get("warnings", ())),
        )
        return BenchRun(**fields)
    except (KeyError, TypeError, ValueError) as exc:
        raise ParseError(source, f"not a saved run ({type(exc).__name__}: {exc})") from exc


def csv_text(run: BenchRun) -> str:
    """The run's steps and samples as CSV, one row each, identity on every row."""
    ident = run.target.identity or DriveIdentity()
    base = {
        "run_id": run.run_id,
        "model": ident.model or "",
        "serial": ident.serial or "",
        "firmware": ident.firmware or "",
        "profile": run.settings.profile,
    }
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    rows = [{**base, **_plain(step), "kind": "step"} for step in run.steps]
    labels = {i: s.label for i, s in enumerate(run.steps)}
    for sample in run.samples:
        rows.append({**base, **_plain(sample), "kind": "sample", "label": labels.get(sample.step)})
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return out.getvalue()


class IdTaken(Exception):
    """A run by this id is saved already (`save` wrote nothing)."""


def taken(directory: Path, run_id: str) -> bool:
    """Whether `directory` has a file of a run by this id (its JSON or its CSV)."""
    return any(os.path.lexists(directory / f"{run_id}.{ext}") for ext in ("json", "csv"))


def save(run: BenchRun, directory: Path) -> tuple[Path, Path]:
    """Write `<run_id>.json` and `<run_id>.csv` into `directory` (made mode 0700 when
    missing; the files 0600; whatever the umask). The JSON file claims the id: it is made only
    if no file has its name (checked and made in one step), so a run saved by another process
    under the same id is never replaced.

    Raises:
        IdTaken: a run by this id is saved already (nothing written).
        OSError: the files cannot be written.
    """
    make_dir(directory, PRIVATE_DIR_MODE)
    json_path = directory / f"{run.run_id}.json"
    csv_path = directory / f"{run.run_id}.csv"
    try:
        write_atomic(json_path, json.dumps(to_dict(run), indent=1) + "\n", RESULT_MODE, new=True)
    except FileExistsError as exc:
        raise IdTaken(f"{json_path} exists") from exc
    write_atomic(csv_path, csv_text(run), RESULT_MODE)
    return json_path, csv_path


def load(path: Path) -> BenchRun:
    """A saved run.

    Raises:
        ParseError: unreadable, not JSON, or not a saved run (naming the file).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ParseError(str(path), exc.strerror or str(exc)) from exc
    except ValueError as exc:
        raise ParseError(str(path), f"not JSON ({exc})") from exc
    return from_dict(data, str(path))


def list_runs(directory: Path) -> list[BenchRun]:
    """Every readable run in `directory`, oldest first (unreadable files are skipped)."""
    runs = []
    for path in sorted(directory.glob("*.json")):
        try:
            runs.append(load(path))
        except ParseError:
            continue
    return sorted(runs, key=run_order)


def run_order(run: BenchRun) -> tuple[float, tuple[tuple[int, str], ...]]:
    """Oldest first; in the same second (the demo's clock may stand still) by id, "-10" after
    "-9"."""
    return run.started_at, natural(run.run_id)


def find(directory: Path, ref: str) -> BenchRun:
    """A run by file path, id, unique id prefix, "last", "last-N" (N runs before the last), or
    "#N" (its number in `nastui bench list`).

    Raises:
        LookupError: no run, or several, match (the message says which).
        ParseError: the file is not a saved run.
    """
    if ref.endswith(".json") or "/" in ref:
        return load(Path(ref))
    runs = list_runs(directory) if directory.is_dir() else []
    if ref.startswith("#") and ref[1:].isdigit():
        if not 1 <= int(ref[1:]) <= len(runs):
            raise LookupError(f"{len(runs)} saved runs in {directory}: there is no {ref}")
        return runs[int(ref[1:]) - 1]
    back = ref.removeprefix("last")
    if ref.startswith("last") and (back == "" or back[1:].isdigit()):
        index = len(runs) - 1 - (int(back[1:]) if back else 0)
        if not 0 <= index < len(runs):
            raise LookupError(f"{len(runs)} saved runs in {directory}: there is no {ref}")
        return runs[index]
    exact = [r for r in runs if r.run_id == ref]
    matches = exact or [r for r in runs if r.run_id.startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise LookupError(f"no saved run {ref!r} in {directory} (`nastui bench list` shows them)")
    raise LookupError(
        f"{ref!r} matches {len(matches)} runs: " + ", ".join(r.run_id for r in matches)
    )
