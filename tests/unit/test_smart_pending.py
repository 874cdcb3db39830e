"""A drive whose first SMART read is under way (`Drive.smart_pending`): the verdict waits for it.

To a monitoring plugin (`nastui status`, the daemon, the exports) that is UNKNOWN, as before:
they cannot wait. The interface can: its bay shows the drive as being read (`~`, WAIT), and its
header and alerts strip do not count it among the UNKNOWNs. Anything else the drive already
tells (a temperature over its limit, standby) is shown as it would be.
"""

from __future__ import annotations

import dataclasses

from nastui.cli.baytable import legend
from nastui.core.assess import assess, awaiting_smart_alert, awaiting_smart_keys, overall
from nastui.core.baystate import BayState, bay_state, health_word
from nastui.core.glyphs import ASCII
from nastui.core.health import NO_SMART, awaiting_smart, drive_verdict
from nastui.model import (
    BaySlot,
    Drive,
    DriveIdentity,
    Health,
    HostSnapshot,
    PowerState,
    Temperature,
    TempSource,
    Thresholds,
    Transport,
)
from nastui.ui.render.panels import alerts_text, title_text

NOW = 1_700_000_000.0
LIMITS = Thresholds()


def drive(serial: str, *, pending: bool = True, celsius: float = 35.0, at: float = NOW) -> Drive:
    identity = DriveIdentity(model="HGST", serial=serial, transport=Transport.SATA)
    temp = Temperature(celsius, at, TempSource.DRIVETEMP)
    return Drive(f"sd{serial.lower()}", identity, temperature=temp, smart_pending=pending)


def asleep(serial: str) -> Drive:
    return dataclasses.replace(drive(serial), power=PowerState.STANDBY)


def judged(found: Drive) -> Drive:
    return dataclasses.replace(found, verdict=drive_verdict(found, LIMITS, NOW))


def assessed(*drives: Drive) -> HostSnapshot:
    slots = tuple(BaySlot(i, d.key) for i, d in enumerate(drives))
    raw = HostSnapshot("nas", NOW, slots=slots, drives=drives)
    return assess(raw, LIMITS, NOW)


def test_a_drive_being_read_is_unknown_to_a_plugin_and_reading_to_the_interface() -> None:
    reading = judged(drive("A"))
    verdict = reading.verdict
    assert verdict.health is Health.UNKNOWN  # `nastui status`: UNKNOWN (3), as before
    assert [r.key for r in verdict.reasons] == [NO_SMART]  # one alert with "no SMART data"
    assert verdict.summary == "SMART read under way"
    assert awaiting_smart(reading)
    snapshot = assessed(drive("A"))
    assert bay_state(snapshot.slots[0], snapshot.drives[0]) is BayState.READING
    assert health_word(snapshot.drives[0]) == "READING"
    assert overall(snapshot) is Health.UNKNOWN  # the alert stands, for plugins and the daemon
    assert [a.key for a in snapshot.alerts] == [f"drive:A:{NO_SMART}"]
    keys = awaiting_smart_keys(snapshot)
    assert awaiting_smart_alert(snapshot, snapshot.alerts[0], keys)
    # The same key from another host of the fleet is that host's, not a drive being read here.
    remote = dataclasses.replace(snapshot.alerts[0], host="offsite")
    assert not awaiting_smart_alert(snapshot, remote, keys)


def test_what_the_drive_tells_already_is_shown_while_its_smart_is_read() -> None:
    hot = judged(drive("A", celsius=70.0))
    assert hot.verdict.health is Health.CRITICAL and not awaiting_smart(hot)
    sleeping = judged(asleep("A"))
    assert sleeping.verdict.summary == "in standby, SMART not read yet"
    assert not awaiting_smart(sleeping)
    old = judged(drive("A", at=NOW - 3600))
    assert old.verdict.health is Health.UNKNOWN and not awaiting_smart(old)  # a stale reading
    snapshot = assessed(drive("A", celsius=70.0), asleep("B"))
    states = [bay_state(s, d) for s, d in zip(snapshot.slots, snapshot.drives, strict=True)]
    assert states == [BayState.CRITICAL, BayState.STANDBY]


def test_a_drive_never_read_and_not_being_read_is_unknown_as_before() -> None:
    unread = judged(drive("A", pending=False))
    assert unread.verdict.summary == "no SMART data" and not awaiting_smart(unread)
    snapshot = assessed(drive("A", pending=False))
    assert bay_state(snapshot.slots[0], snapshot.drives[0]) is BayState.UNKNOWN


def test_the_header_and_alerts_strip_do_not_count_drives_being_read_as_unknown() -> None:
    snapshot = assessed(drive("A"), drive("B"))
    title = title_text(snapshot, "dashboard", 100).plain
    assert "UNKNOWN" not in title and " OK  reading SMART" in title
    assert (
        alerts_text(snapshot, 5, 80, ASCII).plain == "no alerts so far; reading SMART of 2 drives"
    )
    one = assessed(drive("A"))
    assert alerts_text(one, 5, 80, ASCII).plain == "no alerts so far; reading SMART of 1 drive"
    # Beside a real finding: the finding decides the state, the drives being read one line.
    worse = assessed(drive("A"), drive("B", celsius=70.0))
    assert " CRITICAL  reading SMART" in title_text(worse, "dashboard", 100).plain
    lines = alerts_text(worse, 5, 80, ASCII).plain.splitlines()
    assert lines[0].startswith("CRIT bay 1 sdb") and lines[-1] == "reading SMART of 2 drives"
    assert not any(line.startswith("UNKN") for line in lines)


def test_once_read_nothing_of_it_remains() -> None:
    snapshot = assessed(dataclasses.replace(drive("A", pending=False), smart_passed=True))
    assert snapshot.alerts == () and "reading" not in title_text(snapshot, "d", 100).plain
    assert alerts_text(snapshot, 5, 80, ASCII).plain == "no alerts"


def test_the_bays_legend_names_the_reading_state_only_when_a_bay_shows_it() -> None:
    assert "WAIT" not in legend([BayState.OK, BayState.UNKNOWN])
    assert "WAIT=reading" in legend([BayState.OK, BayState.READING])
    assert legend([]).startswith("OK=ok  STBY=standby")
