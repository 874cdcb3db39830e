"""The history file: one SQLite database in the state directory (`history.sqlite`).

The daemon writes; the TUI and the CLI read, and write only acknowledgements. Plain rollback
journal rather than WAL: a WAL database cannot be read by a user who may not write its
directory, and the TUI of an unprivileged operator must read the root daemon's history. Writes
are a few small transactions every poll period, well within what a rollback journal handles.
Every failure to open or use the file is a `HistoryError` with one line naming the file and the
fix, and its kind: FULL (no space: the daemon keeps what it could not write in memory and
tries again), DAMAGED (a corrupt page: `nastui.history.salvage` moves the file aside) or OTHER.
A writer notes when it found the file empty (0 bytes: SQLite silently makes a new database in
it) so that the daemon can say so.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from nastui.history.dirs import STATE_DIR_MODE, make_dir
from nastui.history.record import (
    CounterChange,
    ScanRecord,
    counter_changes,
    finished_scans,
    samples,
    zfs_pool_names,
)
from nastui.model import Acknowledgement, HostSnapshot, Notice
from nastui.safeio import UnsafeFileError, open_regular

HISTORY_FILE = "history.sqlite"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 5.0
IN_MEMORY = Path(":memory:")
_DAY = 86400.0
_ZFS_POOLS = "zfs-pools:"  # state row: the ZFS pools ever seen on a host, a JSON list

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS samples (
    host TEXT NOT NULL, metric TEXT NOT NULL, at REAL NOT NULL, value REAL NOT NULL);
CREATE INDEX IF NOT EXISTS samples_by_metric ON samples (host, metric, at);
CREATE TABLE IF NOT EXISTS counters (
    host TEXT NOT NULL, drive TEXT NOT NULL, counter TEXT NOT NULL, name TEXT NOT NULL,
    at REAL NOT NULL, value INTEGER NOT NULL, previous INTEGER);
CREATE INDEX IF NOT EXISTS counters_by_drive ON counters (host, drive, at);
CREATE TABLE IF NOT EXISTS scans (
    host TEXT NOT NULL, pool TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,
    started_at REAL, ended_at REAL, errors INTEGER, bytes_done INTEGER,
    UNIQUE (host, pool, kind, started_at, ended_at));
CREATE TABLE IF NOT EXISTS notices (
    at REAL NOT NULL, host TEXT NOT NULL, kind TEXT NOT NULL, health TEXT NOT NULL,
    key TEXT NOT NULL, name TEXT NOT NULL, message TEXT NOT NULL, delivery TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS notices_by_time ON notices (at);
CREATE TABLE IF NOT EXISTS acks (
    key TEXT PRIMARY KEY, value INTEGER, at REAL NOT NULL, expires_at REAL,
    note TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS state (name TEXT PRIMARY KEY, text TEXT NOT NULL);
"""


class LoggedNotice(NamedTuple):
    """One line of the alert log."""

    at: float
    host: str
    kind: str
    health: str
    key: str
    name: str
    message: str
    delivery: str


FULL = "full"
DAMAGED = "damaged"
OTHER = "other"
_DAMAGED_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


class HistoryError(Exception):
    """The history file cannot be opened, read or written (one line, naming it and the fix).

    Attributes:
        kind: FULL (no space left), DAMAGED (corrupt or not a database) or OTHER.
        detail: SQLite's own words ("database disk image is malformed"), else the message.
    """

    def __init__(self, message: str, kind: str = OTHER, detail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail or message


def _kind(exc: Exception) -> str:
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_FULL" or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC):
        return FULL
    if name.startswith(_DAMAGED_CODES):
        return DAMAGED
    return OTHER


def _error(path: Path, exc: Exception) -> HistoryError:
    """The one-line `HistoryError` for an sqlite3 or OS error on `path`."""
    text = str(exc)
    kind = _kind(exc)
    if kind == FULL:
        return HistoryError(f"history {path}: {text}: free space in {path.parent}", FULL)
    if kind == DAMAGED:
        what = "not a nastui history database" if "not a database" in text else "damaged"
        return HistoryError(f"history {path}: {what} ({text}): move it aside", DAMAGED, text)
    if "readonly" in text or "unable to open" in text or isinstance(exc, OSError):
        hint = "run as root, or point NASTUI_STATE_DIR at a directory you may write"
        return HistoryError(f"history {path}: cannot open or write it ({text}): {hint}")
    return HistoryError(f"history {path}: {text}")


def _regular_or_absent(path: Path) -> None:
    """Refuse a history path that is there and is not a regular file (a directory, a FIFO
    SQLite would wait on, a link to /dev/zero), before SQLite opens it.

    Raises:
        HistoryError: it is not a regular file.
        OSError: it cannot be looked at.
    """
    try:
        os.close(open_regular(path))
    except FileNotFoundError:
        return
    except UnsafeFileError as exc:
        raise HistoryError(f"history {exc}: move it aside") from None


def _created(conn: sqlite3.Connection) -> sqlite3.Connection:
    """`conn` with the schema made (if it was not there yet)."""
    conn.executescript(_SCHEMA)
    conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    conn.commit()
    return conn


class History:
    """An open history file; not thread-safe (one thread owns it)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._last_kept: dict[str, dict[str, tuple[float, float]]] = {}
        self._counters: dict[str, dict[tuple[str, str], int]] = {}
        self._zfs_pools: dict[str, frozenset[str]] = {}
        self.was_empty = False  # the file was there with 0 bytes: a new database was made in it

    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> History:
        """Open (and for a writer create) the file. Raises `HistoryError`."""
        was_empty = False
        try:
            _regular_or_absent(path)
            if readonly:
                if not path.exists():
                    raise HistoryError(f"history {path}: not there yet: `nastui daemon` creates it")
                conn = sqlite3.connect(
                    f"file:{path}?mode=ro",
                    uri=True,
                    timeout=BUSY_TIMEOUT_S,
                    check_same_thread=False,  # opened off the UI thread, then read on it
                )
            else:
                make_dir(path.parent, STATE_DIR_MODE)
                was_empty = path.is_file() and path.stat().st_size == 0
                conn = _created(sqlite3.connect(path, timeout=BUSY_TIMEOUT_S))
                with contextlib.suppress(OSError):
                    path.chmod(0o644)  # the TUI of an unprivileged operator reads it
            history = cls(conn, path)
            history.was_empty = was_empty
            history._check_schema()
            return history
        except (sqlite3.Error, OSError) as exc:
            raise _error(path, exc) from None

    @classmethod
    def in_memory(cls) -> History:
        """An empty history in memory (the demo's), usable from any one thread at a time."""
        return cls(_created(sqlite3.connect(":memory:", check_same_thread=False)), IN_MEMORY)

    def copy(self) -> History:
        """A new in-memory history holding what this one holds, its own from then on."""
        target = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.backup(target)
        return History(target, IN_MEMORY)

    def _check_schema(self) -> None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):
            found = row[0] if row else "none"
            raise HistoryError(
                f"history {self.path}: schema {found}, this nastui reads {SCHEMA_VERSION}: "
                "move the file aside"
            )

    def close(self) -> None:
        """Close the file."""
        self._conn.close()

    def damage(self) -> str | None:
        """What SQLite's quick check finds wrong with the file (its first line), or None when
        it is sound. Reads every page once (a fraction of a second for 90 days of history)."""
        try:
            rows = self._conn.execute("PRAGMA quick_check(1)").fetchall()
        except sqlite3.Error as exc:
            return str(exc)
        first = str(rows[0][0]) if rows else "no answer"
        if first == "ok":
            return None
        lines = [line.strip() for line in first.splitlines()]
        return "; ".join(line for line in lines if line and not line.startswith("***"))

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        try:
            with self._conn:
                yield self._conn
        except sqlite3.Error as exc:
            raise _error(self.path, exc) from None

    def _query(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        try:
            return list(self._conn.execute(sql, args))
        except sqlite3.Error as exc:
            raise _error(self.path, exc) from None

    # ------------------------------------------------------------------ the daemon's writes

    def _host_memory(
        self, host: str
    ) -> tuple[dict[str, tuple[float, float]], dict[tuple[str, str], int]]:
        if host not in self._last_kept:
            kept = self._query(
                "SELECT metric, at, value FROM samples s WHERE host = ? AND at = "
                "(SELECT max(at) FROM samples WHERE host = s.host AND metric = s.metric)",
                (host,),
            )
            self._last_kept[host] = {str(m): (float(a), float(v)) for m, a, v in kept}  # type: ignore[arg-type]
            rows = self._query(
                "SELECT drive, counter, value FROM counters c WHERE host = ? AND at = "
                "(SELECT max(at) FROM counters WHERE host = c.host AND drive = c.drive "
                "AND counter = c.counter)",
                (host,),
            )
            self._counters[host] = {(str(d), str(c)): int(v) for d, c, v in rows}  # type: ignore[call-overload]
        return self._last_kept[host], self._counters[host]

    def record(self, snapshot: HostSnapshot) -> int:
        """Keep what is worth keeping of `snapshot`; returns the number of rows written."""
        last_kept, known = self._host_memory(snapshot.host)
        new_samples = list(samples(snapshot, last_kept))
        changes = list(counter_changes(snapshot, known))
        scans = list(finished_scans(snapshot))
        seen = self._zfs_pools.get(snapshot.host)
        if seen is None:
            seen = self._zfs_pools[snapshot.host] = frozenset(self.zfs_pools(snapshot.host))
        pools = seen | zfs_pool_names(snapshot)
        with self._tx() as conn:
            if pools != seen:
                conn.execute(
                    "INSERT OR REPLACE INTO state VALUES (?, ?)",
                    (_ZFS_POOLS + snapshot.host, json.dumps(sorted(pools))),
                )
            conn.executemany(
                "INSERT INTO samples VALUES (?, ?, ?, ?)",
                [(s.host, s.metric, s.at, s.value) for s in new_samples],
            )
            conn.executemany(
                "INSERT INTO counters VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(c.host, c.drive, c.counter, c.name, c.at, c.value, c.previous) for c in changes],
            )
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO scans VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.host,
                        r.pool,
                        r.kind,
                        r.state,
                        r.started_at,
                        r.ended_at,
                        r.errors,
                        r.bytes_done,
                    )
                    for r in scans
                ],
            )
            new_scans = conn.total_changes - before
        for s in new_samples:
            last_kept[s.metric] = (s.at, s.value)
        for c in changes:
            known[(c.drive, c.counter)] = c.value
        self._zfs_pools[snapshot.host] = pools
        return len(new_samples) + len(changes) + new_scans

    def zfs_pools(self, host: str) -> tuple[str, ...]:
        """Every ZFS pool `record` ever saw on `host`, sorted (none: an empty tuple)."""
        text = self.state(_ZFS_POOLS + host)
        try:
            names = json.loads(text) if text else []
        except ValueError:
            return ()
        return tuple(sorted(str(n) for n in names)) if isinstance(names, list) else ()

    def log_notices(self, host: str, notices: Iterable[Notice], delivery: str) -> None:
        """Add sent (or failed) notices to the alert log; `delivery` says how it went."""
        rows = [
            (
                n.at,
                host,
                n.kind.value,
                n.alert.health.name,
                n.alert.key,
                n.alert.name,
                n.alert.message,
                delivery,
            )
            for n in notices
        ]
        with self._tx() as conn:
            conn.executemany("INSERT INTO notices VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def put_state(self, name: str, text: str) -> None:
        """Keep a named piece of daemon state (the alert book, the last snapshot)."""
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO state VALUES (?, ?)", (name, text))

    def state(self, name: str) -> str | None:
        """A named piece of daemon state, if kept."""
        rows = self._query("SELECT text FROM state WHERE name = ?", (name,))
        return str(rows[0][0]) if rows else None

    def states(self) -> dict[str, str]:
        """Every named piece of daemon state kept (for carrying over to a new file)."""
        return {str(n): str(t) for n, t in self._query("SELECT name, text FROM state")}

    def prune(self, now: float, keep_days: float) -> int:
        """Forget samples, counters and notices older than `keep_days`; rows removed."""
        cutoff = now - keep_days * _DAY
        with self._tx() as conn:
            before = conn.total_changes
            for table in ("samples", "counters", "notices"):
                conn.execute(f"DELETE FROM {table} WHERE at < ?", (cutoff,))
            return conn.total_changes - before

    # ------------------------------------------------------------------ acknowledgements

    def acks(self) -> tuple[Acknowledgement, ...]:
        """Every alert acknowledgement kept (expired ones too: the engine decides)."""
        rows = self._query("SELECT key, value, at, expires_at, note FROM acks ORDER BY key")
        return tuple(
            Acknowledgement(
                str(k),
                None if v is None else int(v),  # type: ignore[call-overload]
                float(a),  # type: ignore[arg-type]
                str(n),
                None if e is None else float(e),  # type: ignore[arg-type]
            )
            for k, v, a, e, n in rows
        )

    def add_ack(self, ack: Acknowledgement) -> None:
        """Keep an acknowledgement (replacing one with the same key)."""
        with self._tx() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO acks VALUES (?, ?, ?, ?, ?)",
                (ack.key, ack.value, ack.at, ack.expires_at, ack.note),
            )

    def remove_ack(self, key: str) -> bool:
        """Forget an acknowledgement; False if there was none."""
        with self._tx() as conn:
            return conn.execute("DELETE FROM acks WHERE key = ?", (key,)).rowcount > 0

    # ------------------------------------------------------------------ reads

    def samples(self, host: str, metric: str, since: float) -> tuple[tuple[float, float], ...]:
        """(time, value) of one metric since `since`, oldest first."""
        rows = self._query(
            "SELECT at, value FROM samples WHERE host = ? AND metric = ? AND at >= ? ORDER BY at",
            (host, metric, since),
        )
        return tuple((float(a), float(v)) for a, v in rows)  # type: ignore[arg-type]

    def metrics(self, host: str) -> tuple[str, ...]:
        """The metrics with samples for `host`."""
        rows = self._query("SELECT DISTINCT metric FROM samples WHERE host = ?", (host,))
        return tuple(sorted(str(r[0]) for r in rows))

    def counter_changes(self, host: str, drive: str) -> tuple[CounterChange, ...]:
        """Every kept change of a drive's counters, oldest first."""
        rows = self._query(
            "SELECT host, drive, counter, name, at, value, previous FROM counters "
            "WHERE host = ? AND drive = ? ORDER BY at, counter",
            (host, drive),
        )
        return tuple(CounterChange(*row) for row in rows)  # type: ignore[arg-type]

    def scans(self, host: str, pool: str | None = None, limit: int = 20) -> tuple[ScanRecord, ...]:
        """Finished scans, newest first."""
        where, args = (
            ("host = ?", (host,)) if pool is None else ("host = ? AND pool = ?", (host, pool))
        )
        rows = self._query(
            f"SELECT host, pool, kind, state, started_at, ended_at, errors, bytes_done FROM scans "
            f"WHERE {where} ORDER BY coalesce(ended_at, started_at) DESC LIMIT ?",
            (*args, limit),
        )
        return tuple(ScanRecord(*row) for row in rows)  # type: ignore[arg-type]

    def notices(self, since: float, limit: int = 200) -> tuple[LoggedNotice, ...]:
        """The alert log since `since`, newest first."""
        rows = self._query(
            "SELECT at, host, kind, health, key, name, message, delivery FROM notices "
            "WHERE at >= ? ORDER BY at DESC LIMIT ?",
            (since, limit),
        )
        return tuple(LoggedNotice(*row) for row in rows)  # type: ignore[arg-type]
