"""Pure parsers for what smartctl says about a self-test: the answer to `smartctl -n standby -t
short|long DEV`, and a running test's progress in `smartctl -a` (ATA "Self-test execution
status", NVMe "Self-test status") or `smartctl -j` (`ata_smart_data.self_test.status`,
`nvme_self_test_log`).

smartctl's exit status is a bitmask: bit 1 (2) with "Device is in STANDBY mode" means the
drive slept and nothing was done, which is "asleep, tried again later", never a failure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

# Sample: Device is in STANDBY mode, exit(2)
_ASLEEP = re.compile(r"^Device is in (?P<mode>STANDBY|SLEEP)\b.*$", re.M)
# Sample: Testing has begun.                   (ATA)
# Sample: Self-test has begun                  (NVMe, smartctl 7.x)
# Sample: Extended Background Self Test has begun   (SCSI)
_BEGUN = re.compile(r"^.*\bhas begun\b.*$", re.M | re.I)
# Sample: Can't start self-test without aborting current test (30% remaining),
_BUSY = re.compile(r"^Can't start self-test without aborting current test.*$", re.M)
# Sample: Self-test execution status:      ( 243) Self-test routine in progress...
_ATA_STATUS = re.compile(r"^Self-test execution status:\s+\(\s*(?P<code>\d+)\)\s*(?P<text>.*)$")
# Sample:                                         30% of test remaining.
_ATA_REMAINING = re.compile(r"^\s*(?P<percent>\d{1,3})% of test remaining")
# Sample: # 1  Extended offline    Completed: read failure       90%     30649         293776
_ATA_LOG_ROW = re.compile(
    r"^#\s*1\s+(?P<kind>\S.*?)\s{2,}(?P<status>\S.*?)\s+(?P<left>\d{1,3})%\s+(?:\d+|-)\s+\S+\s*$"
)
# Sample: Self-test status: Extended self-test in progress (28% completed)
_NVME_STATUS = re.compile(r"^Self-test status:\s+(?P<text>.*?)\s*$")
# Sample: (28% completed)
_NVME_DONE = re.compile(r"\((?P<percent>\d{1,3})% completed\)")


class StartOutcome(StrEnum):
    """What `smartctl -t` did."""

    STARTED = "started"
    ASLEEP = "asleep"  # standby: nothing done, tried again when awake
    BUSY = "busy"  # a test already runs
    FAILED = "failed"  # refused, unsupported, no such device, missing smartctl


@dataclass(frozen=True, slots=True)
class StartAnswer:
    """smartctl's answer to a start, and the one line that says so."""

    outcome: StartOutcome
    line: str


@dataclass(frozen=True, slots=True)
class Progress:
    """A test's progress as the drive reports it.

    Attributes:
        running: a test runs now (None: the report does not say).
        remaining_percent: how much of it is left, when running and known.
        line: the drive's own words ("Self-test routine in progress...").
        passed: how the last test ended, when the report says (ATA's status code does: 0
            passed, 1-2 aborted or interrupted (None), 3-8 a failure); None otherwise.
    """

    running: bool | None
    remaining_percent: int | None = None
    line: str = ""
    passed: bool | None = None


UNKNOWN_PROGRESS = Progress(None)


# smartctl's banner and closing usage hint, never its reason for refusing
# Sample: smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0-25-amd64] (local build)
# Sample: Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org
# Sample: Use smartctl -h to get a usage summary
_BOILERPLATE = re.compile(r"^(?:smartctl \d+\.\d+\b|Copyright \(C\)|Use smartctl -h\b)")


def _reason(text: str) -> str:
    """smartctl's own words for not starting, without its banner and usage hint ("/dev/sdb:
    Unknown USB bridge [0x0bda:0x9201 (0xf200)]; Please specify device type with the -d
    option.")."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    said = [line for line in lines if not _BOILERPLATE.match(line)]
    return "; ".join(said)[:300] if said else (lines[-1] if lines else "no output")


def start_answer(returncode: int | None, stdout: str, stderr: str = "") -> StartAnswer:
    """What `smartctl -n standby -t KIND DEV` did, from its exit status and output."""
    if (match := _ASLEEP.search(stdout)) is not None:
        return StartAnswer(StartOutcome.ASLEEP, match.group().strip())
    if (match := _BUSY.search(stdout)) is not None:
        return StartAnswer(StartOutcome.BUSY, match.group().strip().rstrip(","))
    if returncode is not None and returncode & 0x03 == 0 and (m := _BEGUN.search(stdout)):
        return StartAnswer(StartOutcome.STARTED, m.group().strip())
    return StartAnswer(StartOutcome.FAILED, _reason(stderr or stdout))


def log_verdict(status: str) -> bool | None:
    """A self-test log status as pass (True), fail (False) or neither (aborted, running)."""
    words = status.strip().lower()
    if words.startswith("completed without error"):
        return True
    if words.startswith(("aborted", "interrupted", "self-test routine in progress")):
        return None
    if words.startswith("completed") or "fail" in words or "error" in words:
        return False
    return None


def _newest_logged(lines: list[str]) -> str | None:
    """The newest entry's status in the ATA self-test log of the same report."""
    for line in lines:
        match = _ATA_LOG_ROW.match(line.strip())
        if match is not None:
            return match["status"]
    return None


def _ata_progress(lines: list[str]) -> Progress | None:
    for i, line in enumerate(lines):
        match = _ATA_STATUS.match(line.strip())
        if match is None:
            continue
        code = int(match["code"])
        text = match["text"].strip()
        status = code >> 4  # ATA: the high nibble is the status, 15 "in progress"
        if status == 0x0F:
            follow = lines[i + 1] if i + 1 < len(lines) else ""
            found = _ATA_REMAINING.match(follow)
            remaining = int(found["percent"]) if found else (code & 0x0F) * 10
            return Progress(True, remaining, text)
        logged = _newest_logged(lines)
        if logged is not None:  # the log names the test; the status byte can disagree with it
            return Progress(False, None, logged, log_verdict(logged))
        passed = True if status == 0 else (False if 3 <= status <= 8 else None)
        return Progress(False, None, text, passed)
    return None


def _nvme_progress(lines: list[str]) -> Progress | None:
    for line in lines:
        match = _NVME_STATUS.match(line.strip())
        if match is None:
            continue
        text = match["text"]
        if text.lower().startswith("no self-test"):
            return Progress(False, None, text)
        done = _NVME_DONE.search(text)
        return Progress(True, 100 - int(done["percent"]) if done else None, text)
    return None


def text_progress(text: str) -> Progress:
    """A running test's progress from `smartctl -a`/`-c` text (unknown when it says nothing)."""
    lines = text.splitlines()
    return _ata_progress(lines) or _nvme_progress(lines) or UNKNOWN_PROGRESS


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def json_progress(text: str) -> Progress:
    """A running test's progress from `smartctl -j -a` (unknown when it says nothing)."""
    try:
        data = _dict(json.loads(text))
    except ValueError:
        return UNKNOWN_PROGRESS
    ata = _dict(_dict(_dict(data.get("ata_smart_data")).get("self_test")).get("status"))
    if ata:
        value = ata.get("value")
        remaining = ata.get("remaining_percent")
        running = isinstance(value, int) and value >> 4 == 0x0F
        left = remaining if isinstance(remaining, int) else None
        passed = ata.get("passed")
        verdict = passed if isinstance(passed, bool) and not running else None
        return Progress(running, left if running else None, str(ata.get("string", "")), verdict)
    nvme = _dict(data.get("nvme_self_test_log"))
    if nvme:
        operation = _dict(nvme.get("current_self_test_operation"))
        running = operation.get("value", 0) not in (0, None)
        done = nvme.get("current_self_test_completion_percent")
        left = 100 - done if running and isinstance(done, int) else None
        return Progress(running, left, str(operation.get("string", "")))
    return UNKNOWN_PROGRESS
