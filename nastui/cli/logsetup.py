"""`--verbose` and `--debug`: nastui's log lines on stderr through the logging module.

Without either flag nothing is configured (a command's output stays what it was). With them a
handler on the root logger writes one line per record to stderr: on a terminal
"debug nastui.collectors.runner: smartctl -x /dev/sda: exit 0 in 0.12 s"; under systemd
(JOURNAL_STREAM set, as the daemons' units run them) the line starts with the record's syslog
priority instead ("<7>nastui.collectors.runner: ..."), which journald turns into the entry's
priority, as the daemons' own lines already do. The interface never logs to the terminal it
draws on. Every record passes `nastui.core.redact.RedactingFilter` first: the secrets nastui
read (an apprise URL, the SMTP password, SNMP and BMC passwords) and credentials in any URL are
"…" in the line, whoever logged it (apprise logs the URLs it posts to).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TextIO

# syslog priorities by logging level (sd-daemon(3)'s "<N>" prefixes)
_PRIORITY = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}
QUIET_LIBRARIES = ("asyncio", "markdown_it", "urllib3")


class LineFormatter(logging.Formatter):
    """One line per record: "<N>name: message" for journald, else "level name: message"."""

    def __init__(self, *, journal: bool) -> None:
        super().__init__()
        self.journal = journal

    def format(self, record: logging.LogRecord) -> str:
        text = " ".join(record.getMessage().split())
        if record.exc_info and record.levelno >= logging.ERROR:
            exc = record.exc_info[1]
            text += f" ({type(exc).__name__}: {exc})" if exc is not None else ""
        if self.journal:
            return f"<{_PRIORITY.get(record.levelno, 6)}>{record.name}: {text}"
        return f"{record.levelname.lower()} {record.name}: {text}"


def level_for(verbose: bool, debug: bool) -> int | None:
    """The root level the flags ask for; None: leave logging alone."""
    if debug:
        return logging.DEBUG
    if verbose:
        return logging.INFO
    return None


def configure(level: int | None, stream: TextIO, env: Mapping[str, str]) -> logging.Handler | None:
    """Install the stderr handler at `level` (nothing for None); returns it."""
    if level is None:
        return None
    from nastui.core.redact import RedactingFilter  # its patterns, only when something logs

    handler = logging.StreamHandler(stream)
    handler.setFormatter(LineFormatter(journal=bool(env.get("JOURNAL_STREAM"))))
    handler.addFilter(RedactingFilter())  # apprise logs its URLs, tokens and all
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_LIBRARIES:  # their debug lines say nothing about the NAS
        logging.getLogger(name).setLevel(max(level, logging.INFO))
    return handler
