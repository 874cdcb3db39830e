"""Notifier construction, names, mail headers, hook variables and webhook headers (no network)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from email.header import decode_header, make_header
from pathlib import Path

import pytest

from nastui.config.alerting import EmailConfig, Security
from nastui.config.schema import AlertsConfig
from nastui.model import Notice, NoticeKind
from nastui.notify import (
    EmailNotifier,
    ExecNotifier,
    Notifier,
    NotifyError,
    WebhookNotifier,
    notifiers_from,
    probe_notice,
    send_all,
    send_test,
)
from nastui.notify.exechook import hook_env
from nastui.notify.webhook import headers, shown_url
from tests.unit.test_notify_message import AT, FAN, HOT, KEY, PENDING, notice, worse

MAIL = EmailConfig(
    to=("admin@example.org", "ops@example.org"),
    sender="NAS <nas@example.org>",
    host="smtp.example.org",
    username="nas@example.org",
    password_file=Path("/etc/nastui/smtp-password"),
)


def test_notifiers_from_config_in_order() -> None:
    assert notifiers_from(AlertsConfig(), {}) == []
    config = AlertsConfig(
        email=MAIL, exec_hook=("/usr/local/bin/page-me", "--urgent"), webhook="https://ntfy.sh/x"
    )
    assert [n.name for n in notifiers_from(config, {})] == [
        "email to admin@example.org, ops@example.org via smtp.example.org:587 (starttls)",
        "exec /usr/local/bin/page-me --urgent",
        "webhook https://ntfy.sh/…",
    ]


def test_email_names_show_the_security() -> None:
    tls = replace(MAIL, to=("admin@example.org",), port=465, security=Security.TLS)
    assert (
        EmailNotifier(tls, {}).name == "email to admin@example.org via smtp.example.org:465 (tls)"
    )
    plain = replace(tls, port=25, security=Security.NONE)
    assert EmailNotifier(plain, {}).name.endswith("smtp.example.org:25 (no TLS)")


def test_mail_headers_and_body() -> None:
    mail = EmailNotifier(MAIL, {}, clock=lambda: AT).compose("nano", [worse()])
    assert mail["From"] == "NAS <nas@example.org>"
    assert mail["To"] == "admin@example.org, ops@example.org"
    assert mail["Subject"] == "[nastui] nano: CRITICAL bay 13 sdk: Current_Pending_Sector 8 (+3)"
    assert mail["Date"] == "Wed, 15 Nov 2023 01:13:20 +0000"
    assert mail["Message-ID"].endswith("@example.org>")
    assert ".nastui@" in mail["Message-ID"]
    assert mail["Auto-Submitted"] == "auto-generated"
    text = mail.get_content()
    assert f"nastui alert ack {KEY}" in text
    assert "value 5 -> 8" in text


def test_non_ascii_subject_is_encoded() -> None:
    mail = EmailNotifier(MAIL, {}).compose("nano", [notice(NoticeKind.FIRING, HOT)])
    assert mail["Subject"] == "[nastui] nano: WARNING bay 2 sdb: temperature 52 °C"
    assert "°" not in mail.as_string().split("\n\n")[0]  # headers travel as ASCII


def test_missing_password_file_fails_before_connecting(tmp_path: Path) -> None:
    config = replace(MAIL, host="mail.invalid", password_file=tmp_path / "smtp-password")
    with pytest.raises(NotifyError) as caught:
        EmailNotifier(config, {}).send("nano", [worse()])
    assert str(caught.value) == (
        f"email via mail.invalid:587: cannot read password_file {tmp_path}/smtp-password: "
        "No such file or directory: create it (mode 600, readable by nastui) holding only the "
        "password"
    )


def test_missing_password_variable_names_it() -> None:
    config = replace(MAIL, host="mail.invalid", password_file=None, password_env="SMTP_PW")
    with pytest.raises(NotifyError, match=r"environment variable SMTP_PW is not set"):
        EmailNotifier(config, {"OTHER": "x"}).send("nano", [worse()])


def test_hook_environment_describes_the_worst_notice() -> None:
    batch = [notice(NoticeKind.FIRING, HOT), worse(), notice(NoticeKind.RECOVERED, FAN)]
    assert hook_env("nano", batch) == {
        "NASTUI_HOST": "nano",
        "NASTUI_KIND": "worse",
        "NASTUI_HEALTH": "critical",
        "NASTUI_SUBJECT": "[nastui] nano: 3 alerts (1 critical, 1 warning, 1 recovered)",
        "NASTUI_KEY": KEY,
        "NASTUI_NAME": "bay 13 sdk",
        "NASTUI_MESSAGE": "Current_Pending_Sector 8",
        "NASTUI_COUNT": "3",
    }
    assert hook_env("nano", []) == {}


def test_exec_needs_a_command() -> None:
    with pytest.raises(ValueError, match="needs a command"):
        ExecNotifier(())


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://ntfy.sh/nas-alerts-7f3a", "https://ntfy.sh/…"),
        ("https://user:pw@hooks.example.org:8443/x?token=1", "https://hooks.example.org:8443/…"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("http://10.0.0.5", "http://10.0.0.5/"),
    ],
)
def test_webhook_url_is_shown_without_secrets(url: str, shown: str) -> None:
    assert shown_url(url) == shown
    assert WebhookNotifier(url).name == f"webhook {shown}"


def test_webhook_headers_for_ntfy() -> None:
    hdrs = headers("nano", [notice(NoticeKind.FIRING, HOT), worse()])
    assert hdrs["Content-Type"] == "application/json; charset=utf-8"
    assert hdrs["Title"] == "[nastui] nano: 2 alerts (1 critical, 1 warning)"
    assert (hdrs["Priority"], hdrs["Tags"]) == ("5", "rotating_light")
    hot = headers("nano", [notice(NoticeKind.FIRING, HOT)])
    assert (hot["Priority"], hot["Tags"]) == ("4", "warning")
    assert str(make_header(decode_header(hot["Title"]))) == (
        "[nastui] nano: WARNING bay 2 sdb: temperature 52 °C"
    )
    assert hot["Title"].isascii()
    over = headers("nano", [notice(NoticeKind.RECOVERED, PENDING)])
    assert (over["Priority"], over["Tags"]) == ("3", "white_check_mark")
    test = headers("nano", [probe_notice("nano", AT)])
    assert (test["Priority"], test["Tags"]) == ("3", "information_source")


class Recorder:
    """A notifier that records batches, failing when told to."""

    def __init__(self, name: str, error: str | None = None) -> None:
        self.name = name
        self.error = error
        self.batches: list[tuple[str, list[Notice]]] = []

    def send(self, host: str, notices: Sequence[Notice]) -> None:
        self.batches.append((host, list(notices)))
        if self.error:
            raise NotifyError(self.error)


def test_send_all_goes_on_after_a_failure() -> None:
    first, second = Recorder("one", error="one: connection refused"), Recorder("two")
    notifiers: list[Notifier] = [first, second]
    assert send_all(notifiers, "nano", [worse()]) == [
        ("one", "one: connection refused"),
        ("two", None),
    ]
    assert second.batches == [("nano", [worse()])]


def test_send_test_sends_one_test_notice() -> None:
    recorder = Recorder("one")
    assert send_test([recorder], "nano", AT) == [("one", None)]
    [(host, [sent])] = recorder.batches
    assert (host, sent.kind, sent.at, sent.alert.name) == ("nano", NoticeKind.TEST, AT, "nano")
