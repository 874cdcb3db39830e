"""`nastui capture`: one poll of this box watched and recorded, written as one .tar.gz.

    capture(session, output, views=...) -> Captured

1. One poll, exactly as every command polls, with the recorder in front of the runner
   (`record`) and the files watched (`observe`); then the extra reports (`extras`).
2. The serial mask, if asked for, from every serial the poll and the reports named (`mask`).
3. A tree in a private temporary directory: the footprint copied (`tree`), and
   `nastui-capture/`: manifest.json, tools.json, config.toml (redacted, `redact`), and the views
   (`drives.json`, `bays.json`, `pools.json`, `status.txt`: what nastui showed from this poll).
4. The tree as a .tar.gz, created new (never over a file), owner names left out.
`nastui --root BUNDLE` then replays it (`nastui.collectors.replay`): the same views.
"""

from __future__ import annotations

import asyncio
import json
import os
import site
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nastui
from nastui import __version__
from nastui.capture import extras
from nastui.capture.mask import SerialMask, serials_in
from nastui.capture.observe import Footprint, watching
from nastui.capture.record import Recorder
from nastui.capture.redact import redacted
from nastui.capture.tree import TreeCopy, TreeReport
from nastui.collectors import replay, standin
from nastui.collectors.blockstack import is_real_root
from nastui.collectors.local import LocalBackend, local_hostname
from nastui.model import HostSnapshot
from nastui.safeio import MIB, read_text_bounded
from nastui.session import Session

View = Callable[[Session, HostSnapshot], str]
CONFIG_LIMIT = 4 * MIB


class CaptureError(Exception):
    """Why no bundle was written, in one line, with the exit code to leave with."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Captured:
    """A bundle written: where, its size, how long it took, and what is in it."""

    path: Path
    size: int
    seconds: float
    files: int
    runs: int
    masked: int
    notes: tuple[str, ...]


@dataclass
class Recording:
    """One watched poll: the snapshot, what it touched and what ran."""

    snapshot: HostSnapshot
    footprint: Footprint
    recorder: Recorder
    notes: list[str]


def backend_root(session: Session) -> Path:
    """The root the session reads.

    Raises:
        CaptureError: the session is the simulator (nothing of a box to capture).
    """
    backend = session.backend
    if not isinstance(backend, LocalBackend):
        raise CaptureError("capture reads a real machine, not the simulator (--demo)", 64)
    return backend.root


def record(opened: Callable[[], Session]) -> tuple[Session, Recording]:
    """Open the session (`opened`) and poll once, both watched, with the recorder in front of
    the runner; then the extra reports, recorded too.

    Raises:
        CaptureError: the session is the simulator.
    """
    with watching(Path("/")) as seen:
        session = opened()
        root = backend_root(session)
        recorder = Recorder(root, inner=standin.current())
        previous = standin.use(recorder)
        try:
            snapshot = session.poll_now()
        finally:
            standin.use(previous)
    footprint = seen.under(root)
    previous = standin.use(recorder)
    try:
        argvs, notes = extras.planned(root, snapshot)
        asyncio.run(extras.run_all(argvs, session.config.poll.command_timeout_s))
    finally:
        standin.use(previous)
    return session, Recording(snapshot, footprint, recorder, notes)


def _serials(recording: Recording, session: Session) -> SerialMask:
    """A mask for every serial the poll, smartctl's reports and the configuration name."""
    found = {d.identity.serial or "" for d in recording.snapshot.drives}
    found |= serials_in(recording.recorder.outputs())
    found |= {b.serial or "" for b in session.config.chassis.bindings}
    found |= {r.serial or "" for r in session.config.thresholds.ignore}
    return SerialMask.of(found)


def _python_places() -> tuple[str, ...]:
    """Where nastui's own code and Python's live (files the poll opens by importing)."""
    places = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(nastui.__file__).parent)}
    places.update(site.getsitepackages())
    return tuple(p.rstrip("/") + "/" for p in places if p.startswith("/"))


def _ours(relative: str, root: Path, places: tuple[str, ...]) -> bool:
    """A file of nastui's own Python (imported during the poll), not of the box."""
    return str(root / relative).startswith(places)


def _without_ours(footprint: Footprint) -> Footprint:
    places = _python_places()
    keep = {
        name: {p for p in getattr(footprint, name) if not _ours(p, footprint.root, places)}
        for name in ("opened", "listed", "looked")
    }
    return Footprint(footprint.root, **keep)


def _json(path: Path, data: Any, mask: SerialMask) -> None:
    path.write_text(mask.text(json.dumps(data, indent=2, sort_keys=False)) + "\n")


def _versions(recorder: Recorder) -> dict[str, str]:
    found = {}
    for argv in extras.VERSIONS:
        results = recorder.runs.get(argv)
        if results and results[0]["returncode"] == 0:
            text = (results[0]["stdout"] or results[0]["stderr"]).strip()
            found[argv[0]] = text.splitlines()[0] if text else ""
    return found


def _manifest(
    session: Session, recording: Recording, report: TreeReport, mask: SerialMask, root: Path
) -> dict[str, Any]:
    return {
        "format": replay.FORMAT,
        "nastui": __version__,
        "host": recording.snapshot.host,
        "taken_at": recording.snapshot.taken_at,
        "taken": datetime.fromtimestamp(recording.snapshot.taken_at, UTC).isoformat(),
        "root": "/" if is_real_root(root) else str(root),
        "masked": bool(mask.tokens),
        "masked_serials": len(mask.tokens),
        "euid": os.geteuid(),
        "python": sys.version.split()[0],
        "kernel": os.uname().release,
        "versions": _versions(recording.recorder),
        "notes": recording.notes,
        "files": {
            "copied": len(report.copied),
            "empty": sorted(report.empty),
            "nodes": dict(sorted(report.nodes.items())),
            "left_out": dict(sorted(report.left_out.items())),
        },
    }


def _config_text(session: Session) -> str:
    path = session.config.path
    if path is None:
        return ""
    try:
        return read_text_bounded(path, CONFIG_LIMIT)
    except OSError as exc:
        raise CaptureError(
            f"cannot read the configuration {path}: {exc.strerror or exc}", 78
        ) from None


def build_tree(
    session: Session, recording: Recording, top: Path, views: Mapping[str, View], *, masking: bool
) -> tuple[TreeReport, SerialMask]:
    """The bundle's tree at `top` (see the module docstring, steps 2 and 3)."""
    root = recording.footprint.root
    config_text = _config_text(session)
    mask = _serials(recording, session) if masking else SerialMask()
    copier = TreeCopy(root, top, mask)
    report = copier.copy(_without_ours(recording.footprint))
    hostname = top / "etc/hostname"
    if not hostname.exists():  # read when the session opened, or the machine's own name
        hostname.parent.mkdir(parents=True, exist_ok=True)
        hostname.write_text(local_hostname(root) + "\n")
    meta = top / replay.META
    (meta / "views").mkdir(parents=True)
    if config_text:
        (meta / replay.CONFIG).write_text(mask.text(redacted(config_text)))
    _json(meta / replay.TOOLS, recording.recorder.table(mask.text), SerialMask())
    for name, view in views.items():
        (meta / "views" / name).write_text(mask.text(view(session, recording.snapshot)))
    _json(meta / replay.MANIFEST, _manifest(session, recording, report, mask, root), mask)
    return report, mask


def _anonymous(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def write_archive(top: Path, output: Path) -> int:
    """`top` as a new .tar.gz at `output`; its size.

    Raises:
        CaptureError: `output` exists or cannot be created (exit 73).
    """
    try:
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        raise CaptureError(
            f"{output} exists: not overwritten (give another --output)", 73
        ) from None
    except OSError as exc:
        raise CaptureError(f"cannot create {output}: {exc.strerror or exc}", 73) from None
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            tar.add(top, arcname=top.name, filter=_anonymous)
    except OSError as exc:
        output.unlink(missing_ok=True)
        raise CaptureError(f"cannot write {output}: {exc.strerror or exc}", 73) from None
    return output.stat().st_size


def default_name(host: str, when: float) -> str:
    """nastui-capture-HOST-YYYYmmdd-HHMMSS (UTC)."""
    stamp = datetime.fromtimestamp(when, UTC).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-." else "_" for c in host) or "host"
    return f"nastui-capture-{safe}-{stamp}"


def capture(
    opened: Callable[[], Session], output: Path | None, views: Mapping[str, View], *, masking: bool
) -> Captured:
    """Capture this box into a bundle (module docstring); `output` None: a default name in
    the working directory.

    Raises:
        CaptureError: the simulator, an unreadable configuration, an output that cannot be
            created.
    """
    started = time.monotonic()
    session, recording = record(opened)
    name = default_name(recording.snapshot.host, recording.snapshot.taken_at)
    target = output or Path(name + ".tar.gz")
    with tempfile.TemporaryDirectory(prefix="nastui-capture-") as scratch:
        top = Path(scratch) / name
        report, mask = build_tree(session, recording, top, views, masking=masking)
        size = write_archive(top, target)
    return Captured(
        path=target,
        size=size,
        seconds=time.monotonic() - started,
        files=len(report.copied),
        runs=sum(len(r) for r in recording.recorder.runs.values()),
        masked=len(mask.tokens),
        notes=tuple(recording.notes),
    )
