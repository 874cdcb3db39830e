"""Steps and the command lines that run them (pure): fio, dd and the write-sync-close timer.

A `Step` is one job of a profile: its tool, its label and its options. `fio_argv`, `dd_argv`
and `wsc_argv` turn a step and the file or device it works on into an argument tuple (tests
assert the tuples). fio always streams (`--output-format=json+ --status-interval=1
--eta=never`) and runs its jobs as threads (`--thread`), so stopping or killing fio stops every
job.

A custom job file is checked and rebuilt by `nastui.bench.fiojob` (an allowlist) before it runs.
"""

from __future__ import annotations

import enum
import posixpath
import re
from dataclasses import dataclass, replace

from nastui.bench.sizes import size_label

# `--thread`: jobs run as threads of one fio process. By default fio forks each job into a
# process of its own process group, which neither the runner's group kill nor the parent-death
# signal reaches: a job forked that way kept writing after its fio was SIGKILLed.
STREAM = ("--output-format=json+", "--status-interval=1", "--eta=never", "--thread")
FIO_FLAGS = frozenset({"time_based", "group_reporting", "refill_buffers", "norandommap"})
CUSTOM_FILE = "nastui-custom.fio"


class Tool(enum.Enum):
    """What runs a step."""

    FIO = "fio"
    DD = "dd"
    WSC = "wsc"  # nastui's write-sync-close timer (python -m nastui.bench.wsc)


@dataclass(frozen=True, slots=True)
class Step:
    """One job of a profile.

    Attributes:
        tool: fio, dd or the write-sync-close timer.
        label: what it is ("SEQ1M Q8T1 read").
        params: options in order: fio's (name, value); dd's and wsc's own.
        cache: "on" or "off" when the write-cache matrix switches the drive's cache for it.
        seconds: how long it should take (runtime + ramp), when known, for progress.
        bytes_total: how much it transfers, when known, for progress.
    """

    tool: Tool
    label: str
    params: tuple[tuple[str, str], ...]
    cache: str | None = None
    seconds: float | None = None
    bytes_total: int | None = None

    def param(self, name: str) -> str | None:
        """One option by name."""
        return dict(self.params).get(name)

    def with_cache(self, cache: str) -> Step:
        """The same step with the write cache `cache`, labelled so."""
        return replace(self, cache=cache, label=f"{self.label} [cache {cache}]")


def job_name(label: str) -> str:
    """A fio job name from a label: "SEQ1M Q8T1 read" -> "seq1m-q8t1-read"."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "job"


def fio_path(path: str) -> str:
    """A path as fio reads it: a colon separates file names there, so it is escaped."""
    return path.replace(":", "\\:")


def fio_argv(step: Step, filename: str) -> tuple[str, ...]:
    """fio streaming its status for `step` on `filename` (a test file or the device)."""
    options = []
    for name, value in step.params:
        if name in FIO_FLAGS:
            options.append(f"--{name}" if value == "1" else f"--{name}=0")
        else:
            options.append(f"--{name}={value}")
    # Several files (the fill profile): they go beside the test file, named by the job. The
    # directory ends in "/": fio refuses /proc/PID/fd/N, a link, but follows /proc/PID/fd/N/.
    where = (
        f"--directory={fio_path(posixpath.dirname(filename))}/"
        if step.param("filename_format")
        else f"--filename={fio_path(filename)}"
    )
    return ("fio", *STREAM, f"--name={job_name(step.label)}", where, *options)


def custom_argv(job_file: str) -> tuple[str, ...]:
    """fio streaming its status for a checked custom job file."""
    return ("fio", *STREAM, job_file)


def dd_argv(step: Step, filename: str) -> tuple[str, ...]:
    """dd for a sequential write, read or source-speed step, reporting progress each second.

    Params: rw ("write", "read", "source"), bs, count, direct ("1"/"0"), source (input for
    writes and the source check: /dev/urandom or /dev/zero).
    """
    rw = step.param("rw") or "write"
    bs, count = step.param("bs") or "1M", step.param("count") or "1024"
    direct = step.param("direct") == "1"
    common = (f"bs={bs}", f"count={count}", "status=progress")
    source = step.param("source") or "/dev/urandom"
    if rw == "source":
        return ("dd", f"if={source}", "of=/dev/null", *common, "iflag=fullblock")
    if rw == "read":
        flags = ("iflag=direct",) if direct else ()
        return ("dd", f"if={filename}", "of=/dev/null", *common, *flags)
    flags = ("oflag=direct",) if direct else ()
    return (
        "dd",
        f"if={source}",
        f"of={filename}",
        *common,
        "iflag=fullblock",
        *flags,
        "conv=fsync",
    )


def wsc_argv(python: str, step: Step, filename: str) -> tuple[str, ...]:
    """The write-sync-close timer: write `size` bytes in `record`-sized writes, fsync, close."""
    argv = [python, "-m", "nastui.bench.wsc", "--path", filename]
    argv += ["--size", step.param("size") or "1G", "--record", step.param("record") or "1M"]
    if step.param("direct") == "1":
        argv.append("--direct")
    if step.param("refill") == "1":
        argv.append("--refill")
    return tuple(argv)


def fio_params(**options: object) -> tuple[tuple[str, str], ...]:
    """fio options as (name, value) pairs, dropping None; sizes and booleans written fio's way."""
    pairs: list[tuple[str, str]] = []
    for name, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool):
            pairs.append((name, "1" if value else "0"))
        elif name in ("size", "bs", "filesize") and isinstance(value, int):
            pairs.append((name, size_label(value)))
        elif isinstance(value, float):
            pairs.append((name, f"{value:g}"))
        else:
            pairs.append((name, str(value)))
    return tuple(pairs)
