"""`nastui swap` walked on the simulator, in process: plan, start, a wrong pull caught, the
pull, a used and a too-small drive refused, the right one confirmed, the rebuild followed to
the end, a second failure mid-rebuild, the log; and resuming from the state directory."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from nastui import exits
from nastui.cli.args import parse_args
from nastui.cli.main import run_headless
from nastui.sim.swap import new_serial


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path))
    monkeypatch.delenv("NASTUI_CONFIG", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def nastui(*argv: str, scenario: str = "failing-drive") -> tuple[int, str]:
    out = io.StringIO()
    code = run_headless(parse_args(["--scenario", scenario, *argv]), out)
    return code, out.getvalue()


def test_plan_of_the_failing_drive(state: Path) -> None:
    code, text = nastui("swap", "plan", "10")
    assert code == exits.OK
    assert "raidz3 of 24; can lose 2 more once it is out" in text
    assert "zpool offline storage ata-HGST_HUS724040ALA640_" in text
    code, text = nastui("swap", "plan", "10", "--json")
    data = json.loads(text)
    assert data["pool"] == "storage" and data["in_place"] is False
    assert [c["argv"][:2] for c in data["commands"]] == [
        ["zpool", "offline"],
        ["zpool", "replace"],
    ]
    assert data["needs"]["sectors"] == {"logical": 512, "physical": 4096}
    assert not (state / "demo").exists() or not any((state / "demo").rglob("swap.json"))


def test_a_whole_swap_with_mistakes_on_the_way(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert nastui("swap", "start", "10")[0] == exits.OK
    code, text = nastui("swap", "start", "11")
    assert code == exits.EX_USAGE  # one swap at a time
    # the wrong drive is pulled: CRITICAL naming the bay, until it is back
    nastui("swap", "sim", "pull", "11")
    code, text = nastui("swap")
    assert code == exits.CRITICAL
    assert "WRONG DRIVE PULLED: bay 11" in text
    code, text = nastui("status")
    assert code == exits.CRITICAL
    assert "CRITICAL WRONG DRIVE PULLED: bay 11" in text
    assert "swap in progress: bay 10 HGST HUS724040ALA640" in text
    # status names the pull with the daemon's key (one key for one event, on every surface)
    keys = {a["key"]: a["health"] for a in json.loads(nastui("status", "--json")[1])["alerts"]}
    assert keys.get("swap:wrong-pull:11") == "CRITICAL" and "bay:11:missing" not in keys, keys
    nastui("swap", "sim", "insert", "11", "--variant", "old")
    code, text = nastui("swap")
    assert code == exits.OK and "swap prepared" in text
    # the right one goes; a used drive comes in and is refused
    nastui("swap", "sim", "pull", "10")
    nastui("swap", "sim", "insert", "10", "--variant", "used")
    code, text = nastui("swap")
    assert "swap inserted" in text and "BLOCKS: in use: holder md127" in text
    assert "31,412 power-on hours" in text
    used = new_serial(10, "used", 1)
    code, _ = nastui("swap", "replace", "--confirm", used)
    assert code == exits.EX_USAGE
    assert "cannot be used" in capsys.readouterr().err
    # too small next, then a good one, confirmed by the wrong serial first
    nastui("swap", "sim", "pull", "10")
    nastui("swap", "sim", "insert", "10", "--variant", "small")
    assert "too small" in nastui("swap")[1]
    nastui("swap", "sim", "pull", "10")
    nastui("swap", "sim", "insert", "10")
    good = new_serial(10, "new", 3)
    assert good in nastui("swap")[1]
    assert nastui("swap", "replace", "--confirm", "WRONG")[0] == exits.EX_USAGE
    code, text = nastui("swap", "replace", "--confirm", good)
    assert code == exits.OK
    assert "zpool replace storage ata-HGST_HUS724040ALA640_" in text
    assert f"/dev/disk/by-id/ata-HGST_HUS724040ALA640_{good}" in text
    # the rebuild runs; a second drive fails in the middle of it
    nastui("swap", "sim", "wait", "3600")
    code, text = nastui("swap")
    assert "swap rebuilding" in text and "left" in text
    nastui("swap", "sim", "fail", "3")
    code, text = nastui("swap")
    assert code == exits.CRITICAL and "another member of storage is down" in text
    nastui("swap", "sim", "wait", "40000")
    code, text = nastui("swap")
    assert "swap done" in text and "still down" in text
    code, text = nastui("swap", "log")
    assert "bay 10  storage  done: HGST HUS724040ALA640" in text and good in text
    assert nastui("swap")[1].startswith("no swap in progress")


def test_the_in_place_way_on_the_mixed_box(state: Path) -> None:
    code, text = nastui("swap", "plan", "1", scenario="mixed")
    assert code == exits.OK
    assert "way: in place" in text
    assert nastui("swap", "start", "1", scenario="mixed")[0] == exits.OK
    status = nastui("swap", "status", "--json", scenario="mixed")[1]
    assert json.loads(status)["swap"]["phase"] == "prepared"


def test_a_drive_already_gone_is_found_by_its_bay_serial(state: Path) -> None:
    nastui("swap", "sim", "pull", "10")
    code, text = nastui("swap", "plan", "10")
    assert code == exits.OK
    assert text.startswith("bay 10: (gone) ? PK")
    assert "REMOVED" in text and "nothing to prepare" in text
    assert "zpool offline" not in text
    code, text = nastui("swap", "start", "10")
    assert code == exits.OK and "swap pulled" in text


def test_refused_start_and_abort(state: Path) -> None:
    assert nastui("swap", "abort")[1] == "no swap in progress\n"
    nastui("swap", "start", "10")
    code, text = nastui("swap", "abort")
    assert code == exits.OK and "swap aborted" in text
    assert "aborted" in nastui("swap", "log")[1]


def test_sim_hands_need_the_demo(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = nastui("swap", "sim", "pull", "99")
    assert code == exits.EX_USAGE and "no bay 99" in capsys.readouterr().err


def test_done_rebinds_the_bay_in_the_configuration(state: Path) -> None:
    config = state / "config.toml"
    config.write_text(
        '[chassis]\npreset = "rv-4324"\n\n[[chassis.bay]]\nbay = 10  # keep me\n'
        'serial = "PK1331PLPX28B6"\n'
    )
    with_config = ("--config", str(config))
    nastui(*with_config, "swap", "start", "10")
    nastui(*with_config, "swap", "sim", "pull", "10")
    nastui(*with_config, "swap", "sim", "insert", "10")
    good = new_serial(10, "new", 0)
    assert good in nastui(*with_config, "swap")[1]
    assert nastui(*with_config, "swap", "replace", "--confirm", good)[0] == exits.OK
    nastui(*with_config, "swap", "sim", "wait", "40000")
    _, text = nastui(*with_config, "swap")
    assert "swap done" in text
    assert f"bay 10 now bound to serial {good}" in text
    assert config.read_text().endswith(f'bay = 10  # keep me\nserial = "{good}"\n')
