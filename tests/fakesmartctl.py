"""A stand-in `smartctl` that replays real captured output, for tests that run the real runner
and the real pySMART against it (installed on PATH by `tests.smartbox`).

It answers a command line with the fixture file named after it, the way pySMART's own test
fixtures are named: the arguments without `-n standby`, device paths reduced to /dev/NAME,
joined by "_" with "/" as "_" ("-d sat --all /dev/sda" -> "_-d_sat_--all__dev_sda"). A missing
fixture exits 1 naming the file it wanted. Environment:

    FAKE_SMARTCTL_DIR      the fixture directory (required)
    FAKE_SMARTCTL_LOG      append every argv here, one JSON list per line
    FAKE_SMARTCTL_DELAY    seconds to take per call
    FAKE_SMARTCTL_STANDBY  comma-separated device names asleep: with `-n standby` smartctl's
                           real standby answer (exit 2); without it the disk wakes, which is
                           appended to FAKE_SMARTCTL_WAKES, and the fixture is served
    FAKE_SMARTCTL_HANG     device names whose smartctl never returns

Exit status: NAME.exit beside the fixture if present, else a JSON fixture's own
`smartctl.exit_status`, else 0.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

STANDBY_TEXT = (
    "smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0] (local build)\n"
    "Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org\n\n"
    "Device is in STANDBY mode, exit(2)\n"
)


def fixture_name(args: list[str]) -> str:
    """The fixture file name for smartctl arguments (see the module docstring)."""
    kept: list[str] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "-n" and i + 1 < len(args) and args[i + 1].startswith("standby"):
            skip = True
            continue
        kept.append("/dev/" + Path(arg).name if "/dev/" in arg or arg.startswith("/") else arg)
    return "_" + "_".join(kept).replace("/", "_")


def device_of(args: list[str]) -> str:
    """The device name in the arguments (the last path-like one)."""
    paths = [a for a in args if a.startswith("/")]
    return Path(paths[-1]).name if paths else ""


def _standby(args: list[str]) -> int:
    if "-j" in args:
        report = {
            "json_format_version": [1, 0],
            "smartctl": {
                "version": [7, 3],
                "argv": ["smartctl", *args],
                "messages": [
                    {"string": "Device is in STANDBY mode, exit(2)", "severity": "information"}
                ],
                "exit_status": 2,
            },
        }
        print(json.dumps(report, indent=2))
    else:
        sys.stdout.write(STANDBY_TEXT)
    return 2


def _status(path: Path, text: str) -> int:
    status_file = path.with_name(path.name + ".exit")
    if status_file.exists():
        return int(status_file.read_text().strip())
    if text.lstrip().startswith("{"):
        try:
            return int(json.loads(text).get("smartctl", {}).get("exit_status", 0))
        except (ValueError, AttributeError):
            return 0
    return 0


def main(args: list[str]) -> int:
    """Answer one smartctl command line (settings from the file the shim names, else from the
    environment)."""
    env: Mapping[str, str] = os.environ
    if env.get("FAKE_SMARTCTL_SETTINGS"):
        env = json.loads(Path(env["FAKE_SMARTCTL_SETTINGS"]).read_text())
    if env.get("FAKE_SMARTCTL_LOG"):
        with Path(env["FAKE_SMARTCTL_LOG"]).open("a") as log:
            log.write(json.dumps(args) + "\n")
    if env.get("FAKE_SMARTCTL_DELAY"):
        time.sleep(float(env["FAKE_SMARTCTL_DELAY"]))
    dev = device_of(args)
    if dev and dev in env.get("FAKE_SMARTCTL_HANG", "").split(","):
        time.sleep(3600)
    if dev and dev in env.get("FAKE_SMARTCTL_STANDBY", "").split(","):
        if "-n" in args:
            return _standby(args)
        if env.get("FAKE_SMARTCTL_WAKES"):
            with Path(env["FAKE_SMARTCTL_WAKES"]).open("a") as wakes:
                wakes.write(dev + "\n")
    path = Path(env["FAKE_SMARTCTL_DIR"]) / fixture_name(args)
    if not path.exists():
        sys.stderr.write(f"fakesmartctl: no fixture {path.name} in {path.parent}\n")
        return 1
    text = path.read_text(encoding="utf-8", errors="replace")
    sys.stdout.write(text)
    return _status(path, text)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
