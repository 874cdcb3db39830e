"""Custom fio jobs that reach past the target, through the real runner and fio, on real loop
devices (root): an iolog replayed onto another device (`read_iolog` + `replay_redirect`), an
iolog naming another device, the exec engine running a program, an `include`, `$` expansion, a
`--filename` line, a second `[global]`. Each is refused with the option named, nothing runs, and
the target, the victim (a mounted ext4) and the would-be program's marker are untouched. An
allowed job, the control, does write the target and only the target.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nastui.bench.profiles import PROFILES
from nastui.bench.runner import BenchRunner
from nastui.collectors.fio_host import LocalBenchHost
from nastui.collectors.fio_target import inspect_target
from nastui.model import BenchRun, RunState
from tests.blocklab import MIB, checksum, frozen, mounted, sh
from tests.conftest import require_tool
from tests.integration.test_guard_loops import loop_device

pytestmark = pytest.mark.integration


def smuggling_jobs(victim: str, log: Path, marker: Path) -> list[tuple[str, str]]:
    """(job text, what the refusal names)."""
    return [
        (f"[j]\nrw=read\nread_iolog={log}\nreplay_redirect={victim}\n", "'read_iolog'"),
        (f"[j]\nread_iolog={log}\n", "'read_iolog'"),
        (f"[j]\nioengine=exec\nprogram=/usr/bin/touch\narguments={marker}\n", "ioengine='exec'"),
        (f"[j]\nprogram=/usr/bin/touch\narguments={marker}\n", "'program'"),
        (f"[j]\nrw=write\nsize=4k\nfilename={victim}\n", "'filename'"),
        (f"[j]\nrw=write\nsize=4k\n--filename={victim}\n", "'--filename'"),
        (f"[j]\nrw=write\nsize=4k\ninclude {log}\n", "'include'"),
        ("[j]\nrw=write\nsize=4k\nfilename=${VICTIM}\n", "'$'"),
        ("[j]\nrw=write\nbs=$mb_memory\n", "'$'"),
        (f"[global]\nrw=write\n[j]\n[global]\nfilename={victim}\n[k]\n", "[global] may appear"),
        (f"[j]\nrw=write\nsize=4k\ndirectory={log.parent}\n", "'directory'"),
        (f"[j]\nrw=write\nwrite_bw_log={marker}\n", "'write_bw_log'"),
        (f"[j]\nrw=write\nexec_prerun=/usr/bin/touch {marker}\n", "'exec_prerun'"),
        ("[j]\nrw=write\nioengine=external:/tmp/x.so\n", "ioengine='external:/tmp/x.so'"),
    ]


async def run_job(target_path: str, job: str) -> BenchRun:
    target = await inspect_target(target_path)
    bench = BenchRunner(LocalBenchHost(), host_name="test", runs_dir=None)
    settings = dataclasses.replace(PROFILES["custom"].defaults, job_text=job)
    return await bench.run(settings, target, confirm=target.confirm_token)


def write_iolog(log: Path, victim: str) -> None:
    log.write_text(
        f"fio version 2 iolog\n{victim} add\n{victim} open\n{victim} write 0 4096\n{victim} close\n"
    )


async def test_jobs_reaching_past_the_target_are_refused(tmp_path: Path) -> None:
    require_tool("fio", "fio")
    require_tool("mkfs.ext4", "e2fsprogs")
    with loop_device(tmp_path, "target", 16) as target, loop_device(tmp_path, "victim") as victim:
        sh("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", victim)
        with mounted(victim, tmp_path / "mnt") as mnt, frozen(mnt):
            log, marker = tmp_path / "redirect.iolog", tmp_path / "ran-a-program"
            write_iolog(log, victim)
            before = checksum(target), checksum(victim)
            for job, named in smuggling_jobs(victim, log, marker):
                run = await run_job(target, job)
                assert run.state is RunState.REFUSED, (job, run.message)
                assert named in run.message and "\n" not in run.message, run.message
                assert run.steps == () and run.samples == ()
            sh("sync")
            assert (checksum(target), checksum(victim)) == before
            assert not marker.exists()
            # the control: an allowed job writes the target, and nothing else
            job = "[global]\nioengine=libaio\ndirect=1\n[j]\nrw=write\nbs=64k\nsize=4m\n"
            run = await run_job(target, job)
            assert run.state is RunState.COMPLETE, run.message
            assert run.steps[0].bytes_done == 4 * MIB
            sh("sync")
            assert checksum(target) != before[0] and checksum(victim) == before[1]
