"""`nastui alert list|ack|unack|log` and `nastui daemon` as an operator runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import nastui

KEY = "nano/drive:PK1331PLPX28B6:attr:197"


def state(tmp_path: Path) -> dict[str, str]:
    return {"NASTUI_STATE_DIR": str(tmp_path / "state")}


def test_list_shows_keys_an_operator_can_ack(tmp_path: Path) -> None:
    result = nastui("alert", "list", "--scenario", "failing-drive", env=state(tmp_path))
    assert result.returncode == 0, result.stderr
    assert KEY in result.stdout
    where = "bay 10 sdp: HGST HUS724040ALA640 PK1331PLPX28B6: Current_Pending_Sector"
    assert where in result.stdout


def test_ack_list_unack_round_trip(tmp_path: Path) -> None:
    env = state(tmp_path)
    nastui("daemon", "--once", "--no-notify", "--scenario", "failing-drive", env=env)
    acked = nastui(
        "alert", "ack", "attr:197", "--for", "7d", "--note", "disk ordered",
        "--scenario", "failing-drive", env=env,
    )  # fmt: skip
    assert acked.returncode == 0, acked.stderr
    what = "HGST HUS724040ALA640 PK1331PLPX28B6: Current_Pending_Sector 27"
    assert acked.stdout == f"acknowledged {KEY} ({what}) for 7d00h\n"
    listed = json.loads(
        nastui("alert", "list", "--json", "--scenario", "failing-drive", env=env).stdout
    )
    assert (listed["schema"], listed["host"]) == (1, "nano")
    assert {a["key"]: a["acknowledged"] for a in listed["alerts"]}[KEY] is True
    gone = nastui("alert", "unack", KEY, env=env)
    assert gone.returncode == 0 and gone.stdout == f"withdrew the acknowledgement of {KEY}\n"
    again = nastui("alert", "unack", KEY, env=env)
    assert again.returncode == 64 and "no acknowledgement" in again.stderr


def test_ack_says_what_it_acknowledged_and_for_how_long_in_words(tmp_path: Path) -> None:
    """A self-test's value is its power-on hour, and --for 2h was "for 0.0833333 days": the line
    said "at 56942 ... for 0.0833333 days", neither of which an operator can read."""
    env = state(tmp_path)
    test = nastui("alert", "ack", "selftest", "--scenario", "failing-drive", env=env)
    assert test.returncode == 0, test.stderr
    assert test.stdout.startswith(f"acknowledged {KEY.replace('attr:197', 'selftest')} (HGST ")
    assert "read failure at LBA" in test.stdout and "56942" not in test.stdout
    host = nastui("alert", "ack", "offsite", "--for", "2h", "--scenario", "failing-drive", env=env)
    assert host.returncode == 0, host.stderr
    assert host.stdout == "acknowledged offsite/host:unreachable for 2h00m\n"


def test_ack_of_an_unknown_or_ambiguous_key_names_the_problem(tmp_path: Path) -> None:
    env = state(tmp_path)
    unknown = nastui("alert", "ack", "nonsense", "--scenario", "failing-drive", env=env)
    assert unknown.returncode == 64
    assert "no standing alert 'nonsense' (`nastui alert list` shows their keys)" in unknown.stderr
    ambiguous = nastui("alert", "ack", "PK1331PLPX28B6", "--scenario", "failing-drive", env=env)
    assert ambiguous.returncode == 64 and "give more of the key" in ambiguous.stderr


def test_bad_duration_is_a_usage_error(tmp_path: Path) -> None:
    result = nastui("alert", "ack", KEY, "--for", "soon", "--demo", env=state(tmp_path))
    assert result.returncode == 64
    assert "not a duration: 'soon'" in result.stderr


def test_log_lists_what_the_daemon_decided(tmp_path: Path) -> None:
    env = state(tmp_path)
    empty = nastui("alert", "log", env=env)
    assert empty.returncode == 69 and "`nastui daemon` creates it" in empty.stderr
    nastui("daemon", "--once", "--no-notify", "--scenario", "failing-drive", env=env)
    log = nastui("alert", "log", env=env)
    assert log.returncode == 0
    assert "nano firing WARNING bay 10 sdp" in log.stdout
    assert "[not sent: no notifier configured]" in log.stdout


def test_daemon_with_an_unwritable_history_says_so_and_watches(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    result = nastui(
        "daemon", "--once", "--demo", "--history", str(blocked / "h.sqlite"), env=state(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "(cannot be used: watching without history until it can)" in result.stdout
    assert "alert firing CRITICAL nano nastui state: history " in result.stdout


def test_the_demo_logs_and_lists_its_own_daemon_and_fleet(tmp_path: Path) -> None:
    # The demo's daemon keeps its log in the demo's own state; `alert log` reads that one, and
    # `alert list` shows the fleet's alerts (a UPS on battery, a host down) by HOST/KEY.
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg")}
    ran = nastui("daemon", "--once", "--no-notify", "--scenario", "hot-bay", env=env)
    assert ran.returncode == 0, ran.stderr
    log = nastui("alert", "log", "--scenario", "hot-bay", env=env)
    assert log.returncode == 0, log.stderr
    assert "ups-rack firing WARNING ups-rack: on battery" in log.stdout
    listed = json.loads(nastui("alert", "list", "--json", "--scenario", "hot-bay", env=env).stdout)
    keys = {a["key"]: a["host"] for a in listed["alerts"]}
    assert keys["ups-rack/ups:ups-rack:power"] == "ups-rack"
    assert keys["offsite/host:unreachable"] == "offsite"
    assert keys["nano/fan:fan-wall-2:stalled"] == "nano"
