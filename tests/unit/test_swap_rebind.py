"""A finished swap rebinds its bay in the configuration file, comments kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nastui.config import ConfigError
from nastui.config.baybind import rebind, rebind_text

TEXT = """# my NAS
[chassis]
preset = "rv-4324"

[[chassis.bay]]
bay = 10   # the one that keeps failing
serial = "PK1331PLPX28B6"

[[chassis.bay]]
bay = 11
by_path = "pci-0000:01:00.0-sas-phy3-lun-0"
"""


def test_rebind_changes_only_the_serial() -> None:
    new = rebind_text(TEXT, 10, "pk1331plpx28b6", "SIMNEW10A")
    assert new == TEXT.replace('"PK1331PLPX28B6"', '"SIMNEW10A"')


def test_a_bay_bound_otherwise_or_to_another_serial_is_left_alone() -> None:
    assert rebind_text(TEXT, 11, "X", "Y") is None
    assert rebind_text(TEXT, 10, "SOMEONE-ELSE", "Y") is None
    assert rebind_text(TEXT, 12, "PK1331PLPX28B6", "Y") is None
    assert rebind_text("[chassis]\npreset = 'rv-4324'\n", 10, "A", "B") is None


def test_rebind_writes_the_file_and_checks_it(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(TEXT)
    config = rebind(path, 10, "PK1331PLPX28B6", "SIMNEW10A")
    assert config is not None
    assert 'serial = "SIMNEW10A"' in path.read_text()
    assert "# the one that keeps failing" in path.read_text()
    with pytest.raises(ConfigError):
        rebind(tmp_path / "missing.toml", 10, "A", "B")


def test_a_fifo_where_the_configuration_was_is_refused_not_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    os.mkfifo(path)
    with pytest.raises(ConfigError, match="is a FIFO, not a regular file"):
        rebind(path, 10, "PK1331PLPX28B6", "SIMNEW10A")
