"""The webhook against a real HTTP server on loopback (http.server in a thread)."""

from __future__ import annotations

import base64
import json
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from nastui.model import NoticeKind
from nastui.notify import NotifyError, WebhookNotifier, message
from tests.mailsink import HOST, Cert, client_context, free_port, make_cert, server_context
from tests.unit.test_notify_message import HOT, notice, worse

pytestmark = pytest.mark.integration


@dataclass
class Hook:
    """What the test server received, and what it answers."""

    status: int = 200
    answer: bytes = b'{"id":"x"}'
    location: str | None = None
    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    port: int = 0
    scheme: str = "http"

    def url(self, path: str = "/nas-alerts") -> str:
        return f"{self.scheme}://{HOST}:{self.port}{path}"


def _handler(hook: Hook) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            hook.requests.append((self.path, dict(self.headers.items()), self.rfile.read(length)))
            self.send_response(hook.status)
            if hook.location:
                self.send_header("Location", hook.location)
            self.send_header("Content-Length", str(len(hook.answer)))
            self.end_headers()
            self.wfile.write(hook.answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


def serve(hook: Hook, tls: ssl.SSLContext | None = None) -> Iterator[Hook]:
    server = ThreadingHTTPServer((HOST, 0), _handler(hook))
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
        hook.scheme = "https"
    hook.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield hook
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def hook() -> Iterator[Hook]:
    yield from serve(Hook())


@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> Cert:
    return make_cert(tmp_path_factory.mktemp("tls"))


def test_posts_the_json_document_with_ntfy_headers(hook: Hook) -> None:
    batch = [notice(NoticeKind.FIRING, HOT), worse()]
    WebhookNotifier(hook.url()).send("nano", batch)
    [(path, headers, body)] = hook.requests
    assert path == "/nas-alerts"
    assert json.loads(body) == message.document("nano", batch)
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    assert headers["Title"] == "[nastui] nano: 2 alerts (1 critical, 1 warning)"
    assert (headers["Priority"], headers["Tags"]) == ("5", "rotating_light")
    assert "Authorization" not in headers


def test_credentials_in_the_url_become_basic_auth(hook: Hook) -> None:
    url = hook.url().replace("://", "://nas:pa%3Ass@")
    notifier = WebhookNotifier(url)
    notifier.send("nano", [worse()])
    [(_, headers, _)] = hook.requests
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"nas:pa%3Ass").decode()
    assert "pa%3Ass" not in notifier.name


def test_server_error_is_one_line() -> None:
    for failing in serve(Hook(status=500, answer=b'{"error": "database\nlocked"}')):
        with pytest.raises(NotifyError) as caught:
            WebhookNotifier(failing.url()).send("nano", [worse()])
        assert str(caught.value) == (
            f"webhook http://{HOST}:{failing.port}/…: HTTP 500 Internal Server Error "
            '{"error": "database locked"}: check the receiving service'
        )


def test_a_redirect_is_not_followed() -> None:
    for moved in serve(Hook(status=301, location="https://elsewhere.example/")):
        with pytest.raises(NotifyError, match=r": redirected \(HTTP 301\): put the final URL in"):
            WebhookNotifier(moved.url()).send("nano", [worse()])
        assert len(moved.requests) == 1


def test_connection_refused() -> None:
    port = free_port()
    with pytest.raises(NotifyError) as caught:
        WebhookNotifier(f"http://{HOST}:{port}/x").send("nano", [worse()])
    assert str(caught.value) == (
        f"webhook http://{HOST}:{port}/…: connection refused: is the service running, and is "
        "the port right?"
    )


def test_https_verifies_the_certificate(cert: Cert) -> None:
    for secure in serve(Hook(), tls=server_context(cert)):
        with pytest.raises(NotifyError, match=r"certificate verify failed \(self.signed"):
            WebhookNotifier(secure.url()).send("nano", [worse()])
        WebhookNotifier(secure.url(), context=client_context(cert)).send("nano", [worse()])
        assert len(secure.requests) == 1
