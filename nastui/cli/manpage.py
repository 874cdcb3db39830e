"""The nastui(1) man page in roff (man macros), generated from the argparse tree.

    nastui manpage > /usr/local/share/man/man1/nastui.1 && mandb -q

Sections: NAME, SYNOPSIS, DESCRIPTION, GLOBAL OPTIONS, COMMANDS (every command and action with
its arguments and options), EXIT STATUS (from `nastui.exits`), ENVIRONMENT, FILES, SEE ALSO.
"""

from __future__ import annotations

from nastui import __version__
from nastui.cli.clitree import Node, Option

EXIT_STATUS = (
    ("0, 1, 2, 3", "status: OK, WARNING, CRITICAL, UNKNOWN (monitoring-plugin codes)"),
    ("64", "bad command line or scenario name"),
    ("65", "input that is not what it should be"),
    ("69", "a needed tool or service is missing, or refused"),
    ("70", "a bug in nastui"),
    ("73", "a file that cannot be created or written"),
    ("77", "permission denied, or refused by the device-in-use guard"),
    ("78", "configuration error"),
    ("130", "interrupted"),
)
ENVIRONMENT = (  # every variable nastui reads (tests/unit/test_environment_documented.py)
    ("NASTUI_CONFIG", "the configuration file"),
    ("NASTUI_ROOT", "as --root"),
    (
        "NASTUI_ROOT_TOOLS",
        "path: the programs on PATH are made for the --root tree (fakes, a host root mounted "
        "elsewhere) and run against it; unset, under a tree that is not a capture bundle "
        "they are not run",
    ),
    ("NASTUI_STATE_DIR", "the daemon's state (history, latest.json, acknowledgements)"),
    ("NASTUI_BENCH_DIR", "saved benchmark runs"),
    ("NASTUI_DEBUG", "set: an internal error shows its traceback (as --debug)"),
    (
        "XDG_STATE_HOME",
        "the state directory of a user other than root: $XDG_STATE_HOME/nastui (default "
        "~/.local/state/nastui); the demo's: $XDG_STATE_HOME/nastui/demo/SCENARIO",
    ),
    ("XDG_CONFIG_HOME", "the user's configuration: $XDG_CONFIG_HOME/nastui/config.toml"),
    ("HOME", "the default of XDG_STATE_HOME and XDG_CONFIG_HOME"),
    ("NO_COLOR", "no colours"),
    ("TERM", "dumb: no colours; linux, vt100, dumb and the like: ASCII glyphs (as --ascii)"),
    ("LC_ALL, LC_CTYPE, LANG", "a locale that is not UTF-8: ASCII glyphs (as --ascii)"),
    ("COLUMNS", "the width of --help"),
    ("PATH, TZ, TMPDIR", "passed to the programs nastui runs (PATH: a default when unset)"),
    ("MIBS", "net-snmp's MIBs: empty unless set (nastui uses numeric OIDs)"),
    (
        "TEXTUAL_ANIMATIONS, TEXTUAL_FPS",
        "Textual's: the interface sets none and 20 unless set",
    ),
    ("JOURNAL_STREAM", "set by systemd: log lines carry journald priorities"),
    ("NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID", "set by systemd: fand's sd_notify watchdog"),
    ("_NASTUI_COMPLETE", "set by the shell completion scripts (nastui completion)"),
    (
        "password_env, url_env, *_password_env",
        "the variables the configuration names hold the secrets (SMTP, apprise, SNMPv3)",
    ),
)
FILES = (
    ("/etc/nastui/config.toml", "the configuration (then ~/.config/nastui/config.toml)"),
    ("/var/lib/nastui", "the daemon's state directory when run as root"),
)


def escape(text: str) -> str:
    """Text safe in roff: backslashes and hyphens escaped, no line starting with . or '."""
    out = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + out if out[:1] in (".", "'") else out


def _option(option: Option) -> list[str]:
    flags = ", ".join(f"\\fB{escape(f)}\\fR" for f in option.flags)
    if option.choices:
        flags += " \\fI" + escape("|".join(option.choices)) + "\\fR"
    elif option.metavar:
        flags += f" \\fI{escape(option.metavar)}\\fR"
    return [".TP", flags, escape(option.help) or "."]


def _usage(node: Node, shared: set[str]) -> str:
    parts = [f"\\fB{escape(node.name)}\\fR"]
    own = [o for o in node.options if o.flags[0] not in shared]
    if own:
        parts.append("[\\fIoptions\\fR]")
    for pos in node.positionals:
        name = escape("|".join(pos.choices) if pos.choices else pos.name.upper())
        parts.append(f"[\\fI{name}\\fR]" if pos.optional else f"\\fI{name}\\fR")
    return " ".join(parts)


def _command(node: Node, shared: set[str]) -> list[str]:
    """A command's section: usage, help, positionals, its own options (not the global ones)."""
    title = escape(node.name.removeprefix("nastui "))
    lines = [".SS " + title, _usage(node, shared), ".PP", escape(node.help)]
    for pos in node.positionals:
        if pos.help and not pos.choices:
            lines += [".TP", f"\\fI{escape(pos.name.upper())}\\fR", escape(pos.help)]
    for option in node.options:
        if option.flags[0] not in shared:
            lines += _option(option)
    return lines


def manpage(root: Node, date: str = "") -> str:
    """The whole page."""
    shared = {o.flags[0] for o in root.options} | {"-h"}
    lines = [
        f'.TH NASTUI 1 "{date}" "nastui {__version__}" "User Commands"',
        ".SH NAME",
        "nastui \\- terminal monitor and control panel for NAS servers",
        ".SH SYNOPSIS",
        "\\fBnastui\\fR [\\fIglobal options\\fR] [\\fICOMMAND\\fR [\\fIACTION\\fR] [\\fIargs\\fR]]",
        ".SH DESCRIPTION",
        escape(root.help),
        "Global options work before or after the command name.",
        ".SH GLOBAL OPTIONS",
    ]
    for option in root.options:
        lines += _option(option)
    lines.append(".SH COMMANDS")
    for node in root.walk()[1:]:
        lines += _command(node, shared)
    lines.append(".SH EXIT STATUS")
    for code, meaning in EXIT_STATUS:
        lines += [".TP", f"\\fB{code}\\fR", escape(meaning)]
    lines.append(".SH ENVIRONMENT")
    for name, meaning in ENVIRONMENT:
        lines += [".TP", f"\\fB{name}\\fR", escape(meaning)]
    lines.append(".SH FILES")
    for name, meaning in FILES:
        lines += [".TP", f"\\fI{escape(name)}\\fR", escape(meaning)]
    lines += [
        ".SH SEE ALSO",
        "\\fBsmartctl\\fR(8), \\fBzpool\\fR(8), \\fBupsc\\fR(8), \\fBsnmpd\\fR(8)",
    ]
    return "\n".join(lines) + "\n"
