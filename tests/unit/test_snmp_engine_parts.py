"""The SNMP engine's pure parts: walk/get state machines, discovery encoding, messages, secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.collectors.snmp_discovery import (
    EngineInfo,
    _integer,
    _tlv,
    discovery_request,
    parse_discovery_report,
)
from nastui.collectors.snmp_jobs import END_OF_MIB_VIEW, GetJob, Request, WalkJob, distinct_roots
from nastui.collectors.snmp_target import (
    SnmpError,
    SnmpTarget,
    report_message,
    target_for,
    timeout_message,
)
from nastui.config.remote import HostConfig

A = (1, 3, 6, 1, 2, 1, 1)
B = (1, 3, 6, 1, 2, 1, 25)
INT, STR = 2, 4


def test_walk_follows_each_root_until_it_leaves() -> None:
    job = WalkJob([A, B], max_rows=100, label="h:161")
    assert job.first() == Request(True, (A,))
    nxt = job.answer([((*A, 1, 0), STR, b"d"), ((*A, 3, 0), INT, 5)])
    assert nxt == Request(True, ((*A, 3, 0),))
    assert job.answer([((*A, 9, 1), INT, 1), ((1, 3, 6, 1, 2, 1, 2, 1, 0), INT, 7)]) == Request(
        True, (B,)
    )
    assert job.answer([((*B, 1, 1, 0), INT, 9), ((*B, 1, 1, 0), END_OF_MIB_VIEW, None)]) is None
    assert job.result == {(*A, 1, 0): b"d", (*A, 3, 0): 5, (*A, 9, 1): 1, (*B, 1, 1, 0): 9}


def test_walk_stops_when_the_agent_repeats_itself() -> None:
    job = WalkJob([A], max_rows=100, label="h:161")
    job.answer([((*A, 5), INT, 1)])
    assert job.answer([((*A, 5), INT, 1)]) is None  # not increasing: a broken agent


def test_walk_is_bounded() -> None:
    job = WalkJob([A], max_rows=3, label="h:161")
    with pytest.raises(SnmpError, match=r"h:161: stopped a walk of 1\.3\.6\.1\.2\.1\.1 after 3"):
        job.answer([((*A, i), INT, i) for i in range(1, 6)])


def test_roots_inside_others_are_walked_once() -> None:
    assert distinct_roots([A, (*A, 1), B, A]) == (A, B)
    assert distinct_roots([(*A, 1), A]) == (A,)
    assert WalkJob([], 10, "x").first() is None


def test_get_asks_in_chunks() -> None:
    oids = [(*A, i, 0) for i in range(50)]
    job = GetJob(oids)
    first = job.first()
    assert first is not None and not first.bulk and len(first.oids) == 40
    second = job.answer([(o, INT, 1) for o in first.oids])
    assert second is not None and len(second.oids) == 10
    assert job.answer([(o, 0x80, None) for o in second.oids]) is None
    assert len(job.result) == 50 and job.result[oids[-1]] is None


def test_discovery_report_is_read() -> None:
    request = discovery_request(77)
    assert request[0] == 0x30 and _integer(77) in request
    engine = bytes.fromhex("80001f8880aabbccdd")
    usm = _tlv(0x30, _tlv(4, engine) + _integer(3) + _integer(12345) + _tlv(4, b"") * 3)
    header = _tlv(0x30, _integer(77) + _integer(65507) + _tlv(4, b"\x00") + _integer(3))
    report = _tlv(0x30, _integer(3) + header + _tlv(4, usm) + _tlv(0x30, b""))
    assert parse_discovery_report(report, 77) == EngineInfo(engine, 3, 12345)
    assert EngineInfo(engine, 3, 1).hex_id == "0x80001f8880aabbccdd"
    assert parse_discovery_report(report, 78) is None
    assert parse_discovery_report(report[:-20], 77) is None
    assert parse_discovery_report(b"\x30\x82", 77) is None


def test_messages_are_one_line() -> None:
    assert timeout_message(SnmpTarget("192.0.2.20", timeout_s=2.0)) == (
        "no answer from 192.0.2.20:161 within 2 s (1 retry): "
        "host down, wrong port or community, or a firewall"
    )
    v3 = SnmpTarget("2001:db8::1", 1161, "3", user="nas", retries=3, timeout_s=0.5)
    assert timeout_message(v3) == (
        "no answer from [2001:db8::1]:1161 within 0.5 s (3 retries): "
        "host down, wrong port, user or priv_password, or a firewall"
    )
    wrong = report_message(v3, (1, 3, 6, 1, 6, 3, 15, 1, 1, 6, 0))
    assert wrong == (
        "[2001:db8::1]:1161 could not decrypt the request (usmStatsDecryptionErrors): "
        "wrong priv_password or priv_protocol"
    )
    assert "secret" not in repr(SnmpTarget("h", auth_password="secret12"))


def test_passwords_come_from_files_and_variables(tmp_path: Path) -> None:
    (tmp_path / "auth").write_text("from-a-file\nignored\n", encoding="utf-8")
    host = HostConfig(
        "ups",
        "u",
        version="3",
        user="nas",
        auth_password_file=tmp_path / "auth",
        priv_password_env="UPS_PRIV",
    )
    target = target_for(host, {"UPS_PRIV": "from-the-env"})
    assert (target.auth_password, target.priv_password) == ("from-a-file", "from-the-env")
    assert target.security_level == "authPriv"
    with pytest.raises(SnmpError, match=r"^host ups: priv_password_env names \$UPS_PRIV, which"):
        target_for(host, {})
    (tmp_path / "auth").write_text("", encoding="utf-8")
    with pytest.raises(SnmpError, match=r"^host ups: auth_password_file .*auth is empty$"):
        target_for(host, {"UPS_PRIV": "from-the-env"})
    (tmp_path / "auth").unlink()
    with pytest.raises(SnmpError, match=r"cannot read auth_password_file .*: No such file"):
        target_for(host, {"UPS_PRIV": "from-the-env"})
    with pytest.raises(SnmpError, match="priv_password must be at least 8 characters"):
        target_for(HostConfig("u", "u", version="3", user="n", priv_password_env="P"), {"P": "x"})
