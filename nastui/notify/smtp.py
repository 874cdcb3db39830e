"""Alert mail over SMTP: `EmailNotifier` (smtplib, verified TLS, the password read at send time).

Transport security, from `[alerts.email] security`:
- "starttls" (the default, port 587): plain connection upgraded with STARTTLS before anything
  else is said. A server that does not offer STARTTLS is an error, never a silent fallback to
  plain text: someone in the path may have stripped it.
- "tls" (port 465): TLS from the first byte (SMTP_SSL).
- "none" (port 25): no encryption at all. Only for a relay on the box itself or a trusted LAN;
  choosing it is explicit (it is never the default), so a username given with it logs in over
  the plain connection, as the operator asked. A server that offers AUTH only after TLS (most
  do) then gets an error saying so.
Certificates are verified against the system's CA store, host name included; there is no
"insecure" switch. A private CA goes into the system store (update-ca-certificates).

The password comes from `password_file` (one trailing newline stripped) or the environment
variable `password_env`, read at every send, so rotating it needs no restart. It never appears
in a message, a log line or an exception (an error names where the password came from instead).
"""

from __future__ import annotations

import smtplib
import socket
import ssl
import time
from collections.abc import Callable, Mapping, Sequence
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr

from nastui.config.alerting import EmailConfig, Security
from nastui.core.redact import SECRETS
from nastui.model import Notice
from nastui.notify import message
from nastui.notify.base import NotifyError
from nastui.safeio import SECRET_LIMIT, read_bounded

TIMEOUT_S = 30.0
_SECURITY_TEXT = {Security.STARTTLS: "starttls", Security.TLS: "tls", Security.NONE: "no TLS"}


class EmailNotifier:
    """Sends each batch as one mail to every address of `[alerts.email] to`."""

    def __init__(
        self,
        config: EmailConfig,
        env: Mapping[str, str],
        *,
        context: ssl.SSLContext | None = None,
        timeout: float = TIMEOUT_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Args:
        config: the `[alerts.email]` settings.
        env: where `password_env` is looked up (the process environment).
        context: TLS settings; default: the system CA store with host name checks.
        timeout: seconds for connecting and for each reply of the server.
        clock: the time written into the Date header.
        """
        self.config = config
        self._env = env
        self._context = context
        self._timeout = timeout
        self._clock = clock

    @property
    def name(self) -> str:
        """ "email to admin@example.org via smtp.example.org:587 (starttls)"."""
        c = self.config
        return f"email to {', '.join(c.to)} via {c.host}:{c.port} ({_SECURITY_TEXT[c.security]})"

    @property
    def where(self) -> str:
        """The prefix of every error: "email via smtp.example.org:587"."""
        return f"email via {self.config.host}:{self.config.port}"

    def compose(self, host: str, notices: Sequence[Notice]) -> EmailMessage:
        """The mail for one batch, with From, To, Subject, Date and Message-ID."""
        c = self.config
        domain = parseaddr(c.sender)[1].rpartition("@")[2] or c.host
        mail = EmailMessage()
        mail["From"] = c.sender
        mail["To"] = ", ".join(c.to)
        mail["Subject"] = message.subject(host, notices)
        mail["Date"] = formatdate(self._clock(), localtime=True)
        mail["Message-ID"] = make_msgid("nastui", domain=domain)
        mail["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies, please
        mail.set_content(message.body(host, notices))
        return mail

    def send(self, host: str, notices: Sequence[Notice]) -> None:
        """Connect, secure, log in if configured and hand the mail over (nothing for an empty
        batch).

        Raises:
            NotifyError: not delivered; one line naming the server, the cause and the fix.
        """
        if not notices:
            return
        mail = self.compose(host, notices)
        password = self._password() if self.config.username else None
        try:
            with self._connect() as smtp:
                self._secure(smtp)
                if self.config.username and password is not None:
                    smtp.login(self.config.username, password)
                smtp.send_message(mail)
        except NotifyError:
            raise
        except (OSError, smtplib.SMTPException) as exc:
            text = f"{self.where}: {self._explain(exc)}"
            if password:
                text = text.replace(password, "***")
            raise NotifyError(text) from None

    def _connect(self) -> smtplib.SMTP:
        c = self.config
        if c.security is Security.TLS:
            return smtplib.SMTP_SSL(c.host, c.port, timeout=self._timeout, context=self._tls())
        return smtplib.SMTP(c.host, c.port, timeout=self._timeout)

    def _tls(self) -> ssl.SSLContext:
        return self._context or ssl.create_default_context()

    def _secure(self, smtp: smtplib.SMTP) -> None:
        if self.config.security is not Security.STARTTLS:
            return
        smtp.ehlo()
        if not smtp.has_extn("starttls"):
            raise NotifyError(
                f'{self.where}: the server does not offer STARTTLS: use security = "tls" if it '
                'speaks TLS on another port (465), or "none" only for a trusted local relay'
            )
        smtp.starttls(context=self._tls())
        smtp.ehlo()

    def _password(self) -> str:
        """The password from its file or variable, read now.

        Raises:
            NotifyError: the file cannot be read, the variable is unset, or neither is set.
        """
        c = self.config
        if c.password_file is not None:
            try:
                text = read_bounded(c.password_file, SECRET_LIMIT).decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else "not UTF-8 text"
                raise NotifyError(
                    f"{self.where}: cannot read password_file {c.password_file}: {why}: create "
                    "it (mode 600, readable by nastui) holding only the password"
                ) from None
            password = text.removesuffix("\n").removesuffix("\r")
            SECRETS.add(password)
            return password
        if c.password_env is not None:
            value = self._env.get(c.password_env)
            if value is None:
                raise NotifyError(
                    f"{self.where}: environment variable {c.password_env} is not set: give it to "
                    "nastui (e.g. EnvironmentFile= in its systemd unit)"
                )
            SECRETS.add(value)
            return value
        raise NotifyError(
            f"{self.where}: username {c.username} has no password: set password_file or "
            "password_env in [alerts.email]"
        )

    def _password_source(self) -> str:
        c = self.config
        if c.password_file is not None:
            return f"check password_file {c.password_file}"
        return f"check the password in ${c.password_env}"

    def _explain(self, exc: OSError | smtplib.SMTPException) -> str:
        """Why it failed and what to do, in words (never the password)."""
        c = self.config
        if isinstance(exc, smtplib.SMTPAuthenticationError):
            return f"authentication failed for {c.username} ({exc.smtp_code}): " + (
                self._password_source()
            )
        if isinstance(exc, smtplib.SMTPNotSupportedError) and "AUTH" in str(exc):
            fix = (
                'most servers offer it only over TLS: set security = "starttls" or "tls"'
                if c.security is Security.NONE
                else "remove username if it needs no login"
            )
            return f"the server offers no login (AUTH) on this connection: {fix}"
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            refused = ", ".join(f"{a} ({_reply(*r)})" for a, r in exc.recipients.items())
            return f"recipient refused: {refused}: check [alerts.email] to"
        if isinstance(exc, smtplib.SMTPSenderRefused):
            return (
                f"sender {c.sender} refused ({_reply(exc.smtp_code, exc.smtp_error)}): many "
                "servers accept only the login's own address in from"
            )
        if isinstance(exc, smtplib.SMTPResponseException):
            return f"the server said {_reply(exc.smtp_code, exc.smtp_error)}"
        if isinstance(exc, smtplib.SMTPServerDisconnected):
            return (
                f"the server closed the connection ({exc}): check port and security "
                '(usually 587 is "starttls", 465 "tls")'
            )
        if isinstance(exc, smtplib.SMTPException):
            return str(exc) or type(exc).__name__
        return _explain_network(exc, c)


def _explain_network(exc: OSError, c: EmailConfig) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (
            f"certificate verify failed ({exc.verify_message}): install the server's CA in the "
            "system store, or fix host to the name on its certificate"
        )
    if isinstance(exc, ssl.SSLError):
        return (
            f"TLS handshake failed ({exc.reason or exc}): port {c.port} may not speak "
            f'security = "{c.security.value}" (usually 587 is "starttls", 465 "tls")'
        )
    if isinstance(exc, ConnectionRefusedError):
        return f"connection refused: is the mail server running, and is {c.port} its port?"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve {c.host}: check host and DNS"
    if isinstance(exc, TimeoutError):
        return (
            "no answer in time: check host, port and firewalls (a TLS-only port such as 465 "
            'needs security = "tls")'
        )
    return exc.strerror or str(exc) or type(exc).__name__


def _reply(code: int, text: bytes | str) -> str:
    words = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return f"{code} {' '.join(words.split())}".strip()
