"""The demo writes nothing outside its own scratch state: every command, as the user running it
(root in CI), traced by strace; every path opened for writing, made, renamed or removed must lie
in the demo's state directory or be a file named on the command line.

Root's defaults are /var/lib/nastui and /etc/nastui/config.toml: a demo command that wrote
there would feed `snmp-agent` and `export --from-state` simulated drives as real ones.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, require_tool

pytestmark = pytest.mark.integration

# Each: the arguments after `nastui --demo`; OUT stands for a file the command is told to write.
COMMANDS = [
    ["status"],
    ["bays", "--json"],
    ["drives"],
    ["pools", "--json"],
    ["fans"],
    ["fans", "--json"],
    ["config", "init"],
    ["config", "check"],
    ["alert", "list", "--json"],
    ["alert", "log"],
    ["smart", "ack", "10", "--scenario", "failing-drive"],  # a drive with findings to ack
    ["selftest", "start", "0"],
    ["selftest", "status"],
    ["selftest", "schedule"],
    ["locate", "0"],
    ["locate", "0", "--off"],
    ["scrub", "start", "storage"],
    ["scrub", "stop", "storage"],
    ["swap", "plan", "3"],
    ["swap", "start", "3"],
    ["swap", "abort"],
    ["swap", "log"],
    ["alert", "test"],
    ["fand", "--once", "--dry-run"],
    ["fand", "--once"],
    ["bench", "list"],
    ["bench", "run", "randrw", "/tmp", "--runtime", "2", "--size", "16M"],
    ["daemon", "--once", "--no-notify"],
    ["daemon", "--cycles", "2", "--period", "0.1", "--no-notify"],
    ["export", "--prometheus", "OUT"],
    ["export", "--prometheus", "-"],
    ["capture", "-o", "OUT"],
]
WRITE_CALLS = "open,openat,creat,truncate,mkdir,mkdirat,rmdir,unlink,unlinkat," + (
    "rename,renameat,renameat2,link,linkat,symlink,symlinkat"
)
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")
# Devices and kernel files any process may write: the terminal, /dev/null, its own /proc.
HARMLESS = ("/dev/", "/proc/self/", "/proc/thread-self/")


def written(trace: str) -> set[str]:
    """The paths a strace log shows being written, made, renamed or removed."""
    paths = set()
    for line in trace.splitlines():
        call = re.match(r"^(?:\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+)", line)
        if call is None or int(call.group(3)) < 0:
            continue
        name, args = call.group(1), call.group(2)
        if name in ("openat", "open") and not any(flag in args for flag in WRITE_FLAGS):
            continue
        paths.update(re.findall(r'"([^"]*)"', args))
    return {p for p in paths if p.startswith("/") and not p.startswith(HARMLESS)}


def sandboxed(argv: list[str], tmp: Path) -> list[str]:
    """As root, `argv` in a mount namespace with /etc and /var/lib as overlays whose writes land
    in `tmp`: root's real defaults (/etc/nastui, /var/lib/nastui) are where a stray write would
    go, and a failing run must not leave one on the machine. Other users cannot write there."""
    if os.geteuid() != 0:
        return argv
    unshare = require_tool("unshare", "util-linux")
    mounts = []
    for n, lower in enumerate(("/etc", "/var/lib")):
        upper, work = tmp / f"upper{n}", tmp / f"work{n}"
        upper.mkdir()
        work.mkdir()
        options = f"lowerdir={lower},upperdir={upper},workdir={work}"
        mounts.append(f"mount -t overlay overlay -o {options} {lower}")
    script = " && ".join([*mounts, 'exec "$@"'])
    return [unshare, "--mount", "--propagation", "private", "sh", "-c", script, "sh", *argv]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: "-".join(a[:3]).replace("/", ""))
def test_a_demo_command_writes_only_its_scratch_state(argv: list[str], tmp_path: Path) -> None:
    strace = require_tool("strace", "strace")
    home, scratch, out = tmp_path / "home", tmp_path / "state", tmp_path / "out.prom"
    home.mkdir()
    argv = [str(out) if a == "OUT" else a for a in argv]
    log = tmp_path / "trace"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(home),
        "XDG_STATE_HOME": str(scratch),
        "LANG": "C.UTF-8",
    }
    traced = [strace, "-f", "-qq", "-e", f"trace={WRITE_CALLS}", "-o", str(log)]
    traced += [sys.executable, "-m", "nastui", "--demo", *argv]
    done = subprocess.run(
        sandboxed(traced, tmp_path),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    # A command refused as a bad command line ran nothing, so its footprint proves nothing (the
    # bench run here named no profile, "randread", and passed while the real one wrote under
    # /var/lib/nastui/bench).
    if argv[0] != "capture":  # refused on the demo by design: it reads a real machine
        assert done.returncode != 64, f"{argv}: a usage error, nothing ran\n{done.stderr}"
    demo_dir = f"{scratch}/nastui/demo/"
    # The demo's directory and what it holds (its parents made on the way), the file named and
    # the temporary file beside it that is renamed over it.
    allowed = (demo_dir, str(out), f"{tmp_path}/.{out.name}.")
    stray = sorted(
        p
        for p in written(log.read_text())
        if not p.startswith(allowed) and not demo_dir.startswith(f"{p}/")
    )
    assert not stray, f"{argv}: wrote outside the demo's state: {stray}\n{done.stdout}{done.stderr}"
