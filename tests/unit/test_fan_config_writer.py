"""Saving an edited zone into the configuration file: comments, blank lines and key order
survive; a zone not in the file is appended; nothing is written unless the result loads."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from nastui.config import ConfigError, load_config
from nastui.config.writer import save_zone, updated_text
from nastui.model import CurvePoint, FanCurve, FanSource, FanZone, ZoneMode

CONFIG = """\
# nano's fans: keep these notes
hostname = "nano"

[[zone]]
# the drive cage: aim at 40 degrees, like the old script
name = "drives"    # the zone the wall fans follow
curve = [[30, 20], [40, 50], [45, 100]]  # tuned in May
hysteresis = 2     # no flapping
min_duty = 20

[[zone]]
name = "cpu"
source = "cpu"
mode = "pid"
setpoint = 60

[[fan]]
name = "front-wall"  # three 120 mm on one header
driver = "command"
zone = "drives"
set_command = ["/usr/local/bin/set-blower", "{duty}"]
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    path.chmod(0o640)
    return path


def edited(path: Path) -> FanZone:
    zone = load_config(path).zones[0]
    curve = FanCurve(
        (CurvePoint(30, 25), CurvePoint(41.5, 60), CurvePoint(46, 100)),
        hysteresis_c=3.5,
        min_duty=25,
    )
    return dataclasses.replace(zone, curve=curve)


def test_only_the_values_change(config_file: Path) -> None:
    config = save_zone(config_file, edited(config_file))
    text = config_file.read_text()
    assert text == CONFIG.replace(
        "curve = [[30, 20], [40, 50], [45, 100]]", "curve = [[30, 25], [41.5, 60], [46, 100]]"
    ).replace("hysteresis = 2 ", "hysteresis = 3.5 ").replace("min_duty = 20", "min_duty = 25")
    assert config.zones[0].curve.points[1] == CurvePoint(41.5, 60)
    assert load_config(config_file) == config
    assert config_file.stat().st_mode & 0o777 == 0o640


def test_a_zone_not_in_the_file_is_appended(config_file: Path) -> None:
    draft = FanZone(
        "exhaust", (FanSource.HOTTEST_DRIVE,), ZoneMode.CURVE, FanCurve((CurvePoint(30, 30),))
    )
    config = save_zone(config_file, draft)
    assert [z.name for z in config.zones] == ["drives", "cpu", "exhaust"]
    text = config_file.read_text()
    assert text.startswith(CONFIG.split("[[fan]]", 1)[0])  # everything before stays as it was
    assert '[[zone]]\nname = "exhaust"\nsource = "hottest-drive"\ncurve = [[30, 30]]' in text
    assert "# three 120 mm on one header" in text


def test_a_file_without_zones_gets_its_first(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# only a comment\n")
    pid = FanZone(
        "cpu",
        (FanSource.CPU, FanSource.HOTTEST_DRIVE),
        ZoneMode.PID,
        FanCurve((CurvePoint(30, 20),)),
    )
    config = save_zone(path, pid)
    assert config.zones[0].sources == (FanSource.CPU, FanSource.HOTTEST_DRIVE)
    assert config.zones[0].mode is ZoneMode.PID
    assert path.read_text().startswith("# only a comment\n")


def test_a_result_that_would_not_load_is_not_written(config_file: Path) -> None:
    falling = dataclasses.replace(
        edited(config_file), curve=FanCurve((CurvePoint(30, 60), CurvePoint(40, 20)))
    )
    with pytest.raises(ConfigError, match="duty must not fall"):
        save_zone(config_file, falling)
    assert config_file.read_text() == CONFIG


def test_unreadable_or_odd_files(tmp_path: Path) -> None:
    zone = FanZone("z", (), ZoneMode.CURVE, FanCurve(()))
    with pytest.raises(ConfigError, match=r"cannot read /.*/missing\.toml: No such file"):
        save_zone(tmp_path / "missing.toml", zone)
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)  # refused at once: no writer is waited for, nothing is written into it
    with pytest.raises(ConfigError, match="is a FIFO, not a regular file"):
        save_zone(fifo, zone)
    with pytest.raises(ConfigError, match="cannot update"):
        save_zone(_written(tmp_path / "flat.toml", '[zone]\nname = "z"\n'), zone)
    with pytest.raises(ValueError, match=r"\[\[zone\]\]"):
        updated_text('[zone]\nname = "x"\n', FanZone("x", (), ZoneMode.CURVE, FanCurve(())))


def _written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_directory_we_cannot_create_in_is_written_in_place(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(**_: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    save_zone(config_file, edited(config_file))
    assert "[41.5, 60]" in config_file.read_text()
    assert "# tuned in May" in config_file.read_text()
