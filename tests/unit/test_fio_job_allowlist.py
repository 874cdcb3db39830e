"""The custom job allowlist against fio's full option list (hypothesis).

The option names, their aliases, the engines and the engines' own options come from the real fio
3.33 on the development machine, captured in tests/fixtures/fio (see PROVENANCE.md there). Jobs
are generated from every one of them, with values both harmless and hostile (paths, `$VAR`,
`${VAR}`, `$mb_memory`, `external:` engines); only allowlisted options with allowed values pass,
and what passes is rebuilt with the target as the only file and no expansion left for fio.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui.bench.fiojob import ALIASES, ALLOWED, ENGINES, check_custom_job, custom_job_text

FIXTURES = Path(__file__).parent.parent / "fixtures" / "fio"
# Sample: "  bs                    : Block size unit"
_HELP_LINE = re.compile(r"^\s*(?P<name>[a-z0-9_-]+)\s*:\s")
# Sample: "               alias: readwrite"
_ALIAS = re.compile(r"^\s*alias: (?P<name>\S+)$")
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _read(name: str) -> list[str]:
    return (FIXTURES / name).read_text(encoding="utf-8").splitlines()


def _names(name: str) -> set[str]:
    return {m["name"] for line in _read(name) if (m := _HELP_LINE.match(line))}


OPTIONS = _names("fio-3.33-cmdhelp-all.txt")
ENGINE_OPTIONS = _names("fio-3.33-enghelp-each.txt")
FIO_ALIASES = {
    m["name"] for line in _read("fio-3.33-cmdhelp-each.txt") if (m := _ALIAS.match(line))
}
FIO_ENGINES = {line.strip() for line in _read("fio-3.33-enghelp.txt")[1:] if line.strip()}
EVERY_NAME = sorted(OPTIONS | ENGINE_OPTIONS | FIO_ALIASES | set(ALLOWED))
HOSTILE = [
    "/dev/sda",
    "/tmp/x",
    "../../etc/passwd",
    "$HOME",
    "${HOME}",
    "$mb_memory*2",
    "$ncpus",
    "external:/tmp/evil.so",
    "exec",
    "sg",
    "io_uring",
    "4k;rm -rf /",
    "4k # x",
    "a b",
    "'q'",
    "\\x",
    "LIBAIO",
]
HARMLESS = [
    "1",
    "0",
    "4k",
    "1m",
    "128",
    "50%",
    "randread",
    "randwrite:4",
    "libaio",
    "10s",
    "500ms",
    "zipf:1.2",
    "crc32c",
    "0x55aa",
    "4k/50:64k/50",
    "10m,",
    "4k-64k",
    "1000",
]
values = st.one_of(
    st.none(),
    st.sampled_from(HARMLESS + HOSTILE + sorted(FIO_ENGINES)),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
)
options = st.lists(st.tuples(st.sampled_from(EVERY_NAME), values), max_size=6)
jobs = st.tuples(st.booleans(), st.lists(options, min_size=1, max_size=3), options)


Options = list[tuple[str, str | None]]
Job = tuple[bool, list[Options], Options]


def text_of(with_global: bool, sections: list[Options], glob: Options) -> str:
    parts: list[str] = []
    named = ([("global", glob)] if with_global else []) + [
        (f"job{i}", opts) for i, opts in enumerate(sections)
    ]
    for name, opts in named:
        parts.append(f"[{name}]")
        parts += [n if v is None else f"{n}={v}" for n, v in opts]
    return "\n".join(parts) + "\n"


def allowed(name: str, value: str | None) -> bool:
    if name not in ALLOWED:
        return False
    return value is None or bool(ALLOWED[name].fullmatch(value.strip()))


def test_the_fixture_is_fio_3_33_s_full_list() -> None:
    assert len(OPTIONS) > 200 and {"filename", "read_iolog", "replay_redirect"} <= OPTIONS
    assert {"program", "arguments"} <= ENGINE_OPTIONS  # the exec engine's
    assert {"exec", "libaio", "sg", "io_uring"} <= FIO_ENGINES


def test_every_allowed_option_is_a_real_fio_option_and_aliases_are_fios() -> None:
    assert set(ALLOWED) <= OPTIONS | ENGINE_OPTIONS
    assert set(ALIASES) <= FIO_ALIASES
    assert set(ALIASES.values()) <= set(ALLOWED)
    assert ENGINES <= FIO_ENGINES
    assert not set(ALLOWED) & FIO_ALIASES  # canonical names only


@pytest.mark.parametrize("name", sorted((OPTIONS | ENGINE_OPTIONS | FIO_ALIASES) - set(ALLOWED)))
def test_every_other_fio_option_is_refused_by_name(name: str) -> None:
    for job in (f"[j]\n{name}=1\n", f"[j]\n{name}\n", f"[global]\n{name}=x\n[j]\n"):
        with pytest.raises(ValueError, match=re.escape(repr(name))):
            check_custom_job(job)


@pytest.mark.parametrize("engine", sorted(FIO_ENGINES - ENGINES))
def test_only_nastuis_engines(engine: str) -> None:
    with pytest.raises(ValueError, match=f"ioengine='{re.escape(engine)}' is not an allowed"):
        check_custom_job(f"[j]\nioengine={engine}\n")
    assert check_custom_job("[j]\nioengine=libaio\n") == "[j]\nioengine=libaio\n"


@SETTINGS
@given(jobs)
def test_only_allowlisted_options_and_values_pass(job: Job) -> None:
    with_global, sections, glob = job
    text = text_of(with_global, sections, glob)
    every = [pair for opts in [glob] * with_global + sections for pair in opts]
    clean = all(allowed(n, v) for n, v in every) and "$" not in text
    printable = all(0x20 <= ord(c) < 0x7F for c in text.replace("\n", ""))
    if clean and printable:
        rebuilt = custom_job_text(text, "/dev/disk/by-id/ata-X_1")
        names = [line.split("=", 1)[0] for line in rebuilt.splitlines() if line[:1].isalpha()]
        assert set(names) <= set(ALLOWED) | {"filename", "verify_state_save"}
        assert rebuilt.count("filename=") == len(sections) + with_global
        assert rebuilt.count("filename=/dev/disk/by-id/ata-X_1\n") == rebuilt.count("filename=")
        assert "verify_state_save=0" in rebuilt and "verify_state_save=1" not in rebuilt
        assert "$" not in rebuilt and "include" not in rebuilt
        for line in rebuilt.splitlines():
            if line.startswith("ioengine="):
                assert line.removeprefix("ioengine=") in ENGINES
        assert check_custom_job(check_custom_job(text)) == check_custom_job(text)  # stable
        return
    with pytest.raises(ValueError) as refused:
        check_custom_job(text)
    message = str(refused.value)
    assert message.startswith("line ") and "\n" not in message
    bad = next(((n, v) for n, v in every if not allowed(n, v)), None)
    if bad is not None and "$" not in text and printable:
        assert repr(bad[0]) in message or f"{bad[0]}=" in message


@SETTINGS
@given(jobs, st.sampled_from(["$HOME", "${HOME}", "$mb_memory", "${x:-/dev/sda}", "$"]))
def test_any_dollar_anywhere_is_refused(job: Job, dollar: str) -> None:
    text = text_of(*job)
    lines = text.splitlines()
    at = len(lines) // 2
    lines[at] = lines[at] + dollar
    with pytest.raises(ValueError) as refused:
        check_custom_job("\n".join(lines))
    passes = True
    try:
        check_custom_job(text)
    except ValueError:
        passes = False
    if passes:  # the '$' is all that is wrong: it is named
        assert "'$' is not allowed" in str(refused.value)


@SETTINGS
@given(jobs, st.sampled_from(["include x.fio", "include /etc/fio.d/x", "include=x"]))
def test_include_anywhere_is_refused(job: Job, include: str) -> None:
    lines = text_of(*job).splitlines()
    lines.insert(len(lines) // 2 + 1, include)
    with pytest.raises(ValueError):
        check_custom_job("\n".join(lines))


def test_a_job_fio_could_not_run_is_refused_in_one_line() -> None:
    """10,000 sections took 6.1 s to check (each compared with every earlier one); fio runs at
    most 4096 jobs. The checker counts sections times numjobs and reads each line once (its
    time is measured in tests/perf/guard_perf.py, never asserted here)."""
    many = "".join(f"[j{i}]\nrw=randwrite\nbs=4k\n" for i in range(10_000))
    with pytest.raises(
        ValueError, match=r"^line 12289: more than 4096 jobs from here on \(fio runs at most"
    ):
        check_custom_job(many)
    assert check_custom_job("".join(f"[j{i}]\nrw=read\n" for i in range(4096)))
    wide = "".join(f"[b{i}]\nnumjobs=256\n" for i in range(16))
    assert check_custom_job(wide)  # 16 x 256 = 4096 jobs
    with pytest.raises(ValueError, match="more than 4096 jobs"):
        check_custom_job(wide + "[c]\nrw=read\n")
    with pytest.raises(ValueError, match="line 2: longer than 4096 characters"):
        check_custom_job("[j]\nrw=read" + " " * 5000 + "x\n")
    with pytest.raises(ValueError, match="at most 4194304 characters"):
        check_custom_job("[j]\n" + "#" * (5 << 20))
