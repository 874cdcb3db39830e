"""The fan daemon in-process: control periods on the thermal plant (curve and PID), the
fail-safe when blind or when a write fails, the way out (restore on an exception and on
`--once`), configuration reloads, and the command's start-up checks on fake hwmon trees."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from nastui import exits
from nastui.collectors import runner
from nastui.config import Config, load_config
from nastui.config.fancontrol import FanConfig, FanDriver
from nastui.control.locate import NoLocator
from nastui.daemonlog import Log
from nastui.fans.flow.fand import FandOptions, run_fand, serve
from nastui.fans.flow.loop import FanDaemon
from nastui.fans.flow.rig import RiggedFan
from nastui.fans.flow.temps import refresh_temperatures
from nastui.fans.io import DriverError, FanWriter
from nastui.model import (
    CurvePoint,
    Drive,
    DriveIdentity,
    FanCurve,
    FanSource,
    FanZone,
    HostSnapshot,
    PowerState,
    Temperature,
    TempSource,
    ZoneMode,
)
from nastui.selftest.io.tester import SmartctlTester
from nastui.session import Session, Source
from nastui.sim.clock import FakeClock
from nastui.sim.plant import Plant, PlantSpec
from nastui.swap.io.machine import MachineSwap
from tests.fakehwmon import add_chip, add_coretemp, read
from tests.fakesys import SATA_PARENT, FakeDisk, build

CURVE = FanCurve((CurvePoint(30, 20), CurvePoint(40, 50), CurvePoint(45, 100)))
ZONE = FanZone("drives", (FanSource.HOTTEST_DRIVE,), ZoneMode.CURVE, CURVE)
FAN = FanConfig("wall", FanDriver.COMMAND, "drives", set_command=("x", "{duty}"))
PERIOD = 10.0


class PlantBackend:
    """One drive whose temperature answers to the fans (nastui.sim.plant)."""

    def __init__(self, plant: Plant, clock: FakeClock) -> None:
        self.plant = plant
        self.clock = clock
        self.blind = False
        self.broken = False
        self.swap = MachineSwap(Path("/"), runner.run)  # the Backend's capabilities, unused
        self.tester = SmartctlTester(runner.run)

    @property
    def host(self) -> str:
        return "plant"

    def collect_at_once(self) -> None:
        return None  # collected on the event loop, as the machine's

    async def collect(self) -> HostSnapshot:
        if self.broken:
            raise RuntimeError("collector bug")
        now = self.clock.now()
        temp = None if self.blind else Temperature(self.plant.reading(), now, TempSource.DRIVETEMP)
        drive = Drive("sda", DriveIdentity(serial="S1"), temperature=temp)
        return HostSnapshot("plant", now, drives=(drive,))


class PlantFan:
    """A fan whose duty is the plant's input; fails below `fail_below` percent if set."""

    def __init__(self, name: str = "wall", fail_below: float = -1) -> None:
        self.name = name
        self.duty = 50.0
        self.fail_below = fail_below
        self.restored = False
        self.writes: list[float] = []
        self.bios: str | None = None  # what a BIOS does to the fan every period, if anything
        self.held = 0

    async def set(self, duty: float) -> None:
        if duty < self.fail_below:
            raise DriverError("pwm2: Device or resource busy")
        self.duty = duty
        self.writes.append(duty)

    async def hold(self) -> str | None:
        self.held += 1
        return self.bios

    async def full(self) -> None:
        await self.set(100.0)

    async def restore(self) -> None:
        self.restored = True


def daemon(
    zone: FanZone = ZONE, fan: PlantFan | None = None, config: Config | None = None
) -> tuple[FanDaemon, PlantBackend, PlantFan]:
    clock = FakeClock()
    backend = PlantBackend(Plant(PlantSpec(noise_c=0.5), start_c=45.0, seed=1), clock)
    fan = fan or PlantFan()
    session = Session(
        config or Config(zones=(zone,), fans=(FAN,)), backend, clock, lambda: NoLocator("")
    )
    log = Log(io.StringIO())
    rig = [RiggedFan(FAN, fan)]
    d = FanDaemon(
        session, [zone], rig, builder=lambda c: PlantFan(c.name), writer=FanWriter(), log=log,
        period=PERIOD,
    )  # fmt: skip
    return d, backend, fan


async def run_periods(d: FanDaemon, backend: PlantBackend, fan: PlantFan, n: int) -> list[float]:
    """`n` periods of the plant under the daemon; the fan's duty after each."""
    trace: list[float] = []
    for _ in range(n):
        backend.clock.advance(PERIOD)
        backend.plant.step(fan.duty, PERIOD)
        await d.step()
        trace.append(fan.duty)
    return trace


async def test_curve_zone_settles_on_the_plant() -> None:
    d, backend, fan = daemon()
    trace = await run_periods(d, backend, fan, 720)  # two hours
    assert 36 < backend.plant.temp_c < 42
    last_hour = trace[-360:]
    assert len(fan.writes) < 100  # hysteresis: it does not write every period
    assert max(last_hour) - min(last_hour) <= 15


async def test_pid_zone_holds_the_set_point() -> None:
    pid = FanZone("drives", (FanSource.HOTTEST_DRIVE,), ZoneMode.PID, CURVE, setpoint_c=38.0)
    d, backend, fan = daemon(pid)
    await run_periods(d, backend, fan, 1440)
    assert abs(backend.plant.temp_c - 38.0) < 1.5


async def test_blind_zone_is_at_full_speed_in_the_same_period() -> None:
    d, backend, fan = daemon()
    await run_periods(d, backend, fan, 30)
    assert fan.duty < 100
    backend.blind = True
    await run_periods(d, backend, fan, 1)
    assert fan.duty == 100
    assert "zone drives: FAIL-SAFE 100 %: sda: no temperature" in d.log.lines
    backend.blind = False
    await run_periods(d, backend, fan, 5)
    assert fan.duty < 100  # seeing again, it comes down (rate-limited)


async def test_a_failed_write_falls_back_to_full_speed_and_is_logged_once() -> None:
    fan = PlantFan(fail_below=99)
    d, backend, _ = daemon(fan=fan)
    trace = await run_periods(d, backend, fan, 120)
    assert set(trace) == {100.0}
    errors = [line for line in d.log.lines if "write failed" in line]
    assert errors == ["fan wall: write failed: pwm2: Device or resource busy; trying full speed"]


async def test_a_fan_taken_back_every_period_is_logged_first_then_counted() -> None:
    fan = PlantFan()
    d, backend, _ = daemon(fan=fan)
    d.monotonic = backend.clock.now  # the periods' own clock paces the counts
    backend.blind = True  # a fail-safe at 100 %: the duty never changes
    await run_periods(d, backend, fan, 3)
    holds = fan.held
    assert holds >= 1  # an unchanged duty is held every period
    fan.bios = "pwm2_enable=5, pwm2=60"
    await run_periods(d, backend, fan, 13)  # 130 s of a BIOS taking it back every period
    fan.bios = None
    await run_periods(d, backend, fan, 2)
    assert await serve(d, once=True) == exits.OK  # and the way out
    taken = [line for line in d.log.lines if "taken back" in line]
    assert taken[0] == "fan wall: taken back (found pwm2_enable=5, pwm2=60); set again"
    assert taken[1] == (
        "fan wall: taken back 6 more times in 60 s (found pwm2_enable=5, pwm2=60); "
        "set again each time"
    )
    assert taken[2].startswith("fan wall: taken back 6 more times in 60 s")
    assert len(taken) == 3  # nothing left to tell at the end: the counts went out
    assert fan.held > holds + 13


async def test_the_count_of_corrections_is_told_when_the_daemon_stops() -> None:
    fan = PlantFan()
    d, backend, _ = daemon(fan=fan)
    d.monotonic = backend.clock.now
    backend.blind = True
    await run_periods(d, backend, fan, 3)
    fan.bios = "pwm2_enable=2, pwm2=''"
    await run_periods(d, backend, fan, 3)
    await d.restore_all()
    assert [line for line in d.log.lines if "taken back" in line] == [
        "fan wall: taken back (found pwm2_enable=2, pwm2=''); set again",
        "fan wall: taken back 2 more times in 20 s (found pwm2_enable=2, pwm2=''); "
        "set again each time",
    ]


async def test_an_exception_gives_the_fans_back() -> None:
    d, backend, fan = daemon()
    backend.broken = True
    assert await serve(d) == exits.EX_SOFTWARE
    assert fan.restored
    assert any("internal error: RuntimeError: collector bug" in line for line in d.log.lines)


async def test_once_runs_one_period_and_gives_the_fans_back() -> None:
    d, _, fan = daemon()
    assert await serve(d, once=True) == exits.OK
    assert fan.writes and fan.restored
    assert d.log.lines[-1] == "fand: stopped (exit 0)"


CONFIG = """\
# fans of the test box
[[zone]]
name = "drives"  # hottest drive
curve = [[30, 20], [40, 50], [45, 100]]

[[fan]]
name = "wall"
driver = "command"
zone = "drives"
set_command = ["x", "{duty}"]
"""


async def test_the_configuration_file_is_reloaded_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    d, _, fan = daemon(config=load_config(path))
    await d.check_config()
    assert not any("reloaded" in line for line in d.log.lines)
    path.write_text(CONFIG.replace("[40, 50]", "[40, 70]"))
    await d.check_config()
    assert d.zones["drives"].zone.curve.points[1] == CurvePoint(40, 70)
    assert d.log.lines[-1] == f"configuration reloaded from {path}"
    assert d.fans[0].driver is fan  # same fan output: the driver (and its state) stays
    path.write_text(CONFIG.replace("[40, 50]", "[40, 'x']"))
    await d.check_config()
    assert d.zones["drives"].zone.curve.points[1] == CurvePoint(40, 70)  # the running one
    assert d.log.lines[-1].startswith("configuration not reloaded, keeping the running one:")
    await d.check_config(forced=True)  # SIGHUP: tried again even without a change
    assert d.log.lines[-1].startswith("configuration not reloaded")


async def test_a_fan_with_another_output_is_rebuilt_and_the_old_one_given_back() -> None:
    d, _, fan = daemon()
    moved = FanConfig("wall", FanDriver.COMMAND, "drives", set_command=("y", "{duty}"))
    extra = FanConfig("rear", FanDriver.COMMAND, "drives", set_command=("z", "{duty}"))
    await d.apply(Config(zones=(ZONE,), fans=(moved, extra)))
    assert fan.restored
    assert [f.config.name for f in d.fans] == ["wall", "rear"]
    assert d.fans[0].driver is not fan
    await d.apply(Config(zones=(ZONE,), fans=(moved,)))
    assert [f.config.name for f in d.fans] == ["wall"]


def fake_box(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "root"
    build(root, [FakeDisk("sda", SATA_PARENT.format(n=0), temp_millic=41000)])
    hwmon = add_chip(root, fans={2: 1100}, pwms={2: (100, 5)})
    config = tmp_path / "config.toml"
    config.write_text(
        '[[zone]]\nname = "drives"\ncurve = [[30, 20], [40, 50], [45, 100]]\n\n'
        '[[fan]]\nname = "front"\ndriver = "hwmon"\nzone = "drives"\n'
        'hwmon_name = "nct6779"\nhwmon_device = "/sys/devices/platform/nct6775.656"\npwm = 2\n'
    )
    return root, config, hwmon


def fand(root: Path, config: Path, options: FandOptions) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_fand(options, Source(root=root, config=config), {}, out, err)
    return code, out.getvalue(), err.getvalue()


def test_once_with_dry_run_writes_nothing(tmp_path: Path) -> None:
    root, config, hwmon = fake_box(tmp_path)
    code, out, _ = fand(root, config, FandOptions(once=True, dry_run=True))
    assert code == exits.OK
    assert (read(hwmon / "pwm2_enable"), read(hwmon / "pwm2")) == ("5", "100")
    assert "zone drives: 60 % (curve at 41.0 C (hottest drive sda 41 C))" in out
    assert f"fan front: - -> 60 % [dry run: {hwmon.resolve()}/pwm2_enable = 1; " in out


def test_once_writes_and_gives_back(tmp_path: Path) -> None:
    root, config, hwmon = fake_box(tmp_path)
    code, out, _ = fand(root, config, FandOptions(once=True))
    assert code == exits.OK
    assert "fan front: - -> 60 %" in out and "fan front: restored" in out
    assert (read(hwmon / "pwm2_enable"), read(hwmon / "pwm2")) == ("5", "100")


def test_full_speed(tmp_path: Path) -> None:
    root, config, hwmon = fake_box(tmp_path)
    code, out, _ = fand(root, config, FandOptions(full_speed=True))
    assert code == exits.OK
    assert (read(hwmon / "pwm2_enable"), read(hwmon / "pwm2")) == ("1", "255")
    assert "hwmon nct6779 pwm2: full speed [" in out


def test_a_missing_chip_stops_the_start_before_any_write(tmp_path: Path) -> None:
    root, config, _ = fake_box(tmp_path)
    config.write_text(config.read_text().replace("nct6775.656", "it87.552"))
    code, out, err = fand(root, config, FandOptions())
    assert code == exits.EX_UNAVAILABLE
    assert err.startswith("nastui: fand: fan front: no hwmon chip nct6779 at /sys/devices/")
    assert out == ""


@pytest.mark.parametrize("text", ["", '[[zone]]\nname = "drives"\ncurve = [[30, 20]]\n'])
def test_nothing_to_control(tmp_path: Path, text: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    code, _, err = fand(tmp_path, config, FandOptions())
    assert code == exits.EX_CONFIG
    assert "nothing to control: no [[zone]] and [[fan]] tables in" in err
    assert err.rstrip().endswith(
        "`nastui config init -` prints the annotated example, with this box's fans"
    )


def test_a_bad_configuration_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[[zone]]\nname = "drives"\ncurve = "up"\n')
    with pytest.raises(exits.CommandExit) as raised:  # said once, by the command's runner
        fand(tmp_path, config, FandOptions())
    assert raised.value.code == exits.EX_CONFIG
    assert raised.value.message.startswith("nastui: config.toml:3:")
    assert "\n" not in raised.value.message


def test_demo_drafts_zones_for_the_simulated_fans() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = run_fand(FandOptions(once=True), Source(demo=True), {}, out, err)
    assert code == exits.OK
    lines = out.getvalue().splitlines()
    assert "5 fans in 2 zones" in lines[0] and "dry run" in lines[0]
    assert "zone drives: 50 % (curve at 40.0 C (hottest drive sdt 40 C))" in lines
    assert "fan rear-2: - -> 50 % [dry run: sim fan rear-2 = 50 %]" in lines


def test_journald_gets_priorities() -> None:
    out = io.StringIO()
    log = Log(out, {"JOURNAL_STREAM": "8:1234"})
    log.info("fine")
    log.warning("hot")
    log.error("broken")
    assert out.getvalue() == "<6>fine\n<4>hot\n<3>broken\n"
    assert log.lines == ["fine", "hot", "broken"]


def test_hwmon_temperatures_are_read_again_each_period(tmp_path: Path) -> None:
    build(
        tmp_path,
        [
            FakeDisk("sda", SATA_PARENT.format(n=0), temp_millic=39000),
            FakeDisk("sdb", SATA_PARENT.format(n=1), temp_millic=35000),
        ],
    )
    old = Temperature(30.0, 100.0, TempSource.DRIVETEMP)
    drives = (
        Drive("sda", DriveIdentity(serial="A"), temperature=old),
        Drive("sdb", DriveIdentity(serial="B"), temperature=Temperature(31, 100, TempSource.SMART)),
        Drive("sdc", DriveIdentity(serial="C"), power=PowerState.STANDBY, temperature=old),
        Drive("sdd", DriveIdentity(serial="D"), temperature=old),  # its hwmon chip is gone
    )
    fresh = refresh_temperatures(HostSnapshot("nas", 200.0, drives=drives), tmp_path, 200.0)
    temps = [d.temperature for d in fresh.drives]
    assert temps == [
        Temperature(39.0, 200.0, TempSource.DRIVETEMP),
        Temperature(31, 100, TempSource.SMART),  # not hwmon's: left to its own schedule
        old,  # asleep: left alone
        None,  # the reading vanished: the zone goes blind
    ]


def test_a_cpu_zone_follows_the_package_read_each_period(tmp_path: Path) -> None:
    root, config, _ = fake_box(tmp_path)
    add_coretemp(root, 62.0)
    config.write_text(
        config.read_text().replace('name = "drives"\n', 'name = "drives"\nsource = "cpu"\n', 1)
    )
    code, out, _ = fand(root, config, FandOptions(once=True, dry_run=True))
    assert code == exits.OK
    assert "zone drives: 100 % (curve at 62.0 C (CPU package 62 C))" in out


def test_fand_never_loads_textual() -> None:
    from tests.unit.test_import_hygiene import loaded_after

    code = (
        "import sys, io, contextlib\n"
        "sys.argv = ['nastui', 'fand', '--demo', '--once']\n"
        "from nastui.entry import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main() == 0\n"
    )
    loaded = loaded_after(code)
    assert not {m for m in loaded if m == "textual" or m.startswith(("textual.", "nastui.ui"))}


@pytest.mark.parametrize("period", ["0", "abc", "7200"])
def test_a_bad_period_is_a_usage_error(period: str, capsys: pytest.CaptureFixture[str]) -> None:
    from nastui.entry import main

    with pytest.raises(SystemExit) as stopped:
        main(["fand", "--demo", "--period", period])
    assert stopped.value.code == exits.EX_USAGE
    assert "--period" in capsys.readouterr().err
