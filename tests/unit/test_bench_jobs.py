"""Profiles, their steps and the command lines built for them (argv tuples asserted whole),
the custom job check, sizes and the options stepper."""

from __future__ import annotations

import dataclasses

import pytest

from nastui.bench.fiojob import check_custom_job, custom_job_text
from nastui.bench.guard import writes
from nastui.bench.jobs import (
    Step,
    Tool,
    custom_argv,
    dd_argv,
    fio_argv,
    fio_params,
    job_name,
    wsc_argv,
)
from nastui.bench.options import OPTIONS, options_for, stepped
from nastui.bench.profiles import PROFILES, fill_files, honesty_warnings, plan
from nastui.bench.sizes import parse_size, size_label
from nastui.model import BenchSettings, BenchTarget, DriveIdentity, TargetKind, Transport

G = 1 << 30
DIR = BenchTarget("/srv/bench", TargetKind.DIRECTORY, free_bytes=10 * G, ram_bytes=4 * G)
DEV = BenchTarget(
    "/dev/disk/by-id/ata-X_SER1",
    TargetKind.DEVICE,
    dev="sdc",
    identity=DriveIdentity(serial="SER1", transport=Transport.SATA),
    size_bytes=64 * G,
)
STREAM = ("--output-format=json+", "--status-interval=1", "--eta=never", "--thread")


def settings(profile: str, **changes: object) -> BenchSettings:
    return dataclasses.replace(PROFILES[profile].defaults, **changes)  # type: ignore[arg-type]


def test_cdm_first_step_argv() -> None:
    steps = plan(settings("cdm"), DIR)
    assert [s.label for s in steps] == [
        "SEQ1M Q8T1 read",
        "SEQ1M Q1T1 read",
        "RND4K Q32T1 read",
        "RND4K Q1T1 read",
        "SEQ1M Q8T1 write",
        "SEQ1M Q1T1 write",
        "RND4K Q32T1 write",
        "RND4K Q1T1 write",
    ]
    assert fio_argv(steps[0], "/srv/bench/x/nastui-bench.dat") == (
        "fio",
        *STREAM,
        "--name=seq1m-q8t1-read",
        "--filename=/srv/bench/x/nastui-bench.dat",
        "--rw=read",
        "--bs=1M",
        "--iodepth=8",
        "--numjobs=1",
        "--size=1G",
        "--ioengine=libaio",
        "--direct=1",
        "--refill_buffers",
        "--randrepeat=0",
        "--time_based",
        "--runtime=5",
    )
    assert steps[7].param("rw") == "randwrite" and steps[7].param("iodepth") == "1"
    assert steps[0].seconds == 5.0


def test_sweep_is_numjobs_by_depth_grouped() -> None:
    steps = plan(settings("sweep", iodepths=(1, 8), numjobs=(1, 2), runtime_s=3.0), DIR)
    assert [s.label for s in steps] == ["QD1 x1", "QD8 x1", "QD1 x2", "QD8 x2"]
    argv = fio_argv(steps[3], "/f")
    assert "--iodepth=8" in argv and "--numjobs=2" in argv and "--group_reporting" in argv


def test_randrw_whole_device_has_no_size_and_every_block_once() -> None:
    (step,) = plan(settings("randrw"), DEV)
    argv = fio_argv(step, DEV.path)
    assert argv[:6] == ("fio", *STREAM, "--name=randrw-4k-50-50-qd1")
    assert "--filename=/dev/disk/by-id/ata-X_SER1" in argv
    assert {"--rw=randrw", "--rwmixread=50", "--bs=4K", "--iodepth=1", "--norandommap"} <= set(argv)
    assert not any(a.startswith(("--size", "--runtime", "--time_based")) for a in argv)
    assert step.bytes_total == 64 * G
    # A directory gets a test file of the default size instead.
    (on_dir,) = plan(settings("randrw"), DIR)
    assert on_dir.param("size") == "1G"


def test_fill_files_in_a_directory() -> None:
    (step,) = plan(settings("fill", file_bytes=G), DIR)
    assert fill_files(settings("fill", file_bytes=G), DIR) == 9  # 10 GiB free less a margin
    argv = fio_argv(step, "/srv/bench/nastui-bench-1/nastui-bench.dat")
    assert argv[6] == "--directory=/srv/bench/nastui-bench-1/"
    assert {"--filename_format=fill.$filenum", "--nrfiles=9", "--filesize=1G", "--size=9G"} <= set(
        argv
    )
    assert {"--fallocate=none", "--fsync_on_close=1", "--file_service_type=sequential"} <= set(argv)
    with pytest.raises(ValueError, match=r"no 64\.0 GiB file fits"):
        plan(settings("fill", file_bytes=64 * G), DIR)
    (whole,) = plan(settings("fill"), DEV)
    assert whole.label == "fill device" and whole.param("size") is None


def test_wsc_steps_and_argv() -> None:
    steps = plan(settings("wsc", size_bytes=256 << 20, record_sizes=(4096, 1 << 20)), DIR)
    assert [s.label for s in steps] == ["wsc 4K", "wsc 1M", "wsc 4K O_DIRECT", "wsc 1M O_DIRECT"]
    assert wsc_argv("/usr/bin/python3", steps[2], "/d/f") == (
        "/usr/bin/python3",
        "-m",
        "nastui.bench.wsc",
        "--path",
        "/d/f",
        "--size",
        str(256 << 20),
        "--record",
        "4096",
        "--direct",
        "--refill",
    )


def test_dd_steps_and_argv() -> None:
    source, write, read = plan(settings("dd", size_bytes=64 << 20), DIR)
    assert dd_argv(source, "/d/f") == (
        "dd",
        "if=/dev/urandom",
        "of=/dev/null",
        "bs=1M",
        "count=64",
        "status=progress",
        "iflag=fullblock",
    )
    assert dd_argv(write, "/d/f") == (
        "dd",
        "if=/dev/urandom",
        "of=/d/f",
        "bs=1M",
        "count=64",
        "status=progress",
        "iflag=fullblock",
        "oflag=direct",
        "conv=fsync",
    )
    assert dd_argv(read, "/d/f") == (
        "dd",
        "if=/d/f",
        "of=/dev/null",
        "bs=1M",
        "count=64",
        "status=progress",
        "iflag=direct",
    )
    zeros = plan(settings("dd", refill=False, direct=False), DIR)
    assert dd_argv(zeros[1], "/f")[1] == "if=/dev/zero" and "oflag=direct" not in dd_argv(
        zeros[1], "/f"
    )


def test_cache_matrix_doubles_the_steps() -> None:
    steps = plan(settings("cdm", cache_matrix=True), DEV)
    assert len(steps) == 16
    assert [s.cache for s in steps] == ["on"] * 8 + ["off"] * 8
    assert steps[8].label == "SEQ1M Q8T1 read [cache off]"


def test_which_profiles_write() -> None:
    assert not writes(plan(settings("sweep"), DEV))  # randread
    assert writes(plan(settings("sweep", rw="randrw"), DEV))
    for name in ("cdm", "randrw", "wsc", "fill", "dd"):
        assert writes(plan(settings(name), DIR)), name


def test_fio_paths_with_colons_are_escaped() -> None:
    step = Step(Tool.FIO, "x", ())
    assert fio_argv(step, "/dev/disk/by-path/pci-0000:00:1f.2-ata-1")[-1] == (
        "--filename=/dev/disk/by-path/pci-0000\\:00\\:1f.2-ata-1"
    )


def test_custom_job_is_checked_and_rebuilt() -> None:
    good = "# mine\n[global]\nioengine = libaio\ntime_based\n\n[job1]\nrw=randread\nbs=4k\n"
    assert check_custom_job(good) == (
        "[global]\nioengine=libaio\ntime_based\n\n[job1]\nrw=randread\nbs=4k\n"
    )
    text = custom_job_text(good, "/t/a:b")
    assert text.splitlines()[:3] == ["[global]", "filename=/t/a\\:b", "verify_state_save=0"]
    assert text.splitlines()[6:9] == ["[job1]", "filename=/t/a\\:b", "verify_state_save=0"]
    assert custom_argv("/tmp/j.fio") == ("fio", *STREAM, "/tmp/j.fio")
    (step,) = plan(settings("custom", job_text=good), DIR)
    assert writes([step])  # a custom job may write: treated as writing
    with pytest.raises(ValueError, match=r"may not contain '\$'"):
        plan(settings("custom", job_text=good), dataclasses.replace(DIR, path="/srv/$HOME"))


@pytest.mark.parametrize(
    ("job", "message"),
    [
        ("[j]\nfilename=/dev/sda\n", "line 2: 'filename' is not allowed"),
        ("[global]\nexec_prerun=rm -rf /\n[j]\n", "line 2: 'exec_prerun' is not allowed"),
        ("[j]\ndirectory = /\n", "'directory' is not allowed"),
        ("include other.fio\n[j]\n", "line 1: 'include' is not allowed"),
        ("[j]\ninclude other.fio\n", "line 2: 'include' is not allowed"),
        ("[j]\nwrite_bw_log=/etc/x\n", "'write_bw_log' is not allowed"),
        ("[j]\nread_iolog=/tmp/log\n", "'read_iolog' is not allowed"),
        ("[j]\nreplay_redirect=/dev/loop3\n", "'replay_redirect' is not allowed"),
        ("[j]\nioengine=exec\n", "ioengine='exec' is not an allowed value: only libaio"),
        ("[j]\nioengine=external:/x.so\n", "ioengine='external:/x.so' is not an allowed"),
        ("[j]\nprogram=/bin/sh\n", "'program' is not allowed"),
        ("[j]\nverify_state_save=1\n", "'verify_state_save' is not allowed"),
        ("[j]\nioscheduler=none\n", "'ioscheduler' is not allowed"),
        ("[j]\ncgroup=x\n", "'cgroup' is not allowed"),
        ("[j]\npre_read=1\n", "'pre_read' is not allowed"),
        ("[j]\ntrigger_cmd=reboot\n", "'trigger_cmd' is not allowed"),
        ("[j]\nreadwrite=write\n", "'readwrite' is an alias: write 'rw'"),
        ("[j]\n--filename=/dev/sda\n", "'--filename' is not a fio option"),
        ("[j]\nsize=${SIZE}\n", "line 2: '\\$' is not allowed"),
        ("[j]\nsize=$mb_memory\n", "'\\$' is not allowed"),
        ("[$HOME]\nrw=read\n", "line 1: '\\$' is not allowed"),
        ("[../etc/x]\nrw=read\n", "section name '../etc/x'"),
        ("[j]\n[global]\nrw=read\n", "line 2: \\[global\\] may appear once, as the first"),
        ("[global]\n[global]\n[j]\n", "\\[global\\] may appear once"),
        ("[j]\n[j]\n", "section \\[j\\] appears twice"),
        ("[j]\nbs=4k # comment\n", "bs='4k # comment' is not an allowed value"),
        ("[j]\nrw=read\x00\n", "control or non-ASCII"),
        ("[global]\nbs=4k\n", "at least one"),
        ("rw=read\n", "not a fio job file: line 1 is outside a \\[section\\]"),
    ],
)
def test_custom_job_refusals_name_the_option(job: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_custom_job(job)


def test_honesty_warnings() -> None:
    small = honesty_warnings(settings("cdm", size_bytes=G), DIR)
    assert any("of RAM: the page cache" in w for w in small)
    big = honesty_warnings(settings("cdm", size_bytes=16 * G), DIR)
    assert big == ()
    zfs = dataclasses.replace(DIR, fs_type="zfs", arc_max_bytes=2 * G)
    assert any("ARC" in w for w in honesty_warnings(settings("cdm", size_bytes=16 * G), zfs))
    lax = honesty_warnings(settings("cdm", size_bytes=16 * G, direct=False, refill=False), DIR)
    assert len(lax) == 2
    assert honesty_warnings(settings("cdm"), DEV) == ()


def test_unknown_profile_and_helpers() -> None:
    with pytest.raises(ValueError, match="no profile"):
        plan(BenchSettings(profile="nope"), DIR)
    assert job_name("SEQ1M Q8T1 read") == "seq1m-q8t1-read"
    assert parse_size("4k") == 4096 and parse_size("70G") == 70 * G
    assert parse_size("1.5M") == 1572864
    assert size_label(4096) == "4K" and size_label(1000) == "1000" and size_label(3 * G) == "3G"
    with pytest.raises(ValueError):
        parse_size("lots")
    pairs = (("b", "1"), ("size", "4K"), ("c", "1.5"))
    assert fio_params(a=None, b=True, size=4096, c=1.5) == pairs


def test_options_step_through_choices() -> None:
    start = settings("cdm")
    profile = OPTIONS[0]
    nxt = stepped(start, profile, 1)
    assert nxt.profile == "sweep" and nxt.runtime_s == 10.0
    assert stepped(stepped(start, profile, 1), profile, -1).profile == "cdm"
    direct = next(o for o in OPTIONS if o.field == "direct")
    assert stepped(start, direct, 1).direct is False
    assert [o.field for o in options_for("sweep")][-3:] == ["iodepths", "numjobs", "rw"]
    assert "iodepths" not in [o.field for o in options_for("cdm")]
