"""A real SMTP server on loopback for tests: aiosmtpd in a thread, collecting what it receives.

    cert = make_cert(tmp_path)                       # self-signed, for 127.0.0.1 and localhost
    with MailSink(mode="starttls", cert=cert, login=("nas", "s3cret")) as sink:
        ...send to sink.host:sink.port, trusting client_context(cert)...
        sink.messages[0]["Subject"]

Modes: "plain" (no TLS; AUTH offered in the clear only with `auth_in_clear=True`), "starttls"
(STARTTLS offered and required before MAIL and AUTH), "tls" (TLS from the first byte). With
`login` set, AUTH PLAIN and LOGIN are offered and only that user and password succeed; every
attempt is recorded in `logins`. `free_port()` gives a loopback port nobody listens on (for
"connection refused"). The certificate comes from the `openssl` command-line tool.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from nastui.collectors import runner
from tests.conftest import require_tool

Mode = Literal["plain", "starttls", "tls"]
HOST = "127.0.0.1"


@dataclass(frozen=True)
class Cert:
    """A self-signed certificate and its key (PEM files)."""

    cert: Path
    key: Path


def make_cert(directory: Path, name: str = "localhost") -> Cert:
    """A self-signed EC certificate for `name` and 127.0.0.1, valid for a day."""
    openssl = require_tool("openssl", "openssl")
    cert, key = directory / "cert.pem", directory / "key.pem"
    argv = [
        openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", f"/CN={name}",
        "-addext", f"subjectAltName=DNS:{name},IP:{HOST}",
    ]  # fmt: skip
    result = runner.run_sync(argv, timeout=30)
    assert result.ok, result.describe()
    return Cert(cert, key)


def server_context(cert: Cert) -> ssl.SSLContext:
    """The server side of TLS with `cert`."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert.cert, cert.key)
    return context


def client_context(cert: Cert) -> ssl.SSLContext:
    """A client context that trusts `cert` (and verifies the host name as usual)."""
    return ssl.create_default_context(cafile=str(cert.cert))


def free_port() -> int:
    """A loopback TCP port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Received:
    """One mail as the server got it."""

    mail_from: str
    rcpt_tos: list[str]
    data: bytes
    login: str | None  # the user it authenticated as, if it did
    tls: bool  # the session was encrypted (STARTTLS or implicit TLS)

    @property
    def message(self) -> EmailMessage:
        """The mail parsed with the modern policy (headers and `get_content()`)."""
        parsed = message_from_bytes(self.data, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed


@dataclass
class _Handler:
    implicit_tls: bool
    received: list[Received] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        data = session.auth_data
        login = (
            data.login.decode()
            if session.authenticated and isinstance(data, LoginPassword)
            else None
        )
        self.received.append(
            Received(
                mail_from=envelope.mail_from or "",
                rcpt_tos=list(envelope.rcpt_tos),
                data=bytes(envelope.original_content or b""),
                login=login,
                tls=self.implicit_tls or session.ssl is not None,
            )
        )
        return "250 OK"


class MailSink:
    """An aiosmtpd server on 127.0.0.1 in a thread; use as a context manager."""

    def __init__(
        self,
        *,
        mode: Mode = "plain",
        cert: Cert | None = None,
        login: tuple[str, str] | None = None,
        auth_in_clear: bool = False,
    ) -> None:
        if mode != "plain" and cert is None:
            raise ValueError(f"mode {mode} needs a certificate (make_cert)")
        self.mode = mode
        self.login = login
        self.logins: list[tuple[str, bool]] = []  # (user, accepted)
        self.host = HOST
        self.port = free_port()
        self._handler = _Handler(implicit_tls=mode == "tls")
        kwargs: dict[str, Any] = {}
        if login is not None:
            # aiosmtpd counts only STARTTLS as TLS for AUTH: on implicit TLS, allow it as well.
            in_clear = auth_in_clear or mode == "tls"
            kwargs |= {"authenticator": self._authenticate, "auth_require_tls": not in_clear}
        if mode == "starttls" and cert is not None:
            kwargs |= {"tls_context": server_context(cert), "require_starttls": True}
        ssl_context = server_context(cert) if mode == "tls" and cert is not None else None
        self._controller = Controller(
            self._handler, hostname=HOST, port=self.port, ssl_context=ssl_context, **kwargs
        )

    @property
    def received(self) -> list[Received]:
        """Every mail accepted so far, in order."""
        return self._handler.received

    @property
    def messages(self) -> list[EmailMessage]:
        """The accepted mails, parsed."""
        return [r.message for r in self.received]

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        if not isinstance(auth_data, LoginPassword) or self.login is None:
            return AuthResult(success=False, handled=False)
        user, password = auth_data.login.decode(), auth_data.password.decode()
        ok = (user, password) == self.login
        self.logins.append((user, ok))
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    def start(self) -> MailSink:
        """Listen; returns self."""
        self._controller.start()
        return self

    def stop(self) -> None:
        """Stop listening and end the server thread."""
        self._controller.stop()

    def __enter__(self) -> MailSink:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
