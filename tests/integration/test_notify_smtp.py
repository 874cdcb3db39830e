"""Alert mail against a real SMTP server (aiosmtpd on loopback): plain, STARTTLS and TLS."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from nastui.config.alerting import EmailConfig, Security
from nastui.notify import EmailNotifier, NotifyError, message, send_test
from tests.mailsink import HOST, Cert, MailSink, client_context, free_port, make_cert
from tests.unit.test_notify_message import AT, KEY, worse

pytestmark = [
    pytest.mark.integration,
    # aiosmtpd itself trips over its own deprecated Session.login_data on every login.
    pytest.mark.filterwarnings("ignore:Session.login_data is deprecated:DeprecationWarning"),
]

USER, PASSWORD = "nas@example.org", "correct horse 9!"
SECURITY = {"plain": Security.NONE, "starttls": Security.STARTTLS, "tls": Security.TLS}


@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> Cert:
    return make_cert(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def password_file(tmp_path: Path) -> Path:
    path = tmp_path / "smtp-password"
    path.write_text(PASSWORD + "\n")
    return path


def email(sink: MailSink, password_file: Path | None = None) -> EmailConfig:
    return EmailConfig(
        to=("admin@example.org",),
        sender="NAS <nas@example.org>",
        host=HOST,
        port=sink.port,
        security=SECURITY[sink.mode],
        username=USER if password_file else None,
        password_file=password_file,
    )


@pytest.fixture
def starttls(cert: Cert) -> Iterator[MailSink]:
    with MailSink(mode="starttls", cert=cert, login=(USER, PASSWORD)) as sink:
        yield sink


def test_plain_delivery_with_headers_and_body() -> None:
    with MailSink() as sink:
        EmailNotifier(email(sink), {}).send("nano", [worse()])
    [got] = sink.received
    assert (got.mail_from, got.rcpt_tos, got.tls, got.login) == (
        "nas@example.org",
        ["admin@example.org"],
        False,
        None,
    )
    mail = got.message
    assert mail["Subject"] == "[nastui] nano: CRITICAL bay 13 sdk: Current_Pending_Sector 8 (+3)"
    assert (mail["From"], mail["To"]) == ("NAS <nas@example.org>", "admin@example.org")
    assert mail["Date"] and mail["Message-ID"]
    text = mail.get_content().replace("\r\n", "\n")  # as it crossed the wire: CRLF
    assert text == message.body("nano", [worse()])
    assert f"  ack:     nastui alert ack {KEY}\n" in text


def test_starttls_with_login(starttls: MailSink, cert: Cert, password_file: Path) -> None:
    notifier = EmailNotifier(email(starttls, password_file), {}, context=client_context(cert))
    assert send_test([notifier], "nano", AT) == [(notifier.name, None)]
    [got] = starttls.received
    assert (got.tls, got.login) == (True, USER)  # the password file's newline was stripped
    assert got.message["Subject"] == "[nastui] nano: test message"


def test_implicit_tls_with_login_from_the_environment(cert: Cert) -> None:
    with MailSink(mode="tls", cert=cert, login=(USER, PASSWORD)) as sink:
        config = replace(email(sink), username=USER, password_env="NASTUI_SMTP_PASSWORD")
        env = {"NASTUI_SMTP_PASSWORD": PASSWORD}
        EmailNotifier(config, env, context=client_context(cert)).send("nano", [worse()])
    [got] = sink.received
    assert (got.tls, got.login) == (True, USER)


def test_wrong_password_is_one_line_without_the_password(
    starttls: MailSink, cert: Cert, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="nastui")
    wrong = "hunter2-wrong"
    path = tmp_path / "smtp-password"
    path.write_text(wrong + "\n")
    notifier = EmailNotifier(email(starttls, path), {}, context=client_context(cert))
    with pytest.raises(NotifyError) as caught:
        notifier.send("nano", [worse()])
    text = str(caught.value)
    assert text == (
        f"email via {HOST}:{starttls.port}: authentication failed for {USER} (535): "
        f"check password_file {path}"
    )
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    for secret in (wrong, PASSWORD):
        assert secret not in text
        assert secret not in caplog.text
    assert starttls.logins and all(login == (USER, False) for login in starttls.logins)
    assert starttls.received == []


def test_untrusted_certificate_is_refused(starttls: MailSink, password_file: Path) -> None:
    notifier = EmailNotifier(email(starttls, password_file), {})  # the system store only
    with pytest.raises(NotifyError, match=r"certificate verify failed \(self.signed certificate\)"):
        notifier.send("nano", [worse()])
    assert starttls.logins == []  # the password never went out


def test_starttls_required_but_not_offered(password_file: Path) -> None:
    with MailSink() as sink:
        config = replace(email(sink, password_file), security=Security.STARTTLS)
        with pytest.raises(NotifyError) as caught:
            EmailNotifier(config, {}).send("nano", [worse()])
    assert str(caught.value).startswith(
        f"email via {HOST}:{sink.port}: the server does not offer STARTTLS: "
    )
    assert sink.received == []


def test_no_login_offered_in_the_clear(password_file: Path) -> None:
    # The sink offers AUTH only after STARTTLS, and offers no STARTTLS.
    with MailSink(login=(USER, PASSWORD)) as sink, pytest.raises(NotifyError) as caught:
        EmailNotifier(email(sink, password_file), {}).send("nano", [worse()])
    assert str(caught.value) == (
        f"email via {HOST}:{sink.port}: the server offers no login (AUTH) on this connection: "
        'most servers offer it only over TLS: set security = "starttls" or "tls"'
    )


def test_login_in_the_clear_when_security_none_was_chosen(password_file: Path) -> None:
    with MailSink(login=(USER, PASSWORD), auth_in_clear=True) as sink:
        EmailNotifier(email(sink, password_file), {}).send("nano", [worse()])
    assert [(r.tls, r.login) for r in sink.received] == [(False, USER)]


def test_tls_against_a_starttls_port(starttls: MailSink, cert: Cert, password_file: Path) -> None:
    config = replace(email(starttls, password_file), security=Security.TLS)
    notifier = EmailNotifier(config, {}, context=client_context(cert), timeout=5)
    with pytest.raises(NotifyError, match=r"TLS handshake failed \(.*\): port \d+ may not speak"):
        notifier.send("nano", [worse()])


def test_server_down_is_connection_refused() -> None:
    port = free_port()
    config = EmailConfig(("admin@example.org",), "nas@example.org", HOST, port, Security.NONE)
    with pytest.raises(NotifyError) as caught:
        EmailNotifier(config, {}).send("nano", [worse()])
    assert str(caught.value) == (
        f"email via {HOST}:{port}: connection refused: is the mail server running, and is "
        f"{port} its port?"
    )
