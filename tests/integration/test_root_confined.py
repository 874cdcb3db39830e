"""`nastui --root TREE daemon` never runs anything against this machine's own devices.

The tree is a fake box with sda and sdb (`tests.daemonrig`); this machine's tools are replaced on
PATH by stand-ins that log their command lines: smartctl (`tests.fakesmartctl`), the RAID
controllers' tools, ledctl, sg_ses and hdparm. Before: the daemon started SMART self-tests on
this machine's /dev/sda and /dev/sdb.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from nastui.collectors.confine import foreign_device
from tests.daemonrig import DaemonRig
from tests.smartbox import SmartBox

pytestmark = pytest.mark.integration
TOOLS = ("storcli", "storcli64", "perccli", "sas2ircu", "sas3ircu", "ledctl", "sg_ses", "hdparm")
LOGGER = """#!{python}
import json, os, sys
with open({log!r}, "a") as out:
    out.write(json.dumps([os.path.basename(sys.argv[0]), *sys.argv[1:]]) + "\\n")
sys.exit(1)
"""


def command_lines(box: SmartBox, log: Path) -> list[list[str]]:
    lines = []
    for path in (box.log, log):
        if path.exists():
            lines += [json.loads(line) for line in path.read_text().splitlines()]
    return lines


def names_a_real_device(argv: list[str]) -> bool:
    """An argument (or a `NAME=` value) under this machine's /dev (the tree is elsewhere)."""
    return any(p.startswith("/dev") for a in argv for p in (a, a.partition("=")[2]))


def test_the_daemon_under_root_names_no_device_of_this_machine(tmp_path: Path) -> None:
    rig = DaemonRig(tmp_path / "rig")
    box = SmartBox(tmp_path / "smart")
    log = tmp_path / "tools.log"
    for tool in TOOLS:
        script = box.bin / tool
        script.write_text(LOGGER.format(python=sys.executable, log=str(log)))
        script.chmod(0o755)
    rig.extra_env = box.env()
    done = rig.run("--cycles", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = command_lines(box, log)
    assert any(argv[0] == "smartctl" or "-d" in argv for argv in lines)  # SMART was read...
    foreign = [argv for argv in lines if names_a_real_device(argv)]
    assert foreign == []  # ...only from the tree, never from /dev/sda
    said = [x for x in done.stdout.splitlines() if "selftest: not started under --root" in x]
    assert len(said) == 1, done.stdout


def test_a_device_named_through_the_tree_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "dev").mkdir(parents=True)
    (root / "dev/sda").write_text("")
    (root / "dev/sdz").symlink_to("/dev/null")  # a link out of the tree to a device node
    assert foreign_device(["smartctl", "-a", str(root / "dev/sda")], root) is None
    assert foreign_device(["smartctl", "-t", "short", "/dev/sda"], root) == "/dev/sda"
    assert foreign_device(["smartctl", "-a", str(root / "dev/sdz")], root) == str(root / "dev/sdz")
    assert foreign_device(["ledctl", "locate=/dev/sdb"], root) == "/dev/sdb"
    assert foreign_device(["hook", "/usr/local/bin/page"], root) is None
