"""The custom fio job checker (pure): an allowlist of options that only shape I/O on the target.

A custom job file is parsed line by line and rebuilt from what was checked: fio then reads
exactly what nastui validated, with the target as the `filename` of every job. What may appear:

- comments (`#`, `;`) and blank lines; sections `[name]` (letters, digits, `_ . -`), at most
  one `[global]`, first; `option=value` or a bare `option` (a flag) inside a section;
- only the options in `ALLOWED`, each with a value its rule accepts (sizes, numbers, times,
  a few enumerations); `ioengine` only nastui's own engines (`ENGINES`).

Everything else is refused with one line naming it: every option that names a file, a device,
a directory, a program, a log, a cgroup, a scheduler or another job file (`filename`,
`read_iolog`, `replay_redirect`, `exec_prerun`, `write_bw_log`, `ioengine=exec`,
`ioengine=external:...`, `include`...), fio's aliases of allowed options (write the canonical
name), `$VAR`/`${VAR}`/`$mb_memory` expansion anywhere, `--option` lines, control characters;
and what fio could not run or would take long to read: more than `MAX_JOBS` jobs (sections
times numjobs: fio's own limit), lines over `MAX_LINE` characters, files over `JOB_LIMIT`.
Checking takes time in proportion to the file's length (tests/perf/guard_perf.py measures it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nastui.bench.sizes import parse_size

ENGINES = frozenset({"libaio"})  # what the built-in profiles use (nastui.bench.profiles)
MAX_JOBS = 4096  # fio 3.33 refuses more ("error: maximum number of jobs reached")
MAX_LINE = 4096  # characters in a line
JOB_LIMIT = 4 << 20  # bytes in a job file
_SIZE = r"(?:\d+(?:\.\d+)?(?:[kmgtp]i?b?|b)?)"
_SIZES = rf"{_SIZE}(?:-{_SIZE})?"
_TIME = r"(?:\d+(?:us|ms|s|m|h|d)?)"
_INT = r"(?:\d+)"
_BOOL = r"[01]"
_PCT = r"(?:\d|[1-9]\d|100)"
_RW = r"(?:read|write|trim|randread|randwrite|randtrim|rw|readwrite|randrw|trimwrite|randtrimwrite)"
_VERIFY = (
    r"(?:0|md5|crc64|crc32c|crc32c-intel|crc32|crc16|crc7|xxhash|sha512|sha256|sha1"
    r"|sha3-224|sha3-256|sha3-384|sha3-512|meta|pattern|null)"
)
_FLOAT = r"(?:\d+(?:\.\d+)?)"
_SPLIT = rf"{_SIZE}/{_PCT}?(?::{_SIZE}/{_PCT}?)*"  # bssplit: "4k/10:64k/50:1m/"


def _rule(pattern: str) -> re.Pattern[str]:
    """Values fio reads either case ("4K", "RandRead")."""
    return re.compile(rf"(?:{pattern})", re.IGNORECASE)


# option -> the values it may take (a bare flag is the value "1").
ALLOWED: dict[str, re.Pattern[str]] = {
    # what to do
    "rw": _rule(rf"{_RW}(?::\d+)?"),
    "rwmixread": _rule(_PCT),
    "rwmixwrite": _rule(_PCT),
    "ioengine": re.compile("|".join(sorted(ENGINES))),  # case as fio spells them
    "direct": _rule(_BOOL),
    "buffered": _rule(_BOOL),
    "sync": _rule(r"[01]|none|sync|dsync"),
    "fsync": _rule(_INT),
    "fdatasync": _rule(_INT),
    "end_fsync": _rule(_BOOL),
    "fsync_on_close": _rule(_BOOL),
    "overwrite": _rule(_BOOL),
    "invalidate": _rule(_BOOL),
    "userspace_reap": _rule(_BOOL),
    # how big, where on the target
    "bs": _rule(rf"{_SIZES}(?:,{_SIZES}){{0,2}}"),
    "ba": _rule(rf"{_SIZE}(?:,{_SIZE}){{0,2}}"),
    "bsrange": _rule(rf"{_SIZES}(?:,{_SIZES}){{0,2}}"),
    "bssplit": _rule(rf"{_SPLIT}(?:,{_SPLIT}){{0,2}}"),
    "size": _rule(rf"{_SIZE}|{_PCT}%"),
    "io_size": _rule(rf"{_SIZE}|{_PCT}%"),
    "offset": _rule(rf"{_SIZE}|{_PCT}%"),
    "offset_increment": _rule(rf"{_SIZE}|{_PCT}%"),
    "number_ios": _rule(_INT),
    "loops": _rule(_INT),
    # how many, how deep
    "iodepth": _rule(_INT),
    "iodepth_batch": _rule(_INT),
    "iodepth_batch_complete_min": _rule(_INT),
    "iodepth_batch_complete_max": _rule(_INT),
    "iodepth_low": _rule(_INT),
    "numjobs": _rule(r"[1-9]\d?|1[0-9]\d|2[0-4]\d|25[0-6]"),  # 1..256 threads
    "serialize_overlap": _rule(_BOOL),
    "stonewall": _rule(_BOOL),
    "new_group": _rule(_BOOL),
    # random
    "norandommap": _rule(_BOOL),
    "randrepeat": _rule(_BOOL),
    "allrandrepeat": _rule(_BOOL),
    "randseed": _rule(_INT),
    "random_generator": _rule(r"tausworthe|lfsr|tausworthe64"),
    "random_distribution": _rule(rf"random|(?:zipf|pareto|normal|gauss):{_FLOAT}(?::{_FLOAT})?"),
    "percentage_random": _rule(rf"{_PCT}(?:,{_PCT}){{0,2}}"),
    # how long, how fast
    "runtime": _rule(_TIME),
    "time_based": _rule(_BOOL),
    "ramp_time": _rule(_TIME),
    "startdelay": _rule(_TIME),
    "rate": _rule(rf"{_SIZE}?(?:,{_SIZE}?){{0,2}}"),
    "rate_min": _rule(rf"{_SIZE}?(?:,{_SIZE}?){{0,2}}"),
    "rate_iops": _rule(rf"{_INT}?(?:,{_INT}?){{0,2}}"),
    "rate_iops_min": _rule(rf"{_INT}?(?:,{_INT}?){{0,2}}"),
    "rate_process": _rule(r"linear|poisson"),
    "thinktime": _rule(_TIME),
    "thinktime_spin": _rule(_TIME),
    "thinktime_blocks": _rule(_INT),
    # data
    "refill_buffers": _rule(_BOOL),
    "zero_buffers": _rule(_BOOL),
    "scramble_buffers": _rule(_BOOL),
    "buffer_compress_percentage": _rule(_PCT),
    "buffer_compress_chunk": _rule(_SIZE),
    "dedupe_percentage": _rule(_PCT),
    # verification (verify_state_save is nastui's: always off, so no state file is written)
    "verify": _rule(_VERIFY),
    "do_verify": _rule(_BOOL),
    "verify_fatal": _rule(_BOOL),
    "verify_backlog": _rule(_INT),
    "verify_interval": _rule(_SIZE),
    "verify_offset": _rule(_SIZE),
    "verify_pattern": _rule(r"0x[0-9a-f]{1,64}"),
    # reporting
    "group_reporting": _rule(_BOOL),
    "clat_percentiles": _rule(_BOOL),
    "lat_percentiles": _rule(_BOOL),
    "percentile_list": _rule(rf"{_FLOAT}(?::{_FLOAT}){{0,19}}"),
    "kb_base": _rule(r"1000|1024"),
}
# Sample: "[global]", "[seq-read]"
_SECTION = re.compile(r"\[(?P<name>[^\]]*)\]")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Sample: "bs=4k", "time_based", "rw = randread"
_OPTION = re.compile(r"(?P<name>[^=]*?)\s*(?:=\s*(?P<value>.*))?")
_OPTION_NAME = re.compile(r"[a-z][a-z0-9_]*")
_PRINTABLE = re.compile(r"[\x20-\x7e\t]*")
ALIASES = {  # fio's aliases of allowed options (fio --cmdhelp=NAME, fio 3.33)
    "readwrite": "rw",
    "blocksize": "bs",
    "blockalign": "ba",
    "blocksize_range": "bsrange",
    "iodepth_batch_submit": "iodepth_batch",
    "iodepth_batch_complete": "iodepth_batch_complete_min",
    "io_limit": "io_size",
    "fileoffset": "offset",
    "timeout": "runtime",
}


@dataclass(frozen=True, slots=True)
class Section:
    """One section of a checked job: its name and its (option, value) pairs in order."""

    name: str
    options: tuple[tuple[str, str | None], ...]


def _refuse(number: int, what: str) -> ValueError:
    return ValueError(f"line {number}: {what}")


def _option(number: int, line: str) -> tuple[str, str | None]:
    """One `name=value` (or bare `name`) line, checked against the allowlist."""
    match = _OPTION.fullmatch(line)
    name = match["name"].strip() if match else line
    value = match["value"] if match else None
    if name == "include" or name.startswith("include "):
        raise _refuse(number, "'include' is not allowed: the whole job goes in this one file")
    if not _OPTION_NAME.fullmatch(name):
        raise _refuse(number, f"{name!r} is not a fio option a custom job may set")
    if name in ALIASES:
        raise _refuse(number, f"{name!r} is an alias: write {ALIASES[name]!r}")
    rule = ALLOWED.get(name)
    if rule is None:
        raise _refuse(
            number,
            f"{name!r} is not allowed: a custom job only shapes I/O on the target "
            "(see README, Benchmarks)",
        )
    value = None if value is None else value.strip()
    if value is not None and not rule.fullmatch(value):
        hint = f": only {', '.join(sorted(ENGINES))}" if name == "ioengine" else ""
        raise _refuse(number, f"{name}={value!r} is not an allowed value{hint}")
    return name, value


def _line(number: int, raw: str) -> str | None:
    """A line stripped and checked; None for a blank line or a comment."""
    line = raw.rstrip("\r").strip()
    if len(line) > MAX_LINE:
        raise _refuse(number, f"longer than {MAX_LINE} characters")
    if not _PRINTABLE.fullmatch(line):
        raise _refuse(number, "control or non-ASCII characters are not allowed")
    if "$" in line:
        raise _refuse(number, "'$' is not allowed (fio would expand it: $VAR, $mb_memory)")
    if not line or line.startswith(("#", ";")):
        return None
    return line


@dataclass(slots=True)
class _Reading:
    """A job file being read: the sections so far, their names, and the jobs they start."""

    sections: list[Section] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    name: str | None = None
    options: list[tuple[str, str | None]] = field(default_factory=list)
    jobs: int = 0
    start: int = 0  # the line of the section being read

    def close(self) -> None:
        """The section being read is complete."""
        if self.name is None:
            return
        self.sections.append(Section(self.name, tuple(self.options)))
        self.jobs += _jobs(self.sections[-1])
        if self.jobs > MAX_JOBS:
            raise _refuse(
                self.start, f"more than {MAX_JOBS} jobs from here on (fio runs at most {MAX_JOBS})"
            )

    def open(self, number: int, name: str) -> None:
        """A new section begins at line `number`."""
        self.close()
        self.start = number
        if not _NAME.fullmatch(name):
            raise _refuse(number, f"section name {name!r}: use letters, digits, _ . -")
        if name == "global" and self.sections:
            raise _refuse(number, "[global] may appear once, as the first section")
        if name in self.names:
            raise _refuse(number, f"section [{name}] appears twice")
        self.names.add(name)
        self.name, self.options = name, []


def parse_job(text: str) -> tuple[Section, ...]:
    """A custom job file as checked sections, in time proportional to its length.

    Raises:
        ValueError: one line naming the line and what is refused.
    """
    if len(text) > JOB_LIMIT:
        raise ValueError(f"a fio job file may have at most {JOB_LIMIT} characters")
    reading = _Reading()
    for number, raw in enumerate(text.split("\n"), start=1):
        line = _line(number, raw)
        if line is None:
            continue
        section = _SECTION.fullmatch(line)
        if section:
            reading.open(number, section["name"].strip())
            continue
        option = _option(number, line)
        if reading.name is None:
            raise ValueError(f"not a fio job file: line {number} is outside a [section]")
        reading.options.append(option)
    reading.close()
    if not [s for s in reading.sections if s.name != "global"]:
        raise ValueError("a fio job file needs at least one [job] section")
    return tuple(reading.sections)


def _jobs(section: Section) -> int:
    """How many jobs a section starts (its numjobs; none for [global])."""
    if section.name == "global":
        return 0
    count = dict(section.options).get("numjobs")
    return int(count) if count else 1


def render(sections: tuple[Section, ...], filename: str | None) -> str:
    """The job as fio will read it; with `filename`, every job writes there and saves no
    verify state file."""
    if filename is not None and (
        "$" in filename or not _PRINTABLE.fullmatch(filename) or "\t" in filename
    ):
        raise ValueError(f"{filename!r}: a target path for a custom job may not contain '$'")
    lines: list[str] = []
    for section in sections:
        lines.append(f"[{section.name}]")
        if filename is not None:
            lines += [f"filename={filename.replace(':', chr(92) + ':')}", "verify_state_save=0"]
        lines += [name if value is None else f"{name}={value}" for name, value in section.options]
        lines.append("")
    return "\n".join(lines)


def job_space(text: str) -> int | None:
    """The largest file a checked custom job makes (its sections' `size`: every job writes
    the one target file); None when one is not a plain size (a percentage) or none is given."""
    sizes = [
        value for section in parse_job(text) for name, value in section.options if name == "size"
    ]
    try:
        return max((parse_size(value or "") for value in sizes), default=None)
    except ValueError:
        return None


def check_custom_job(text: str) -> str:
    """A custom fio job file, checked against the allowlist and rebuilt from what was checked.

    Raises:
        ValueError: one line naming the line and the option or value refused.
    """
    return render(parse_job(text), None)


def custom_job_text(text: str, filename: str) -> str:
    """A checked custom job with the target as the `filename` of every section."""
    return render(parse_job(text), filename)
