"""Which tests run this machine's programs without saying so.

`python -m tests.tools.hostaudit [PYTEST ARGS]` runs pytest (default: the unit, CLI and UI
tests) under strace, which sees every program started (execve), and puts each to the test
running then. Tests marked `host` or `integration` say that they use this machine and are left
out; so are the interpreter, a shell and the basics (`QUIET`), and programs under the temporary
directory (the tests' fakes). Prints each other program with the tests that ran it; exit 1 when
there is one. Needs strace (Debian package strace); serial, and a few times slower than the
tests alone (about 12 minutes for the default selection on a loaded 2-core machine).
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

MARK = "/__hostaudit__/"
SAYS_SO = ("host", "integration")
EXEC = re.compile(r'^\d+\s+execve\("([^"]+)", .* = 0$')
# a shell, and the basics tests make processes with (they read nothing of the machine's
# storage); ldconfig is ctypes finding a library
QUIET = frozenset(
    ("sh", "bash", "dash", "env", "sleep", "true", "false", "cat", "head", "echo", "sort", "ls",
     "readlink", "basename", "prlimit", "make", "ldconfig")
)  # fmt: skip
SYSCALLS = "execve,access,faccessat,faccessat2"
PLUGIN = "tests.tools.hostaudit"
DEFAULT_TESTS = ("tests/unit", "tests/cli", "tests/ui")


@pytest.fixture(autouse=True)
def _hostaudit_mark(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tells strace which test runs (a failed access() of a path naming it)."""
    says = any(request.node.get_closest_marker(name) for name in SAYS_SO)
    os.access(MARK + ("-" if says else request.node.nodeid.replace(" ", "_")), os.F_OK)
    yield
    os.access(MARK + "-", os.F_OK)


def programs_by_test(trace: Path) -> dict[str, set[str]]:
    """{program: tests} from strace's output."""
    current: str | None = None
    found: dict[str, set[str]] = collections.defaultdict(set)
    temp = tempfile.gettempdir()
    for line in trace.read_text(errors="replace").splitlines():
        if MARK in line:
            name = line.split(MARK, 1)[1].split('"', 1)[0]
            current = None if name == "-" else name
        elif current and (m := EXEC.match(line)):
            path = m.group(1)
            if path.startswith(temp) or "python" in Path(path).name or Path(path).name in QUIET:
                continue
            found[path].add(current)
    return found


def main(argv: Sequence[str]) -> int:
    args = list(argv) or [
        "-m",
        "not integration and not host",
        "tests/unit",
        "tests/cli",
        "tests/ui",
    ]
    with tempfile.TemporaryDirectory() as scratch:
        trace = Path(scratch) / "trace"
        subprocess.run(
            ["strace", "-f", "-qq", "--seccomp-bpf", "-e", f"trace={SYSCALLS}", "-e", "signal=none",
             "-s", "300", "-o", str(trace), sys.executable, "-m", "pytest", "-q",
             "-p", "no:cacheprovider", "-p", PLUGIN, *args],
            check=False,
        )  # fmt: skip
        found = programs_by_test(trace)
    for program, tests in sorted(found.items(), key=lambda item: -len(item[1])):
        print(f"{program}: {len(tests)} test(s)")
        for test in sorted(tests):
            print(f"    {test}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
