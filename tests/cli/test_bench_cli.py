"""`nastui bench` as commands (in process, tests/cli/conftest.py; Ctrl-C in a real one): list,
run (the demo's modelled drive, and real fio on a temp directory), show, compare, SVG and CSV
export, exit codes; and that it never loads Textual."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nastui import exits
from nastui.bench.profiles import PROFILES
from tests.conftest import REPO, require_tool


def bench(
    cmd: list[str], runs: Path, *args: str, check: int | None = 0
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NASTUI_BENCH_DIR": str(runs), "NO_COLOR": "1"}
    done = subprocess.run(
        [*cmd, "bench", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    if check is not None:
        assert done.returncode == check, done.stderr + done.stdout
    return done


def test_list_names_every_profile(nastui_cmd: list[str], tmp_path: Path) -> None:
    out = bench(nastui_cmd, tmp_path, "list").stdout
    for name in ("cdm", "sweep", "randrw", "wsc", "fill", "dd", "custom"):
        assert f"  {name} " in out
    assert "no saved runs yet" in out
    data = json.loads(bench(nastui_cmd, tmp_path, "list", "--json").stdout)
    assert [p["name"] for p in data["profiles"]][:2] == ["cdm", "sweep"]


def test_demo_runs_show_and_compare(nastui_cmd: list[str], tmp_path: Path) -> None:
    first = bench(nastui_cmd, tmp_path, "run", "randrw", "--demo")
    assert "randrw 4K 50/50 QD1" in first.stdout and "complete" in first.stdout
    assert "IOPS" in first.stdout and "p99" in first.stdout
    bench(nastui_cmd, tmp_path, "run", "randrw", "--demo", "--ascii")
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert len([n for n in saved if n.endswith(".json")]) == 2
    assert len([n for n in saved if n.endswith(".csv")]) == 2
    shown = bench(nastui_cmd, tmp_path, "show", "last", "--ascii", "--metric", "p99").stdout
    assert "p99 lat: o p50  x p99 over time" in shown
    assert shown.isascii()
    data = json.loads(bench(nastui_cmd, tmp_path, "show", "last", "--json").stdout)
    assert data["run"]["tool"] == "fio (demo: modelled drive)"
    assert data["run"]["state"] == "complete"
    csv = bench(nastui_cmd, tmp_path, "show", "last-1", "--csv").stdout
    assert csv.splitlines()[0].startswith("kind,run_id,model,serial,firmware,profile")
    svg = tmp_path / "cmp.svg"
    compared = bench(nastui_cmd, tmp_path, "compare", "last", "last-1", "--svg", str(svg)).stdout
    assert "#1 " in compared and "#2 " in compared and "+0%" in compared
    assert len(ET.fromstring(svg.read_text()).findall("{http://www.w3.org/2000/svg}polyline")) == 2


def test_compare_keeps_run_numbers_and_takes_a_failed_run(
    nastui_cmd: list[str], tmp_path: Path
) -> None:
    from nastui.bench.replay import ReplayHost, demo_recordings, demo_target
    from nastui.bench.runner import BenchRunner
    from nastui.model import RunState

    for profile in ("dd", "wsc", "dd"):
        bench(nastui_cmd, tmp_path, "run", profile, "--demo", "--quiet")
    replay = BenchRunner(ReplayHost(demo_recordings()), host_name="t", runs_dir=tmp_path)
    failed = asyncio.run(replay.run(PROFILES["dd"].defaults, demo_target(str(tmp_path))))
    assert failed.state is RunState.FAILED  # a replay has no dd; saved all the same
    listed = bench(nastui_cmd, tmp_path, "list").stdout
    assert "  #3   " in listed and "  #4   " in listed and listed.count(" failed") == 1
    compared = bench(nastui_cmd, tmp_path, "compare", "#3", "#1", "--ascii").stdout
    assert compared.startswith("#3 ") and "\n#1 " in compared
    assert "#3 IOPS" in compared and "#1 IOPS" in compared and "#2 IOPS" not in compared
    with_failed = bench(nastui_cmd, tmp_path, "compare", "#1", "last", "--ascii").stdout
    assert "#4 " in with_failed and " failed\n" in with_failed.splitlines()[1] + "\n"
    source = next(line for line in with_failed.splitlines() if "dd source" in line)
    assert "failed" in source and "%" not in source.split("failed")[1]
    data = json.loads(bench(nastui_cmd, tmp_path, "compare", "#1", "last", "--json").stdout)
    assert data["numbers"] == [1, 4]


def test_run_json_is_only_json_on_stdout(nastui_cmd: list[str], tmp_path: Path) -> None:
    done = bench(nastui_cmd, tmp_path, "run", "sweep", "--demo", "--json", "--no-save",
                 "--ramp", "2", "--runtime", "3", "--iodepth", "1,32")  # fmt: skip
    run = json.loads(done.stdout)["run"]
    assert run["state"] == "complete" and "QD32 x1: " in done.stderr
    phases = [(s["step"], s["phase"]) for s in run["samples"]]
    assert phases[:3] == [(0, "ramp"), (0, "ramp"), (0, "run")]
    qd1, qd32 = (s["read_iops"] for s in run["steps"])
    assert 60 < qd1 < 100 and 150 < qd32 < 230  # a 7200 rpm disk: NCQ reorders, never overlaps


def test_a_process_the_guard_could_not_look_into_is_named_before_a_run_that_writes(
    nastui_cmd: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One line before the run (stderr beside --json, where the step lines go), the process
    under `run.target.unseen` in the JSON; nothing for a run that only reads."""
    from nastui.bench.replay import demo_target
    from nastui.cli import cmd_bench
    from nastui.model import UnseenProcess

    init = UnseenProcess(1, "init", "descriptors refused")
    target = dataclasses.replace(demo_target(), unseen=(init,))
    monkeypatch.setattr(cmd_bench, "_demo_target", lambda args: target)
    line = (
        "could not look into 1 process: pid 1 (init), its descriptors refused by /proc: "
        "a write it holds open would not be seen"
    )
    done = bench(nastui_cmd, tmp_path, "run", "randrw", "--demo", "--json", "--no-save")
    assert done.stderr.splitlines()[0] == line
    unseen = json.loads(done.stdout)["run"]["target"]["unseen"]
    assert unseen == [{"pid": 1, "comm": "init", "why": "descriptors refused"}]
    plain = bench(nastui_cmd, tmp_path, "run", "randrw", "--demo", "--quiet")
    assert plain.stdout.splitlines()[0] == line
    assert f"guard: {line}" in bench(nastui_cmd, tmp_path, "show", "last").stdout
    reads = bench(nastui_cmd, tmp_path, "run", "sweep", "--demo", "--quiet", "--no-save",
                  "--iodepth", "1", "--runtime", "1")  # fmt: skip
    assert "could not look into" not in reads.stdout + reads.stderr


def test_usage_errors_exit_64(nastui_cmd: list[str], tmp_path: Path) -> None:
    assert "neither a block device nor a directory" in (
        bench(nastui_cmd, tmp_path, "run", "cdm", "/dev/null", check=64).stderr
    )
    assert (
        "no such"
        in bench(nastui_cmd, tmp_path, "run", "cdm", "/nonexistent", check=64).stderr.lower()
    )
    assert "--job" in bench(nastui_cmd, tmp_path, "run", "custom", str(tmp_path), check=64).stderr
    assert "no saved run" in bench(nastui_cmd, tmp_path, "show", "nope", check=64).stderr
    bench(nastui_cmd, tmp_path, "compare", "last", check=64)
    bench(nastui_cmd, tmp_path, "run", "nosuchprofile", check=64)


def test_a_mistyped_demo_target_is_a_usage_error_as_on_the_machine(
    nastui_cmd: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README audit: a demo target that is neither a directory nor a demo drive ran, was
    refused by the guard (77) after a run header, and a mistyped drive name was taken for a
    directory. As on the real machine: 64, one line naming it and what the demo takes, in the
    real check's words, nothing printed on stdout and nothing saved."""
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path / "state"))
    runs = tmp_path / "runs"
    regular = tmp_path / "file"
    regular.write_text("")
    for target, why in (
        ("/no/such/dir", "No such file or directory"),
        ("sdzz", "No such file or directory"),
        ("/dev/sdzz", "No such file or directory"),
        (str(regular), "not a directory"),
    ):
        done = bench(nastui_cmd, runs, "run", "sweep", target, "--demo", check=64)
        assert done.stdout == "", target
        [line] = done.stderr.splitlines()
        assert line.startswith(f"nastui: {target}: {why} (the demo takes a directory or a demo")
        assert "serial" in line and "by-id" in line
        real = bench(nastui_cmd, runs, "run", "sweep", target, check=64).stderr
        assert real.startswith(f"nastui: {target}") and len(real.splitlines()) == 1
        if why == "No such file or directory":  # a typo: what a target may be, too
            assert real == (
                f"nastui: {target}: {why} (a benchmark takes a directory, or a whole block "
                "device (/dev/sdc, /dev/disk/by-id/...))\n"
            )
    assert not runs.exists()
    drive = bench(nastui_cmd, runs, "run", "sweep", "/dev/sdc", "--demo", "--no-save",
                  "--runtime", "1", "--iodepth", "1", "--quiet")  # fmt: skip
    assert "target /tmp (directory)" in drive.stdout and "-sdc-sweep" in drive.stdout


@pytest.mark.integration
def test_real_fio_run_on_a_temp_directory(nastui_cmd: list[str], tmp_path: Path) -> None:
    require_tool("fio", "fio")
    work = tmp_path / "work"
    work.mkdir()
    args = ("run", "sweep", str(work), "--iodepth", "1,2", "--runtime", "1", "--size", "8M")
    done = bench(nastui_cmd, tmp_path / "runs", *args)
    assert "QD1 x1" in done.stdout and "QD2 x1" in done.stdout
    assert "of RAM: the page cache" in done.stdout
    assert list(work.iterdir()) == []
    data = json.loads(bench(nastui_cmd, tmp_path / "runs", "show", "last", "--json").stdout)
    assert data["run"]["target"]["kind"] == "directory"
    assert data["run"]["steps"][1]["read_iops"] > 0


@pytest.mark.integration
def test_device_in_use_is_refused_with_exit_77(nastui_cmd: list[str], tmp_path: Path) -> None:
    """The root filesystem's device: mounted, so refused before anything runs."""
    root_dev = next(
        line.split()[0]
        for line in Path("/proc/self/mounts").read_text().splitlines()
        if line.split()[1] == "/" and line.startswith("/dev/")
    )
    done = bench(nastui_cmd, tmp_path, "run", "dd", root_dev, "--confirm", "x", check=77)
    assert "in use, nothing written" in done.stdout and "mounted at /" in done.stdout


def test_bench_list_does_not_load_textual(tmp_path: Path) -> None:
    code = (
        "import sys, io, contextlib, json\n"
        "sys.argv = ['nastui', 'bench', 'list']\n"
        "from nastui.entry import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "NASTUI_BENCH_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=REPO,
    )
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert not {m for m in loaded if m == "textual" or m.startswith(("textual.", "nastui.ui"))}


@pytest.mark.integration
def test_ctrl_c_stops_fio_and_keeps_the_partial_result(
    nastui_cmd: list[str], tmp_path: Path
) -> None:
    require_tool("fio", "fio")
    work, runs = tmp_path / "work", tmp_path / "runs"
    work.mkdir()
    env = {**os.environ, "NASTUI_BENCH_DIR": str(runs)}
    argv = [*nastui_cmd, "bench", "run", "randrw", str(work), "--runtime", "60", "--size", "16M"]
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO
    )
    time.sleep(3.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in out and "partial result kept" in out
    (saved,) = runs.glob("*.json")
    data = json.loads(saved.read_text())["run"]
    assert data["state"] == "interrupted"
    assert data["steps"][0]["read_iops"] > 0 and data["steps"][0]["seconds"] < 30
    assert list(work.iterdir()) == []


def test_demo_runs_are_kept_in_the_demos_own_state(nastui_cmd: list[str], tmp_path: Path) -> None:
    """`bench run --demo` saved a modelled drive's run among the machine's (/var/lib/nastui/bench
    as root), where `nastui bench list` showed it as measured; it goes to the demo's state
    directory now, where `bench list --demo` finds it. (The write itself is caught in a sandbox
    by test_demo_footprint, which this test must not rely on running as root.)"""
    kept = {"PATH", "PYTHONPATH", "LANG"}
    env = {k: v for k, v in os.environ.items() if k in kept}
    env |= {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [*nastui_cmd, "bench", *args]
        return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, check=False)

    done = run("run", "randrw", "--demo", "--runtime", "2", "--quiet")
    assert done.returncode == 0, done.stderr
    bench_dir = tmp_path / "state/nastui/demo/healthy-24-bay/bench"
    assert [p.suffix for p in sorted(bench_dir.iterdir())] == [".csv", ".json"]
    listed = run("list", "--demo").stdout
    assert f"saved runs in {bench_dir}:" in listed and "  #1   " in listed
    assert "no saved runs yet" in run("list", "--scenario", "mixed").stdout  # its own state


def test_a_custom_runs_header_leaves_its_settings_to_the_job(
    nastui_cmd: list[str], tmp_path: Path
) -> None:
    """The header said "size 1.0 GiB, direct on, refill on" for a job with direct=0."""
    job = tmp_path / "buffered.fio"
    job.write_text("[global]\ndirect=0\nruntime=2\ntime_based=1\nsize=64M\n\n[r]\nrw=read\n")
    done = bench(nastui_cmd, tmp_path, "run", "custom", "--job", str(job), "--demo", "--quiet")
    line = "profile custom: size, time, direct I/O and data: the job file's own"
    assert line in done.stdout.splitlines(), done.stdout


def test_text_is_printed_as_it_is_not_as_emoji_codes(nastui_cmd: list[str], tmp_path: Path) -> None:
    """A refused job's line "root:x:0:0:root" was printed "root❌0:0:root" (rich's emoji codes);
    and a job the allowlist refuses got a run header, "refused", and exit 77, the guard's."""
    job = tmp_path / "passwd.fio"
    job.write_text("root:x:0:0:root:/root:/bin/bash\n")
    done = bench(nastui_cmd, tmp_path, "run", "custom", "--job", str(job), "--demo", check=64)
    # one line, naming the file and its line, before anything runs
    assert done.stdout == "" and not list(tmp_path.glob("*.json"))
    assert done.stderr == (
        f"nastui: {job}: line 1: 'root:x:0:0:root:/root:/bin/bash' is not a fio option a custom "
        "job may set\n"
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["dd", "/tmp", "--records", "4k"],
            "--records does not apply to the dd profile (it is for wsc)",
        ),
        (["cdm", "/tmp", "--file-size", "4G"], "--file-size does not apply to the cdm profile"),
        (
            ["dd", "/tmp", "--job", "job.fio"],
            "--job does not apply to the dd profile (it is for custom)",
        ),
        (
            ["wsc", "/tmp", "--bs", "4k"],
            "--bs does not apply to the wsc profile (it is for randrw, sweep)",
        ),
        (
            ["custom", "/tmp", "--job", "job.fio", "--no-direct"],
            "--no-direct does not apply to a custom job",
        ),
        (
            ["custom", "/tmp", "--job", "job.fio", "--runtime", "5"],
            "--runtime does not apply to a custom job",
        ),
    ],
)
def test_an_option_the_profile_does_not_use_is_refused_by_name(
    argv: list[str],
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`bench run custom --no-direct` ran as the job file said and the record kept the option as
    if it had applied: every option is checked against the profiles it is for
    (`bench.options.profiles_taking`), as the options form offers only those."""
    from nastui.cli.args import parse_args
    from nastui.cli.main import run_headless

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path))
    (tmp_path / "job.fio").write_text("[j]\nrw=read\nsize=1M\n")
    code = run_headless(parse_args(["--demo", "bench", "run", *argv]), io.StringIO())
    assert code == exits.EX_USAGE
    assert said in capsys.readouterr().err
    assert not (tmp_path / "bench").exists()  # nothing ran, nothing saved
