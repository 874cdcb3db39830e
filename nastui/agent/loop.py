"""The pass_persist loop: serve the daemon's latest snapshot to snmpd over stdin/stdout.

`Agent.serve(stdin, stdout)` answers snmpd until stdin closes. Before answering a get or getnext
it looks at the snapshot file at most once a second and re-reads it when it changed (inode,
size or mtime); the table is rebuilt then too, so the snapshot's age stays current. It never
runs smartctl or any collector: an SNMP poll never wakes a disk, and snmpd needs no root.

Nothing but protocol goes to stdout, and nothing at all to stderr: snmpd reads the handler's
stderr through the same pipe as its stdout, so a stray line there would be taken for an answer.
Trouble (no file, permission, garbage, a bug) goes to the `log` callable (syslog, see
`syslog_logger`), said once until it changes, and is served as nastuiAgentProblem; the last
good snapshot keeps being served (turning stale) when the file goes bad.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from nastui.agent import mib
from nastui.agent.protocol import NONE, NOT_WRITABLE, PONG, answer
from nastui.agent.table import Table, build_table
from nastui.model import HostSnapshot

Reader = Callable[[Path], HostSnapshot]
FileKey = tuple[int, int, int] | None  # (inode, size, mtime ns), None when missing
CHECK_INTERVAL = 1.0
DEFAULT_MAX_AGE = 600.0


class Agent:
    """One pass_persist session: the snapshot file, its table, and the protocol loop."""

    def __init__(
        self,
        path: Path,
        read: Reader,
        *,
        base: mib.Oid = mib.DEFAULT_BASE,
        max_age: float = DEFAULT_MAX_AGE,
        clock: Callable[[], float] = time.time,
        log: Callable[[str], None] | None = None,
    ) -> None:
        """Set up; nothing is read until the first request.

        Args:
            path: the daemon's latest.json.
            read: reads it (`nastui.collectors.latest.read_latest`); raises ValueError or
                OSError with a one-line message.
            base: the subtree served.
            max_age: seconds after which the snapshot counts as stale.
            clock: Unix time.
            log: where trouble is reported, one line at a time (never stderr under snmpd).
        """
        self.path = path
        self._read = read
        self.base = base
        self.max_age = max_age
        self._clock = clock
        self._log_line = log
        self._snapshot: HostSnapshot | None = None
        self._problem: str | None = None
        self._seen: FileKey | object = object()  # never equal to a real key: read first time
        self._checked: float | None = None
        self._table = Table((), ())

    @property
    def table(self) -> Table:
        """The table as last built."""
        return self._table

    def _file_key(self) -> FileKey:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_ino, st.st_size, st.st_mtime_ns

    def refresh(self) -> None:
        """Re-read the file if it changed and rebuild the table, at most once a second."""
        now = self._clock()
        if self._checked is not None and 0 <= now - self._checked < CHECK_INTERVAL:
            return
        self._checked = now
        key = self._file_key()
        if key != self._seen:
            try:
                self._snapshot = self._read(self.path)
            except (ValueError, OSError) as exc:
                self._report(str(exc))
            else:
                self._seen = key
                self._report(None)
        self._table = build_table(
            self._snapshot, self.base, now=now, max_age=self.max_age, problem=self._problem
        )

    def _report(self, problem: str | None) -> None:
        if problem != self._problem and problem is not None:
            self._log(problem)
        self._problem = problem

    def _log(self, message: str) -> None:
        if self._log_line is not None:
            self._log_line(message)

    def handle(self, command: str, oid: str) -> list[str]:
        """The answer to one get/getnext/set (refreshing first); never raises."""
        if command.strip().lower() == "set":
            return [NOT_WRITABLE]
        try:
            self.refresh()
            return answer(self._table, command, oid)
        except Exception as exc:  # a bug must not take snmpd's subtree down with it
            self._log(f"internal error answering {command.strip()} {oid.strip()}: {exc!r}")
            return [NONE]

    def serve(self, inp: TextIO, out: TextIO) -> int:
        """Answer snmpd until `inp` closes; returns the exit code (0)."""
        while line := inp.readline():
            command = line.strip().lower()
            if command == "ping":
                _send(out, [PONG])
            elif command in ("get", "getnext", "set"):
                oid = inp.readline()
                if command == "set":
                    inp.readline()  # "TYPE VALUE"
                if not oid:
                    break
                _send(out, self.handle(command, oid))
            elif command:
                self._log(f"ignoring unexpected input line {line.strip()[:80]!r}")
        return 0


def _send(out: TextIO, lines: list[str]) -> None:
    out.write("".join(f"{line}\n" for line in lines))
    out.flush()


def syslog_logger(echo: TextIO | None = None) -> Callable[[str], None]:
    """A `log` for `Agent`: syslog (daemon facility, "nastui-snmp-agent"), and `echo` too when
    given (a terminal, when run by hand)."""
    import syslog

    syslog.openlog("nastui-snmp-agent", syslog.LOG_PID, syslog.LOG_DAEMON)

    def log(message: str) -> None:
        syslog.syslog(syslog.LOG_WARNING, message)
        if echo is not None:
            print(f"nastui snmp-agent: {message}", file=echo, flush=True)

    return log
