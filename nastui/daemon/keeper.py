"""What the monitoring daemon writes, kept through a full disk or a damaged history file.

Storage never stops alerting. Every write of the daemon goes through the `Keeper`:

- The alert book (what was sent, so nothing is sent twice) and the outbox (what is decided but
  not yet taken by every notifier: `nastui.daemon.outbox`) live in `alert-book.json` beside
  the history, written whole with fsync and rename, and into a preallocated spare when the disk
  is full (`nastui.daemon.bookfile`): before any notice is sent, and after each batch a
  notifier took (`commit`); a copy stays in the history file, which is where older versions
  kept it. At start the side file wins: an empty (0-byte) or
  damaged history then loses trends, not the book.
- A write that fails (no space, a read-only remount, a vanished directory) is one line in the
  log when it starts failing and one when it works again, and one alert while it lasts
  (`daemon:storage`, WARNING: it goes out with the next cycle's notices, through the same
  engine, so once; RECOVERED when it has been writable for the recovery delay). The alert book
  advances in memory regardless, so a notice is never repeated by this process; the alert log's
  rows wait in memory (up to `MAX_PENDING` batches) and are written when space returns.
- A history file SQLite reports damaged (a corrupt page, at start by a quick check or at any
  query later) is moved aside and a new one started (`nastui.history.salvage`); when even the
  new file cannot be made, the daemon goes on with a history in memory and tries the file again
  every cycle.
- A history file that cannot be used at all (a directory, a FIFO or a device in its place, an
  immutable or unwritable file) never stops the daemon either: it watches without history
  (in memory), raises `daemon:storage` as CRITICAL, and tries the file every cycle.
- An alert book that no reader could use (not a regular file, over 16 MiB, not UTF-8, not
  JSON, nested absurdly deep) is moved aside as `alert-book.json.damaged-TIME` and said once;
  the history's copy is used instead.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from nastui.control.latest import write_public
from nastui.core.alerting import AlertBook, book_from_record, book_record
from nastui.core.codec import dumps
from nastui.core.events import same_for_events
from nastui.daemon.bookfile import BOOK_FILE, SPARE_FILE, BookFile
from nastui.daemon.outbox import Outbox, outbox_from
from nastui.daemonlog import Log
from nastui.history.db import DAMAGED, FULL, IN_MEMORY, History, HistoryError
from nastui.history.salvage import start_over
from nastui.model import Acknowledgement, Alert, Health, HostSnapshot, Notice, Subject
from nastui.safeio import loads_json

BOOK = "alert-book"
STORAGE_KEY = "daemon:storage"
MAX_PENDING = 10_000


class Keeper:
    """The daemon's writes and the reads they depend on; never raises for storage."""

    def __init__(self, history: History, log: Log) -> None:
        self.history = history
        self.log = log
        real = history.path != IN_MEMORY
        self.books: BookFile | None = BookFile(history.path.parent) if real else None
        self._in_spare = False  # the book went into the spare (said once)
        self._reopen: Path | None = None  # a history file to open again once it can be made
        self._unusable: str | None = None  # why that file cannot be used (not for lack of room)
        self._pending: list[tuple[str, tuple[Notice, ...], str]] = []
        self._dropped = 0
        self._acks: tuple[Acknowledgement, ...] = ()
        self._kept: dict[str, str] = {}  # "file"/"history" -> the book's text last written there
        self._book_text: str | None = None  # the last committed (book and outbox)
        self._kept_latest: dict[str, HostSnapshot] = {}
        self.problems: dict[str, str] = {}  # this cycle's failed writes: what -> one line
        self._written: set[str] = set()  # what this cycle wrote
        self._failing: dict[str, str] = {}  # the standing streak (logged once)
        self._streak: tuple[float, str] | None = None  # since, first line (the alert's)
        if real:
            self._check_at_start()

    # ------------------------------------------------------------------ start

    @classmethod
    def open(cls, path: Path, log: Log) -> Keeper:
        """Open the history file at `path`; a damaged one is moved aside and a new one made.
        Never raises: when there is no room for one, or it cannot be used at all (a
        directory, a device, an immutable or unwritable file), the daemon watches with a
        history in memory, says why in its storage alert, and tries the file every cycle."""
        try:
            return cls(History.open(path), log)
        except HistoryError as exc:
            error = exc
        if error.kind == DAMAGED:
            try:
                salvaged = start_over(path)
            except HistoryError as exc:
                error = exc
            else:
                log.error(salvaged.describe(f"damaged ({error.detail})"))
                return cls(salvaged.history, log)
        keeper = cls(History.in_memory(), log)  # the first cycle says why, and retries
        keeper.books = BookFile(path.parent)
        keeper._reopen = path
        keeper._unusable = None if error.kind == FULL else str(error)
        return keeper

    def _check_at_start(self) -> None:
        damage = self.history.damage()
        if damage is not None:
            self._start_over(damage)

    def load(self) -> tuple[AlertBook, Outbox]:
        """The alert book and what is still owed to the notifiers: the side file's (or its
        spare's, when newer), else the history's copy, else empty ones. A side file that can
        never be read (a FIFO, a directory, a huge or malformed file) is moved aside, and said
        once."""
        texts = self._book_texts()
        copy = self.state(BOOK)
        if self.history.was_empty:
            known = (
                f"alerts already sent are known from {BOOK_FILE} and are not sent again"
                if texts
                else f"no {BOOK_FILE} beside it: standing alerts are sent again"
            )
            self.log.warning(
                f"history {self.history.path} was empty (0 bytes): a new one was started; {known}"
            )
        candidates: list[tuple[str, Path | str]] = [*texts]
        if copy:
            candidates.append((copy, f"{self.history.path} ({BOOK})"))
        for text, source in candidates:
            try:
                data = loads_json(text)
                book = book_from_record(data, str(source))
            except ValueError as exc:
                if isinstance(source, Path):
                    self._set_aside(source, f"{source}: not an alert state file ({exc})")
                else:
                    self.log.warning(f"{source}: not an alert state file ({exc}); not used")
                continue
            primary = next((t for t, where in texts if where.name == BOOK_FILE), "")
            self._kept = {"file": primary, "history": copy or ""}
            return book, outbox_from(data)
        return AlertBook(), Outbox()

    def _book_texts(self) -> list[tuple[str, Path]]:
        if self.books is None:
            return []
        texts, unreadable = self.books.texts()
        for path, why, bad in unreadable:
            if bad:
                self._set_aside(path, why)
            else:
                self.log.warning(f"alert book: {why}; not used")
        return texts

    def _set_aside(self, path: Path, why: str) -> None:
        assert self.books is not None
        try:
            aside = self.books.set_aside(path)
        except OSError as exc:
            self.log.error(f"alert book: {why}; not used, and not moved aside: {exc}")
            return
        self.log.warning(f"alert book: {why}: moved aside to {aside.name}, not used")

    def describe(self) -> str:
        """The history file for the start line ("... (in memory until it can be made)")."""
        if self._reopen is not None and self._unusable is not None:
            return f"{self._reopen} (cannot be used: watching without history until it can)"
        if self._reopen is not None:
            return f"{self._reopen} (in memory until it can be made)"
        return str(self.history.path)

    # ------------------------------------------------------------------ reads

    def state(self, name: str) -> str | None:
        """A named state kept in the history; None when absent or unreadable."""
        try:
            return self.history.state(name)
        except HistoryError as exc:
            self._failed("history", exc)
            return None

    def acks(self) -> tuple[Acknowledgement, ...]:
        """The acknowledgements; the last ones read when the history cannot be read."""
        try:
            self._acks = self.history.acks()
        except HistoryError as exc:
            self._failed("history", exc)
        return self._acks

    # ------------------------------------------------------------------ writes

    def begin(self) -> None:
        """A new cycle: its failures are counted afresh."""
        self.problems = {}
        self._written = set()

    def log_notices(self, host: str, batch: Sequence[Notice], delivery: str) -> None:
        """Queue a batch for the alert log (written by `keep`, now or when there is room)."""
        self._pending.append((host, tuple(batch), delivery))
        if len(self._pending) > MAX_PENDING:
            self._pending.pop(0)
            self._dropped += 1

    def remove_acks(self, keys: Iterable[str]) -> list[str]:
        """Forget the acknowledgements of `keys`; the keys actually forgotten."""
        done: list[str] = []

        def remove() -> None:
            for key in keys:
                if self.history.remove_ack(key):
                    done.append(key)

        self._try("history", remove)
        return done

    def commit(self, book: AlertBook, outbox: Outbox) -> None:
        """Write the book and the outbox to the book's file now, durably (fsync'd, renamed):
        before any notice is sent, and after each batch a notifier took."""
        text = json.dumps({**book_record(book), "outbox": outbox.record()}, separators=(",", ":"))
        self._book_text = text
        kept = (self._kept.get("file"), self._kept.get("spare"))
        if self.books is not None and text not in kept:
            self._try("alert book", lambda: self._write_book(text))

    def keep_latest(self, snapshots: Sequence[HostSnapshot], encoded: Mapping[str, str]) -> None:
        """Write each host's last snapshot when what events compare changed: after `commit`
        and before sending, so that a restart derives no event twice."""

        def latest() -> None:
            for current in snapshots:
                self._keep_latest(current, encoded)

        self._try("history", latest)

    def keep(
        self, snapshots: Sequence[HostSnapshot], prune: Callable[[History], object] | None
    ) -> None:
        """Write the queued alert log, the book's copy in the history, the snapshots' history
        rows, and `prune` when given."""
        self._try_reopen()
        text = self._book_text

        def history() -> None:
            self._flush_notices()
            if text is not None and text != self._kept.get("history"):
                self.history.put_state(BOOK, text)
                self._kept["history"] = text
            for current in snapshots:
                self.history.record(current)
            if prune is not None:
                prune(self.history)

        self._try("history", history)

    def publish(self, what: str, path: Path, text: str) -> None:
        """Write a public file (latest.json, the Prometheus textfile)."""
        self._try(what, lambda: write_public(path, text))

    def _write_book(self, text: str) -> None:
        assert self.books is not None
        if not self.books.write(text):
            self._kept["file"] = text
            self._kept.pop("spare", None)
            self._in_spare = False
            return
        self._kept["spare"] = text
        if not self._in_spare:  # kept safe; the file itself is written with the next change
            self.log.warning(f"alert book: no room for a new {BOOK_FILE}, kept in {SPARE_FILE}")
            self._in_spare = True

    def _flush_notices(self) -> None:
        while self._pending:
            host, batch, delivery = self._pending[0]
            self.history.log_notices(host, batch, delivery)
            self._pending.pop(0)
        if self._dropped:
            self.log.warning(
                f"alert log: {self._dropped} batch(es) lost while it could not be written"
            )
            self._dropped = 0

    def _keep_latest(self, current: HostSnapshot, encoded: Mapping[str, str]) -> None:
        if same_for_events(self._kept_latest.get(current.host), current):
            return
        text = encoded.get(current.host) or dumps(current)
        self.history.put_state(f"latest:{current.host}", text)
        self._kept_latest[current.host] = current

    # ------------------------------------------------------------------ failures

    def _try(self, what: str, action: Callable[[], None]) -> bool:
        try:
            action()
        except HistoryError as exc:
            self._failed(what, exc)
            return False
        except OSError as exc:
            self.problems.setdefault(what, str(exc))
            return False
        self._written.add(what)
        return True

    def _failed(self, what: str, exc: HistoryError) -> None:
        if exc.kind == DAMAGED and self.history.path != IN_MEMORY:
            self._start_over(exc.detail)
        else:
            self.problems.setdefault(what, str(exc))

    def _start_over(self, why: str) -> None:
        path = self.history.path
        with contextlib.suppress(Exception):
            self.history.close()
        self._forget_written()
        try:
            salvaged = start_over(path)
        except HistoryError as exc:
            self.history = History.in_memory()
            self._reopen = path
            self._unusable = None if exc.kind == FULL else f"history {path}: damaged ({why}); {exc}"
            self.problems.setdefault("history", f"history {path}: damaged ({why}); {exc}")
            return
        self.history = salvaged.history
        self.log.error(salvaged.describe(f"damaged ({why})"))

    def _try_reopen(self) -> None:
        if self._reopen is None:
            return
        try:
            history = History.open(self._reopen)
        except HistoryError as exc:
            self.problems.setdefault("history", str(exc))
            self._unusable = None if exc.kind == FULL else str(exc)
            return
        with contextlib.suppress(Exception):
            self.history.close()
        self.history = history
        # Usable again, even before a cycle had counted it failing (the file came back between
        # the start and the first write): the cycle's end says "written again" all the same.
        self._failing.setdefault("history", self._unusable or f"history {self._reopen}: reopened")
        self._reopen = self._unusable = None
        self._forget_written()

    def _forget_written(self) -> None:
        """A new history file: the book and the last snapshots go into it again."""
        self._kept.pop("history", None)
        self._kept_latest.clear()

    # ------------------------------------------------------------------ the storage alert

    def end(self, now: float) -> None:
        """Close the cycle: log what started or stopped failing; the alert follows the streak."""
        for what, line in self.problems.items():
            if what not in self._failing:
                self.log.error(
                    f"storage: {line}; alerts are still sent (each once), what could not be "
                    "written is kept in memory and written when it can"
                )
        for what in self._failing.keys() & self._written - self.problems.keys():
            self.log.info(f"storage: {what} written again")
        untried = {w: line for w, line in self._failing.items() if w not in self._written}
        self._failing = {**untried, **self.problems}  # a file not tried this cycle still fails
        if not self._failing:
            self._streak = None
        elif self._streak is None:
            self._streak = (now, next(iter(self._failing.values())))

    def alerts(self, now: float) -> list[Alert]:
        """The storage alert while writes fail (empty otherwise): CRITICAL while the history
        file cannot be used at all, WARNING while writes fail for lack of room."""
        if self._streak is None and self._unusable is not None:
            self._streak = (now, self._unusable)  # known before any write was tried
        if self._streak is None:
            return []
        since, line = self._streak
        if self._unusable is not None:
            message = (
                f"{self._unusable}; watching without history (no trends, no alert log) until "
                "it can be used; alerts are still sent, each once"
            )
            health = Health.CRITICAL
        else:
            message = f"{line}: alerts are still sent; history is not kept until there is room"
            health = Health.WARNING
        return [Alert(STORAGE_KEY, health, Subject.HOST, "nastui state", message, since)]
