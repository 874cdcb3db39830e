"""Fake storage tools on PATH and fake /proc, /sys and /etc trees, replaying real captures.

`FakeTools` writes small executables (`zpool`, `zfs`, `btrfs`) into a directory put first on
PATH: each looks its argument list up in a table of (stdout, stderr, exit status) and logs the
call, so collectors and scrub actions run through the real runner against recorded output.
"""

from __future__ import annotations

import json
import re
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"

_SCRIPT = """#!{python}
import json, sys, time
from pathlib import Path
here = Path(__file__).resolve().parent
table = json.loads((here / "{name}.json").read_text())
args = " ".join(sys.argv[1:])
with open(here / "calls.log", "a") as log:
    log.write("{name} " + args + "\\n")
answer = table.get(args)
if answer is None:
    sys.stderr.write("{name}: no fake answer for: " + args + "\\n")
    sys.exit(99)
out, err, code, delay = (*answer, 0.0)[:4]
time.sleep(delay)
sys.stdout.write(out)
sys.stderr.write(err)
sys.exit(code)
"""


@dataclass
class FakeTools:
    """Fake executables in `bin_dir`, answering from tables set with `answer`."""

    bin_dir: Path
    tables: dict[str, dict[str, tuple[str, str, int, float]]] = field(default_factory=dict)

    def answer(
        self,
        tool: str,
        args: str,
        out: str = "",
        err: str = "",
        code: int = 0,
        *,
        delay: float = 0,
    ) -> None:
        """Make `tool ARGS` print `out` and `err` and exit with `code`, after `delay` seconds
        (the call is logged at once)."""
        table = self.tables.setdefault(tool, {})
        table[args] = (out, err, code, delay)
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        (self.bin_dir / f"{tool}.json").write_text(json.dumps(table))
        script = self.bin_dir / tool
        if not script.exists():
            script.write_text(_SCRIPT.format(python=sys.executable, name=tool))
            script.chmod(script.stat().st_mode | stat.S_IEXEC)

    def answer_file(self, tool: str, args: str, path: Path, code: int = 0) -> None:
        """Make `tool ARGS` print the file at `path`."""
        self.answer(tool, args, path.read_text(), "", code)

    @property
    def calls(self) -> list[str]:
        """Every call made so far, "tool args", in order."""
        log = self.bin_dir / "calls.log"
        return log.read_text().splitlines() if log.exists() else []


def real_programs(directory: Path, names: Iterable[str] = ("sh", "cat")) -> Path:
    """`directory`, holding links to the few real programs fake tools' scripts need and
    nothing else: after the fakes on PATH, no zpool, btrfs, smartctl or modprobe of this
    machine can answer instead of a fake, or run where a test did not say it would."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        found = next(Path(d) / name for d in ("/usr/bin", "/bin") if (Path(d) / name).exists())
        if not (directory / name).is_symlink():
            (directory / name).symlink_to(found)
    return directory


def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTools:
    """Fake tools first on PATH and nothing else with those names: a PATH of only the fakes'
    directory and `real_programs` (sh, cat)."""
    tools = FakeTools(tmp_path / "bin")
    tools.bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{tools.bin_dir}:{real_programs(tmp_path / 'sysbin')}")
    monkeypatch.setenv("NASTUI_ROOT_TOOLS", "path")  # the fakes answer for a fake --root tree
    return tools


def transcript(text: str) -> str:
    """The output of the first `zpool` command in a documentation transcript ("# zpool status"
    lines mark commands; text without them is output already)."""
    lines = text.splitlines()
    if not any(re.match(r"^[#$] ", line) for line in lines):
        return text
    out: list[str] = []
    taking = False
    for line in lines:
        if re.match(r"^[#$] ", line):
            if taking and out:
                break
            taking = bool(re.match(r"^[#$] zpool (status|import)\b", line))
            continue
        if taking:
            out.append(line)
    return "\n".join(out).strip("\n") + "\n"


def write(path: Path, text: str) -> None:
    """Write `text` to `path`, creating directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def md_tree(root: Path, mdstat: str, sysfs: dict[str, dict[str, str]] | None = None) -> Path:
    """/proc/mdstat and /sys/block/mdX/md files (relative names, "dev-sda1/state" too)."""
    write(root / "proc/mdstat", mdstat)
    for array, files in (sysfs or {}).items():
        for name, value in files.items():
            write(root / "sys/block" / array / "md" / name, value + "\n")
    return root


def link(path: Path, target: str) -> None:
    """A symlink at `path` (relative `target`, as udev makes them)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
