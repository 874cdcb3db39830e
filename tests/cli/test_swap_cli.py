"""`nastui swap` walked on the simulator, in process: plan, start, a wrong pull caught, the
pull, a used and a too-small drive refused, the right one confirmed, the rebuild followed to
the end, a second failure mid-rebuild, the log; and resuming from the state directory.

The locate LED: lit from `swap start` through the pull until the new drive is found (the
operator, drive in hand, looks for the bay to fill), lit again when that drive is taken out,
out while the pool rebuilds onto the new drive; every way out puts it out or says it was left
lit and how to put it out; a failed LED write never stops the swap; a swap file kept by an
earlier nastui (lit until done) still gets it put out."""

from __future__ import annotations

import asyncio
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from nastui import exits
from nastui.cli.args import parse_args
from nastui.cli.main import run_headless
from nastui.model import LocateResult
from nastui.session import Source, open_session
from nastui.sim.backend import SimBackend
from nastui.sim.clock import FakeClock
from nastui.sim.hands import Hand, Hands
from nastui.sim.locate import SimLocator
from nastui.sim.swap import SimSwap, new_serial
from nastui.swap.flow.status import alerts_with_swap
from nastui.swap.logic.argv import Ran
from nastui.swap.logic.codec import FORMAT_VERSION
from nastui.swap.logic.names import Op


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
    (record,) = json.loads(nastui("swap", "log", "--json")[1])["swaps"]
    assert record["phase"] == "done" and record["new"]["serial"] == good
    assert nastui("swap")[1].startswith("no swap in progress")


def test_alert_list_names_a_swap_as_status_and_the_daemon_do(state: Path) -> None:
    """`nastui alert list` shows the alerts "as the daemon sends them": the swap's own bay out
    is the WARNING swap:bay-open, a wrong pull swap:wrong-pull, never bay:N:missing (it was:
    a key `alert ack` then looked for in vain)."""

    def keys() -> dict[str, str]:
        alerts = json.loads(nastui("alert", "list", "--json")[1])["alerts"]
        return {a["key"].removeprefix("nano/"): a["health"] for a in alerts if a["host"] == "nano"}

    nastui("swap", "start", "10")
    nastui("swap", "sim", "pull", "11")
    assert keys().get("swap:wrong-pull:11") == "CRITICAL" and "bay:11:missing" not in keys()
    nastui("swap", "sim", "insert", "11", "--variant", "old")
    nastui("swap", "sim", "pull", "10")
    assert keys().get("swap:bay-open:10") == "WARNING" and "bay:10:missing" not in keys()
    code, text = nastui("alert", "list")
    assert code == exits.OK and "WARN  nano/swap:bay-open:10" in text
    # acknowledged, it is acknowledged everywhere, as the daemon takes it
    assert nastui("alert", "ack", "swap:bay-open:10")[0] == exits.OK
    lines = nastui("alert", "list")[1].splitlines()
    assert lines[lines.index("WARN  nano/swap:bay-open:10") + 1].endswith("(acknowledged)")
    status = json.loads(nastui("status", "--json")[1])["alerts"]
    assert [a["acknowledged"] for a in status if a["key"] == "swap:bay-open:10"] == [True]


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


BAY = 10


def lit(scenario: str = "failing-drive") -> list[int]:
    """The bays whose locate LED is lit, as `nastui bays --json` shows them."""
    bays = json.loads(nastui("bays", "--json", scenario=scenario)[1])["bays"]
    return [b["bay"] for b in bays if b["led"] not in ("off", "unknown")]


def swap_json(scenario: str = "failing-drive") -> dict[str, object]:
    data = json.loads(nastui("swap", "status", "--json", scenario=scenario)[1])
    swap = data["swap"]
    assert isinstance(swap, dict)
    return swap


def new_serial_of(scenario: str = "failing-drive") -> str:
    new = swap_json(scenario)["new"]
    assert isinstance(new, dict)
    return str(new["serial"])


def events(swap: dict[str, object]) -> list[str]:
    rows = swap["events"]
    assert isinstance(rows, list)
    return [str(text) for _, text in rows]


def test_lit_from_the_pull_until_the_new_drive_is_in(state: Path) -> None:
    assert nastui("swap", "start", str(BAY))[0] == exits.OK
    assert lit() == [BAY]
    nastui("swap", "sim", "pull", str(BAY))
    assert swap_json()["phase"] == "pulled"
    assert lit() == [BAY]  # the operator, drive in hand, still sees the bay to fill
    nastui("swap", "sim", "insert", str(BAY))
    swap = swap_json()
    assert swap["phase"] == "inserted"
    assert lit() == []  # the new drive is found: out (the pool is rebuilt onto it next)
    assert swap["led"] is False
    assert f"the new drive is in: bay {BAY}: locate LED off (simulated)" in events(swap)
    # taken out again: the bay to fill is shown again; back in: out again
    nastui("swap", "sim", "pull", str(BAY))
    swap = swap_json()
    assert swap["phase"] == "pulled" and lit() == [BAY]
    assert f"the new drive is out again: bay {BAY}: locate LED on (simulated)" in events(swap)
    nastui("swap", "sim", "insert", str(BAY))
    assert swap_json()["phase"] == "inserted" and lit() == []
    # the rebuild onto the new drive and the end switch nothing more
    assert nastui("swap", "replace", "--confirm", new_serial_of())[0] == exits.OK
    assert lit() == []
    nastui("swap", "sim", "wait", "100000")
    assert "swap done" in nastui("swap")[1]
    assert lit() == []
    following = nastui("swap", "log")[1]
    assert "done" in following


def test_each_poll_leaves_the_led_alone(state: Path) -> None:
    nastui("swap", "start", str(BAY))
    nastui("swap", "sim", "pull", str(BAY))
    nastui("swap", "sim", "insert", str(BAY))
    for _ in range(3):
        nastui("swap")
    led_lines = [e for e in events(swap_json()) if "locate LED" in e]
    assert led_lines == [
        f"bay {BAY}: locate LED on (simulated)",
        f"the new drive is in: bay {BAY}: locate LED off (simulated)",
    ]


@pytest.mark.parametrize("pulled", [False, True])
def test_abort_before_the_new_drive_puts_it_out(state: Path, pulled: bool) -> None:
    nastui("swap", "start", str(BAY))
    if pulled:
        nastui("swap", "sim", "pull", str(BAY))
        nastui("swap")
    code, text = nastui("swap", "abort")
    assert code == exits.OK
    assert f"swap aborted: bay {BAY}: locate LED off (simulated)" in text
    assert lit() == []


def member_state() -> str:
    """The old drive's member in `nastui pools`: its state column."""
    text = nastui("pools")[1]
    line = next(line for line in text.splitlines() if line.rstrip().endswith(f" {BAY}"))
    return line.split()[1]


@pytest.mark.parametrize("pulled", [False, True])
def test_abort_before_the_pull_puts_the_member_back(state: Path, pulled: bool) -> None:
    """Aborting a prepared swap whose old drive is still in cancels it: the member goes back
    in service (its offline undone). After the pull, the pool is left as it is and the abort
    says how to put the member back once the drive is in again."""
    assert member_state() == "ONLINE"
    nastui("swap", "start", str(BAY))
    assert member_state() == "OFFLINE"
    if pulled:
        nastui("swap", "sim", "pull", str(BAY))
        nastui("swap")
    code, text = nastui("swap", "abort")
    assert code == exits.OK
    online = "zpool online storage ata-HGST_HUS724040ALA640_"
    if pulled:
        assert "undo:" not in text and "its member stays out of service" in text
        assert f"`{online}" in text
    else:
        assert f"undo: {online}" in text and "done (simulated)" in text
        assert member_state() == "ONLINE"
        assert "stays out of service" not in text


def test_abort_after_the_new_drive_has_nothing_to_put_out(state: Path) -> None:
    nastui("swap", "start", str(BAY))
    nastui("swap", "sim", "pull", str(BAY))
    nastui("swap", "sim", "insert", str(BAY))
    nastui("swap")
    code, text = nastui("swap", "abort")
    assert code == exits.OK and "swap aborted: no locate LED lit by the swap" in text
    assert lit() == []


def test_a_failed_led_write_is_said_and_never_stops_the_swap(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert nastui("swap", "start", str(BAY))[0] == exits.OK
    nastui("swap", "sim", "pull", str(BAY))

    async def stuck(self: SimLocator, bay: int, on: bool) -> LocateResult:
        return LocateResult(bay, on, False, "sim", f"bay {bay}: the enclosure did not answer")

    monkeypatch.setattr(SimLocator, "locate", stuck)
    nastui("swap", "sim", "insert", str(BAY))
    code, text = nastui("swap")
    assert code == exits.OK and "swap inserted" in text
    swap = swap_json()
    assert swap["phase"] == "inserted" and swap["led"] is False  # said once, not every poll
    said = f"the new drive is in: bay {BAY}: the enclosure did not answer; the LED may be left lit"
    assert any(e.startswith(said) and f"`nastui locate {BAY} --off`" in e for e in events(swap))
    assert nastui("swap", "replace", "--confirm", new_serial_of())[0] == exits.OK
    monkeypatch.undo()
    monkeypatch.setenv("NASTUI_STATE_DIR", str(state))
    assert lit() == [BAY]  # as said: left lit, and the command named puts it out
    assert nastui("locate", str(BAY), "--off")[0] == exits.OK
    assert lit() == []


def test_a_failed_abort_says_how_to_put_it_out(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nastui("swap", "start", str(BAY))

    async def stuck(self: SimLocator, bay: int, on: bool) -> LocateResult:
        return LocateResult(bay, on, False, "sim", f"bay {bay}: the enclosure did not answer")

    monkeypatch.setattr(SimLocator, "locate", stuck)
    code, text = nastui("swap", "abort")
    assert code == exits.OK
    assert "the LED may be left lit: `nastui locate 10 --off` puts it out" in text


def test_a_swap_kept_by_an_earlier_nastui_still_gets_its_led_put_out(state: Path) -> None:
    """An earlier nastui kept the LED lit until the rebuild was done and wrote no "led": a swap
    it left mid-rebuild is taken as lit, and put out when it is done."""
    nastui("swap", "start", str(BAY))
    nastui("swap", "sim", "pull", str(BAY))
    nastui("swap", "sim", "insert", str(BAY))
    nastui("swap")
    assert nastui("swap", "replace", "--confirm", new_serial_of())[0] == exits.OK
    nastui("locate", str(BAY))  # as the earlier nastui left it: lit
    files = list(state.rglob("swap.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert data["version"] == FORMAT_VERSION and data["swap"]["led"] is False
    del data["swap"]["led"]
    for path in (files[0], files[0].with_name("swap.json.bak")):
        path.write_text(json.dumps(data))
    assert lit() == [BAY]
    nastui("swap", "sim", "wait", "100000")
    assert "swap done" in nastui("swap")[1]
    assert lit() == []


def test_in_place_the_old_drive_is_lit_to_be_pulled_and_how_to_put_it_out_is_said(
    state: Path,
) -> None:
    """The mixed box's bay 1 is replaced in place: no LED while the new drive goes into a free
    bay and the pool rebuilds; lit at the end on the old drive to pull."""
    nastui("swap", "start", "1", scenario="mixed")
    assert lit("mixed") == []
    assert swap_json("mixed")["in_place"] is True
    nastui("swap", "sim", "insert", "10", scenario="mixed")  # the free bay
    assert swap_json("mixed")["phase"] == "inserted" and lit("mixed") == []
    code, _ = nastui("swap", "replace", "--confirm", new_serial_of("mixed"), scenario="mixed")
    assert code == exits.OK and lit("mixed") == []
    nastui("swap", "sim", "wait", "100000", scenario="mixed")
    code, text = nastui("swap", scenario="mixed")
    assert "swap done" in text and lit("mixed") == [1]
    assert (
        "now pull the old drive: bay 1: locate LED on (simulated); it stays lit when the swap is "
        "over: `nastui locate 1 --off` puts it out"
    ) in text
    nastui("swap", "sim", "pull", "1", scenario="mixed")
    assert nastui("locate", "1", "--off", scenario="mixed")[0] == exits.OK
    assert lit("mixed") == []


class Killed(BaseException):
    """The process dying under `swap start` (nothing after it runs, no handler catches it)."""


def test_a_start_killed_after_its_offline_is_undone_by_abort_on_the_demo(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The simulator's `zpool offline` played, then the process dies before it answers: the
    swap is kept preparing, the member shown OFFLINE; `swap abort` onlines it again."""
    played = SimSwap.write

    async def dies(self: SimSwap, ops: tuple[Op, ...], at: float, **kw: Any) -> list[Ran]:
        await played(self, ops, at, **kw)
        raise Killed

    monkeypatch.setattr(SimSwap, "write", dies)
    with pytest.raises(Killed):
        nastui("swap", "start", "10")
    monkeypatch.setattr(SimSwap, "write", played)
    code, text = nastui("swap")
    assert code == exits.OK and "INTERRUPTED while preparing" in text
    assert "may or may not have run: zpool offline storage ata-HGST_HUS724040ALA640_" in text
    assert "abort runs: zpool online storage ata-HGST_HUS724040ALA640_" in text
    assert "OFFLINE" in nastui("pools")[1]
    code, _ = nastui("swap", "start", "10")
    assert code == exits.EX_USAGE and "`nastui swap abort`" in capsys.readouterr().err
    code, text = nastui("swap", "abort")
    assert code == exits.OK, capsys.readouterr().err
    assert "undo: zpool online storage ata-HGST_HUS724040ALA640_" in text
    assert "swap aborted" in text
    assert "OFFLINE" not in nastui("pools")[1]
    assert nastui("swap")[1].startswith("no swap in progress")


def test_the_new_drive_starts_clean_the_old_drives_defects_leave_with_it(state: Path) -> None:
    """After a finished swap of the failing drive, the new drive in bay 10 shows its own
    counters, as a new drive of its model: no defects, its own hours, a new drive's lifetime
    counters (it was modelled on the old drive and kept its growing Reallocated_Event_Count,
    a WARNING on a new drive)."""
    nastui("swap", "start", "10")
    nastui("swap", "sim", "pull", "10")
    nastui("swap", "sim", "insert", "10")
    good = new_serial(10, "new", 0)
    assert nastui("swap", "replace", "--confirm", good)[0] == exits.OK
    nastui("swap", "sim", "wait", "100000")
    assert "swap done" in nastui("swap")[1]
    code, text = nastui("status")
    assert code == exits.OK and "Reallocated" not in text, text
    drives = json.loads(nastui("drives", "--json")[1])["drives"]
    new = next(d for d in drives if d["bay"] == 10)
    assert new["serial"] == good and new["health"] == "OK" and new["findings"] == []
    assert new["power_on_hours"] == 12 + 100000 // 3600


def test_a_new_drive_has_its_own_attribute_table() -> None:
    """The inserted drive's SMART table, on the failing drive's bay a day in: its profile's
    table with its own raw values (none of the old drive's defects or lifetime counts); the
    old drive, put back, brings its defects back with it."""
    clock = FakeClock()
    box = SimBackend("failing-drive", clock=clock)
    old = next(s.drive for s in box.snapshot().slots if s.bay == 10)
    clock.advance(86400)
    at = box.snapshot().taken_at
    pull = Hand("pull", at, 10)
    box.hands = Hands((pull, Hand("insert", at, 10, like=old or "")))
    clock.advance(7200)
    snap = box.snapshot()
    new = next(d for d in snap.drives if d.identity.serial == new_serial(10, "new", 0))
    raw = {a.id: a.raw or 0 for a in new.attributes}
    assert {i: raw[i] for i in (5, 196, 197, 198)} == dict.fromkeys((5, 196, 197, 198), 0)
    assert raw[9] == new.power_on_hours == 14
    assert raw[12] < 10  # power cycles of a 14-hour drive, not the old drive's thousands
    box.hands = Hands((pull, Hand("insert", at, 10, variant="old", like=old or "")))
    back = next(d for d in box.snapshot().drives if d.key == old)
    assert {a.id: a.raw or 0 for a in back.attributes}[196] > 0


def test_the_daemons_swap_notice_tells_the_swap_as_it_stands(state: Path) -> None:
    """The daemon's `swap:bay-open:10` says what `nastui swap` shows now: the drive was pulled
    (it said "(prepared)", the swap as last written), without writing the swap file."""
    nastui("swap", "start", "10")
    nastui("swap", "sim", "pull", "10")
    kept = {p: p.read_bytes() for p in state.rglob("swap.json")}
    assert kept
    session = open_session(Source(demo=True, scenario="failing-drive"), os.environ)
    snapshot = asyncio.run(session.poll())
    alerts, _ = alerts_with_swap(session, snapshot, snapshot.alerts)
    notice = next(a for a in alerts if a.key == "swap:bay-open:10")
    assert "out for its swap (pulled)" in notice.message, notice.message
    assert {p: p.read_bytes() for p in state.rglob("swap.json")} == kept
    assert "swap pulled" in nastui("swap")[1]  # what `nastui swap` shows (and writes)
