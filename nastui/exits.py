"""Exit codes of every nastui command.

`nastui status` uses the monitoring-plugin codes (Nagios, Icinga, Checkmk): 0 OK, 1 WARNING,
2 CRITICAL, 3 UNKNOWN. Errors that are not findings use the BSD sysexits codes, so a monitoring
system never mistakes a typo for a CRITICAL disk.
"""

from __future__ import annotations

OK = 0
WARNING = 1
CRITICAL = 2
UNKNOWN = 3
EX_USAGE = 64  # bad command line
EX_DATAERR = 65  # bad input data (a file that is not what it should be)
EX_UNAVAILABLE = 69  # a needed tool or service is not there
EX_SOFTWARE = 70  # a bug in nastui: please report it
EX_CANTCREAT = 73  # cannot create or write an output file
EX_NOPERM = 77  # permission denied
EX_CONFIG = 78  # configuration error
INTERRUPTED = 130  # Ctrl-C


class CommandExit(Exception):
    """A command ends here with `code`, after `message` (one line naming the thing and the fix;
    empty when it was already said) on stderr.

    Raised where the trouble is found (the configuration cannot be read, a scenario does not
    exist); caught once where the command runs (`nastui.cli.main.run_headless`, the interface's
    start in `nastui.entry`), never passed back as a `Result | int`.
    """

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message or f"exit {code}")
        self.code = code
        self.message = message
