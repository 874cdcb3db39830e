"""Every numeric option of `nastui bench run` has bounds: out of them, one line naming the
option and its bounds, exit 64, before anything runs. `--runtime -5`, `--ramp -1` and
`--iodepth 99999999` ran until killed; `--runtime -1000` was an internal error (exit 70)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.bench.bounds import BOUNDS, check_bounds
from nastui.bench.profiles import PROFILES
from tests.cli.test_bench_cli import bench


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--runtime", "-5", "--runtime"),
        ("--runtime", "-1000", "--runtime"),
        ("--runtime", "0", "--runtime"),
        ("--runtime", "nan", "--runtime"),
        ("--runtime", "inf", "--runtime"),
        ("--runtime", "1e30", "--runtime"),
        ("--ramp", "-1", "--ramp"),
        ("--ramp", "nan", "--ramp"),
        ("--ramp", "1e9", "--ramp"),
        ("--iodepth", "99999999", "--iodepth"),
        ("--iodepth", "1,0", "--iodepth"),
        ("--iodepth", "-3", "--iodepth"),
        ("--numjobs", "99999", "--numjobs"),
        ("--numjobs", "0", "--numjobs"),
        ("--size", "0", "--size"),
        ("--size", "1", "--size"),
        ("--size", "99999999P", "--size"),
        ("--bs", "1", "--bs"),
        ("--bs", "4G", "--bs"),
        ("--file-size", "1k", "--file-size"),
        ("--records", "4k,8G", "--records"),
    ],
)
def test_out_of_bounds_is_one_line_and_exit_64(
    nastui_cmd: list[str], tmp_path: Path, option: str, value: str, named: str
) -> None:
    args = ("run", "cdm", str(tmp_path), f"{option}={value}", "--no-save")
    done = bench(nastui_cmd, tmp_path / "runs", *args, check=None)
    assert done.returncode == 64, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], done.stderr
    assert "between" in lines[0] or "at least" in lines[0] or "not a" in lines[0], lines[0]
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.glob("nastui-bench-*"))  # nothing ran


def test_bounds_name_every_numeric_setting() -> None:
    assert {"runtime_s", "ramp_s", "iodepths", "numjobs", "size_bytes", "bs_bytes"} <= set(BOUNDS)
    assert {"file_bytes", "record_sizes"} <= set(BOUNDS)


def test_settings_from_anywhere_are_checked_too() -> None:
    import dataclasses

    base = PROFILES["sweep"].defaults
    check_bounds(base)
    for field, value in (("runtime_s", -5.0), ("ramp_s", -1.0), ("iodepths", (1, 99999999))):
        with pytest.raises(ValueError, match="between"):
            check_bounds(dataclasses.replace(base, **{field: value}))  # type: ignore[arg-type]
