"""`nastui smart explain` end to end on mutated real reports: the whole command (read, parse,
verdict, text and `--json` output) exits with a verdict (0-3) or 65 with one line, never an
internal error (70); and inputs that never end (`/dev/zero`, a stream of zeros on standard
input) are refused after a bound instead of filling the memory.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui import exits
from nastui.entry import main
from tests.unit.test_smart_fuzz import mangled_json, mangled_text

VERDICTS = (exits.OK, exits.WARNING, exits.CRITICAL, exits.UNKNOWN)
# JSON numbers no smartctl prints: huge, fractional, infinite, and nesting past Python's stack
ODD_JSON = st.sampled_from(
    [
        '{"temperature": {"current": 1e400}, "power_on_time": {"hours": -1e400}}',
        '{"smartctl": {"exit_status": 1' + "0" * 5000 + "}}",
        '{"user_capacity": {"bytes": 1.5}, "rotation_rate": 1e308}',
        '{"ata_smart_attributes": {"table": [{"id": 5, "raw": {"value": 1e400}}]}}',
        '{"a": ' + "[" * 100_000,
        "[" * 100_000,
    ]
)


def explain(path: Path, *, as_json: bool) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    argv = ["smart", "explain", str(path), *(["--json"] if as_json else [])]
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(argv)
    finally:
        sys.stdout, sys.stderr = saved
    return code, out.getvalue(), err.getvalue()


def assert_answered(text: str) -> None:
    with tempfile.TemporaryDirectory() as base:
        report = Path(base) / "report.txt"
        report.write_text(text, encoding="utf-8", errors="replace")
        for as_json in (False, True):
            code, out, err = explain(report, as_json=as_json)
            assert code in (*VERDICTS, exits.EX_DATAERR), err
            assert "internal error" not in err and "Traceback" not in err, err
            if code == exits.EX_DATAERR:
                assert err.count("\n") == 1, err
            elif as_json:
                assert json.loads(out)["health"] in ("OK", "WARNING", "CRITICAL", "UNKNOWN")


SETTINGS = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@given(mangled_text())
@SETTINGS
def test_mangled_text_reports(text: str) -> None:
    assert_answered(text)


@given(mangled_json())
@SETTINGS
def test_mangled_json_reports(text: str) -> None:
    assert_answered(text)


@given(ODD_JSON)
@settings(max_examples=10, deadline=None)
def test_numbers_and_nesting_no_smartctl_prints(text: str) -> None:
    assert_answered(text)


def test_dev_zero_and_a_directory_are_refused(tmp_path: Path) -> None:
    for path, kind in ((Path("/dev/zero"), "a character device"), (tmp_path, "a directory")):
        code, _, err = explain(path, as_json=False)
        assert code == exits.EX_DATAERR
        assert (
            err == f"nastui: {path} is {kind}, not a regular file: give a saved smartctl report\n"
        )


@pytest.mark.parametrize("how", ["stdin", "pipe"])
def test_an_endless_stream_is_cut_at_the_bound(tmp_path: Path, how: str) -> None:
    """A child with a 1 GiB address-space limit reads 64 MiB of zeros: refused, not kept."""
    command = [sys.executable, "-m", "nastui", "smart", "explain"]
    zeros = subprocess.Popen(["head", "-c", str(64 << 20), "/dev/zero"], stdout=subprocess.PIPE)
    assert zeros.stdout is not None
    if how == "stdin":
        command.append("-")
        stdin = zeros.stdout
    else:
        command.append(f"/dev/fd/{zeros.stdout.fileno()}")
        stdin = None
    done = subprocess.run(
        ["prlimit", f"--as={1 << 30}", *command],
        stdin=stdin,
        pass_fds=() if stdin else (zeros.stdout.fileno(),),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(Path.cwd()))},
    )
    zeros.kill()
    zeros.wait()
    assert done.returncode == exits.EX_DATAERR, done.stderr
    assert "is larger than 16 MiB: not read" in done.stderr
