"""The swap's burn-in on real loop devices: badblocks and fio write-and-verify pass on a blank
one; a device carrying a filesystem, and one held exclusively by someone else, are refused
with nothing written (the image's checksum unchanged)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.swap.io import burnin
from nastui.swap.io.burnin import burn_in
from nastui.swap.logic.burnin import BADBLOCKS, FIO, burnin_argv
from tests.blocklab import attached, image, refused_to_us
from tests.conftest import STRICT, require_tool

pytestmark = pytest.mark.integration

MIB = 1024 * 1024
ROOT = Path("/")


def sh(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=120).stdout


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A 16 MiB loop device of its own (and its image), detached whatever happens."""
    for tool, package in (("losetup", "util-linux"), ("badblocks", "e2fsprogs"), ("fio", "fio")):
        require_tool(tool, package)
    if os.geteuid() != 0:
        (pytest.fail if STRICT else pytest.skip)("loop devices need root")
    image = tmp_path / f"burnin-{os.getpid()}.img"
    with image.open("wb") as f:
        f.truncate(16 * MIB)
    device = sh("losetup", "-f", "--show", str(image)).strip()
    try:
        yield device, image
    finally:
        subprocess.run(["losetup", "-d", device], check=False, capture_output=True)


def digest(image: Path) -> str:
    os.sync()
    return hashlib.sha256(image.read_bytes()).hexdigest()


@pytest.mark.parametrize("tool", [BADBLOCKS, FIO])
def test_a_blank_drive_passes(loop: tuple[str, Path], tool: str) -> None:
    device, image = loop
    done = asyncio.run(burn_in(device, tool, root=ROOT, timeout=600))
    assert done.passed and not done.refused, done.text
    assert done.argv[0] == tool and device in " ".join(done.argv)
    result, _, unseen = done.text.partition("; ")
    # a process the guard could not look into is said after the result, never a refusal
    assert ("pid 1 (" in unseen) is refused_to_us(1), done.text
    assert unseen == "" or unseen.startswith("could not look into "), done.text
    if tool == BADBLOCKS:  # its last pattern is 0x00: the image ends as zeros as it began
        assert result == "0 bad blocks (0/0/0 read/write/compare errors)"
    else:
        assert result.startswith(f"{16 * MIB} bytes written, {16 * MIB} read back")
        assert digest(image) != hashlib.sha256(bytes(16 * MIB)).hexdigest()  # it did write


def test_a_drive_with_a_filesystem_is_refused(loop: tuple[str, Path]) -> None:
    require_tool("mkfs.ext4", "e2fsprogs")
    device, image = loop
    sh("mkfs.ext4", "-q", "-F", device)
    before = digest(image)
    done = asyncio.run(burn_in(device, BADBLOCKS, root=ROOT, timeout=600))
    assert done.refused and not done.passed
    assert done.text.startswith(f"{device} is in use, nothing written: ")
    assert "ext4" in done.text
    assert digest(image) == before


def test_a_drive_held_by_someone_else_is_refused(loop: tuple[str, Path]) -> None:
    device, image = loop
    before = digest(image)
    held = os.open(device, os.O_RDONLY | os.O_EXCL)  # as a mount or an md array holds it
    try:
        done = asyncio.run(burn_in(device, FIO, root=ROOT, timeout=600))
    finally:
        os.close(held)
    assert done.refused and not done.passed
    assert "busy" in done.text and "nothing written" in done.text
    assert digest(image) == before


def test_a_loop_over_the_drive_during_the_burn_in_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The burn-in writes for hours: the benchmark's watch looks at the drive's footprint all
    along, and a loop device set up over the drive meanwhile stops the tool at once. The tool
    is given the held descriptor's path, never the name (which could be swapped). fio is
    slowed to 2 MB/s here, so the run lasts until the watch stops it, however fast the disk."""
    require_tool("fio", "fio")

    def slow(tool: str, device: str) -> tuple[str, ...]:
        return (*burnin_argv(tool, device), "--rate=2m")

    monkeypatch.setattr(burnin, "burnin_argv", slow)
    with attached(str(image(tmp_path / "t.img", 64))) as device:
        attack: dict[str, float | str] = {}

        def attach_it() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # fio has begun writing
                with (tmp_path / "t.img").open("rb") as f:
                    if f.read(4096) != bytes(4096):
                        break
                time.sleep(0.02)
            with attached("-o", "1M", device) as upper:
                attack["loop"], attack["at"] = Path(upper).name, time.monotonic()
                while "ended" not in attack:
                    time.sleep(0.05)

        threading.Thread(target=attach_it, daemon=True).start()
        done = asyncio.run(burn_in(device, FIO, root=ROOT, timeout=60))
        ended = time.monotonic()
        attack["ended"] = 1.0
        assert done.refused and not done.passed, done.text
        assert "came into use, fio stopped" in done.text, done.text
        assert str(attack["loop"]) in done.text
        assert device in " ".join(done.argv)
        late = ended - float(attack["at"])
        print(f"fio stopped {late:.2f} s after the loop device was set up")
        assert late < 10.0
