"""The lab's fixtures: one booted guest for the whole session (booting costs about a minute
under emulation), and what each scenario cost, printed at the end.

`make lab` runs the CI set; `make lab-full` (NASTUI_LAB_FULL=1) adds the scenarios marked
`full` and a second guest running OpenZFS 2.1.11.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import STRICT
from tests.lab import kernel
from tests.lab.guest import Guest, prune_runs
from tests.lab.qemu import SCSI_SLOT, default_bays

FULL = os.environ.get("NASTUI_LAB_FULL") == "1"
_COSTS: list[tuple[str, float]] = []


def ata_path(port: int) -> str:
    """The by-path name udev gives the disk on AHCI port `port` (0-based)."""
    return f"pci-0000:00:10.0-ata-{port + 1}"


def scsi_path(target: int) -> str:
    """The by-path name udev gives the disk at SCSI target `target`."""
    return f"pci-0000:00:{SCSI_SLOT:02x}.0-scsi-0:0:{target}:0"


def bay_path(bay: int) -> str:
    """The by-path name of a lab bay (1-6 AHCI ports, 7-12 SCSI targets)."""
    return ata_path(bay - 1) if bay <= 6 else scsi_path(bay - 7)


def lab_config() -> str:
    """The guest's nastui configuration: a 12-bay 2U, every bay bound by its controller path."""
    bays = "".join(
        f'[[chassis.bay]]\nbay = {b.number}\nby_path = "{bay_path(b.number)}"\n\n'
        for b in default_bays()
    )
    return (
        'hostname = "nastui-lab"\n\n[chassis]\npreset = "2u-12"\nfirst = 1\n\n'
        f"{bays}[poll]\ncommand_timeout = 120\n\n"
        # `btrfs filesystem show` reads every disk's superblock at each poll: behind a scrub
        # on throttled bays it stalled past the timeout (reported; the btrfs swap turns it on)
        "[collectors]\nbtrfs = false\n"
    )


# The scenarios in the order of value: if the time runs out, the first ones ran.
ORDER = ("test_zfs", "test_md", "test_smart", "test_swap", "test_bays", "test_guard")


def _rank(item: pytest.Item) -> int:
    module = item.module.__name__.rsplit(".", 1)[-1] if isinstance(item, pytest.Function) else ""
    return ORDER.index(module) if module in ORDER else len(ORDER)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Scenarios in ORDER (a stable sort: file order inside a module); outside `make
    lab-full` the scenarios marked `full` are deselected (not skipped: under
    NASTUI_REQUIRE_INTEGRATION=1 a skip fails)."""
    items.sort(key=_rank)
    if FULL:
        return
    kept = [i for i in items if i.get_closest_marker("full") is None]
    dropped = [i for i in items if i.get_closest_marker("full") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _require_lab(*, zfs21: bool = False) -> kernel.Kernel:
    lacks = kernel.missing(zfs21=zfs21)
    if lacks:
        message = "the lab cannot run: " + "; ".join(lacks)
        if STRICT:
            pytest.fail(message)
        pytest.skip(message)
    found = kernel.find_kernel()
    assert found is not None
    return found


def _booted(name: str, found: kernel.Kernel, **options: object) -> Iterator[Guest]:
    prune_runs()
    guest = Guest(name, found, config=lab_config(), **options)  # type: ignore[arg-type]
    try:
        guest.boot()
        _COSTS.append((f"boot {name} (to udev settled and ZFS loaded)", guest.boot_seconds or 0))
        yield guest
    finally:
        guest.shutdown()
        print(f"\nlab results of {name}: {guest.run_dir}")


@pytest.fixture(scope="session")
def lab() -> Iterator[Guest]:
    """The lab guest with the host's OpenZFS (2.3 from bookworm-backports)."""
    yield from _booted("main", _require_lab())


@pytest.fixture(scope="session")
def lab21() -> Iterator[Guest]:
    """A second guest running OpenZFS 2.1.11 (module and userland), for `make lab-full`."""
    yield from _booted("zfs21", _require_lab(zfs21=True), zfs_root=kernel.ZFS21_ROOT)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each scenario's cost: its set-up (building the stack; the first one also boots) when
    it took a while, and its run."""
    name = report.nodeid.split("::", 1)[-1]
    if report.when == "call" or (report.when == "setup" and report.duration > 5):
        _COSTS.append((name if report.when == "call" else f"set-up of {name}", report.duration))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _COSTS:
        return
    terminalreporter.section("lab: what each part cost (wall seconds)")
    for what, seconds in _COSTS:
        terminalreporter.write_line(f"{seconds:7.1f}  {what}")
    total = sum(s for what, s in _COSTS if not what.startswith("boot"))  # boots are in set-ups
    terminalreporter.write_line(f"{total:7.1f}  in all")


def results(guest: Guest) -> Path:
    """The run's results directory on the host (kept after the run)."""
    return guest.share
