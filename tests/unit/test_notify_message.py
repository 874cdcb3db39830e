"""The notification texts and the JSON document (nastui.notify.message), pinned."""

from __future__ import annotations

import json
from dataclasses import replace

from nastui.model import Alert, Health, Notice, NoticeKind, Subject
from nastui.notify import message, probe_notice

SINCE = 1_700_000_000.0  # 2023-11-14 22:13 UTC (the test session runs in UTC)
AT = SINCE + 3 * 3600
KEY = "drive:PK1334PBHDJ2SR:attr:197"

PENDING = Alert(
    key=KEY,
    health=Health.CRITICAL,
    subject=Subject.DRIVE,
    name="bay 13 sdk",
    message="Current_Pending_Sector 8",
    since=SINCE,
    value=8,
    host="nano",
)
HOT = Alert(
    key="drive:ZL2ABC:temp",
    health=Health.WARNING,
    subject=Subject.DRIVE,
    name="bay 2 sdb",
    message="temperature 52 °C",
    since=AT - 600,
    host="nano",
)
FAN = Alert(
    key="fan:fan2",
    health=Health.WARNING,
    subject=Subject.FAN,
    name="fan2",
    message="0 rpm",
    since=AT - 60,
    host="nano",
)


def notice(kind: NoticeKind, alert: Alert = PENDING, previous: Alert | None = None) -> Notice:
    return Notice(kind, alert, at=AT, previous=previous)


def worse() -> Notice:
    return notice(NoticeKind.WORSE, previous=replace(PENDING, value=5))


def test_subject_of_one_notice_per_kind() -> None:
    assert message.subject("nano", [notice(NoticeKind.FIRING)]) == (
        "[nastui] nano: CRITICAL bay 13 sdk: Current_Pending_Sector 8"
    )
    assert message.subject("nano", [worse()]) == (
        "[nastui] nano: CRITICAL bay 13 sdk: Current_Pending_Sector 8 (+3)"
    )
    rose = notice(NoticeKind.WORSE, previous=replace(PENDING, health=Health.WARNING, value=5))
    assert message.subject("nano", [rose]) == (
        "[nastui] nano: CRITICAL bay 13 sdk: Current_Pending_Sector 8 (+3, was WARNING)"
    )
    assert message.subject("nano", [notice(NoticeKind.REPEAT)]) == (
        "[nastui] nano: CRITICAL bay 13 sdk: Current_Pending_Sector 8 (standing 3h00m)"
    )
    assert message.subject("nano", [notice(NoticeKind.RECOVERED)]) == (
        "[nastui] nano: RECOVERED bay 13 sdk: Current_Pending_Sector 8"
    )
    event = replace(PENDING, health=Health.OK, name="tank", message="resilver finished", key="")
    assert message.subject("nano", [notice(NoticeKind.EVENT, event)]) == (
        "[nastui] nano: tank: resilver finished"
    )
    assert message.subject("nano", [probe_notice("nano", AT)]) == "[nastui] nano: test message"


def test_subject_of_a_batch_counts_by_health_and_kind() -> None:
    batch = [notice(NoticeKind.FIRING, HOT), worse(), notice(NoticeKind.FIRING, FAN)]
    assert message.subject("nano", batch) == "[nastui] nano: 3 alerts (1 critical, 2 warning)"
    mixed = [notice(NoticeKind.RECOVERED, HOT), notice(NoticeKind.FIRING, FAN)]
    assert message.subject("nano", mixed) == "[nastui] nano: 2 alerts (1 warning, 1 recovered)"


def test_batch_is_ordered_worst_first_recoveries_last() -> None:
    recovered = notice(NoticeKind.RECOVERED)  # a critical one, but over
    batch = [recovered, notice(NoticeKind.FIRING, HOT), worse()]
    assert [n.kind for n in message.ordered(batch)] == [
        NoticeKind.WORSE,
        NoticeKind.FIRING,
        NoticeKind.RECOVERED,
    ]


def test_body_of_a_batch() -> None:
    batch = [notice(NoticeKind.FIRING, HOT), worse(), notice(NoticeKind.RECOVERED, FAN)]
    assert message.body("nano", batch) == (
        "nano: 3 alerts (1 critical, 1 warning, 1 recovered)\n"
        "\n"
        "CRITICAL bay 13 sdk: Current_Pending_Sector 8 (+3)\n"
        "  kind:    worse: value 5 -> 8\n"
        "  since:   2023-11-14 22:13 UTC (3 h ago)\n"
        f"  key:     {KEY}\n"
        f"  ack:     nastui alert ack {KEY}\n"
        "\n"
        "WARNING bay 2 sdb: temperature 52 °C\n"
        "  kind:    new alert\n"
        "  since:   2023-11-15 01:03 UTC (10 min ago)\n"
        "  key:     drive:ZL2ABC:temp\n"
        "  ack:     nastui alert ack drive:ZL2ABC:temp\n"
        "\n"
        "RECOVERED fan2: 0 rpm\n"
        "  kind:    recovered (was WARNING)\n"
        "  since:   2023-11-15 01:12 UTC (1 min ago)\n"
        "  cleared: 2023-11-15 01:13 UTC\n"
        "  key:     fan:fan2\n"
        "\n"
        "-- \n"
        "nastui on nano, 2023-11-15 01:13 UTC\n"
        "An acknowledged alert stays quiet until it gets worse.\n"
    )


def test_body_of_a_repeat_and_a_risen_health() -> None:
    rose = notice(NoticeKind.WORSE, previous=replace(PENDING, health=Health.WARNING))
    body = message.body("nano", [rose])
    assert "  kind:    worse: WARNING -> CRITICAL\n" in body
    body = message.body("nano", [notice(NoticeKind.REPEAT)])
    assert "  kind:    still standing, not acknowledged\n" in body
    assert f"  ack:     nastui alert ack {KEY}\n" in body


def test_body_of_an_event_has_no_since_and_no_ack() -> None:
    event = replace(PENDING, health=Health.OK, name="tank", message="resilver finished", key="")
    assert message.body("nano", [notice(NoticeKind.EVENT, event)]) == (
        "nano: tank: resilver finished\n"
        "\n"
        "tank: resilver finished\n"
        "  kind:    event\n"
        "\n"
        "-- \n"
        "nastui on nano, 2023-11-15 01:13 UTC\n"
    )


def test_body_of_the_test_message() -> None:
    assert message.body("nano", [probe_notice("nano", AT)]) == (
        "nano: test message\n"
        "\n"
        "This is a test message from nastui on nano, sent by `nastui alert test`\n"
        "at 2023-11-15 01:13 UTC. If you are reading it, alerts reach you this way.\n"
    )


def test_json_document_schema() -> None:
    doc = json.loads(message.to_json("nano", [notice(NoticeKind.FIRING, HOT), worse()]))
    assert doc["version"] == 1
    assert doc["host"] == "nano"
    assert doc["subject"] == "[nastui] nano: 2 alerts (1 critical, 1 warning)"
    assert doc["notices"][0] == {
        "host": "nano",
        "kind": "worse",
        "health": "critical",
        "key": KEY,
        "about": "drive",
        "name": "bay 13 sdk",
        "message": "Current_Pending_Sector 8",
        "since": SINCE,
        "value": 8,
        "previous_value": 5,
        "previous_health": "critical",
        "acknowledged": False,
        "at": AT,
    }
    second = doc["notices"][1]
    assert (second["kind"], second["value"], second["previous_value"]) == ("firing", None, None)
    assert second["message"] == "temperature 52 °C"


def test_json_keeps_a_fleet_hosts_own_name() -> None:
    remote = replace(HOT, host="backup-nas")
    record = message.notice_record("nano", notice(NoticeKind.FIRING, remote))
    assert record["host"] == "backup-nas"


def test_a_ups_alert_is_sent_as_the_box_with_an_ack_command_that_works_quoted() -> None:
    # A UPS named with a space (SNMP's model name): its key needs quoting in a shell.
    ups = Alert(
        key="ups:APC Smart-UPS 1500:power",
        health=Health.WARNING,
        subject=Subject.UPS,
        name="APC Smart-UPS 1500",
        message="on battery: mains power lost",
        since=SINCE,
        host="rack ups",
    )
    text = message.body("nano", [notice(NoticeKind.FIRING, ups)])
    assert "  ack:     nastui alert ack 'rack ups/ups:APC Smart-UPS 1500:power'\n" in text
    assert text.startswith("nano: WARNING rack ups APC Smart-UPS 1500: on battery")
    assert text.endswith("nastui on nano, 2023-11-15 01:13 UTC\n" + QUIET_LINE)
    subject = message.subject(
        "nano", [notice(NoticeKind.FIRING, ups), notice(NoticeKind.FIRING, replace(ups, key="x"))]
    )
    assert subject == "[nastui] nano: rack ups: 2 alerts (2 warning)"


QUIET_LINE = "An acknowledged alert stays quiet until it gets worse.\n"
