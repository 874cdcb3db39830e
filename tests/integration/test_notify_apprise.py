"""apprise against a real HTTP server on loopback: its json:// and ntfy:// plugins post to it.

apprise (the `apprise` extra) does the talking; the sink is http.server in a thread, the same one
the webhook tests use. The URL comes from a file or a variable, as the configuration says.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.config import parse_config
from nastui.config.alerting import AppriseConfig
from nastui.model import NoticeKind
from nastui.notify import AppriseNotifier, NotifyError, message, notifiers_from, send_test
from nastui.notify.apprisehook import mask, notify_type
from tests.integration.test_notify_webhook import Hook, serve
from tests.unit.test_notify_message import HOT, notice, worse

pytestmark = pytest.mark.integration

apprise = pytest.importorskip("apprise", reason="the apprise extra: pip install -e '.[apprise]'")


@pytest.fixture
def hook() -> Iterator[Hook]:
    yield from serve(Hook())


@pytest.fixture(autouse=True)
def quiet_apprise() -> None:
    logging.getLogger("apprise").setLevel(logging.WARNING)


def url_file(tmp_path: Path, url: str) -> AppriseConfig:
    path = tmp_path / "apprise.url"
    path.write_text(url + "\n", encoding="utf-8")
    path.chmod(0o600)
    return AppriseConfig("phone", url_file=path)


def test_json_url_from_a_file_posts_title_body_and_type(hook: Hook, tmp_path: Path) -> None:
    target = url_file(tmp_path, f"json://127.0.0.1:{hook.port}/nas-alerts")
    notifier = AppriseNotifier(target, {})
    batch = [notice(NoticeKind.FIRING, HOT), worse()]
    notifier.send("nano", batch)
    [(path, headers, body)] = hook.requests
    assert path == "/nas-alerts"
    sent = json.loads(body)
    assert sent["title"] == "[nastui] nano: 2 alerts (1 critical, 1 warning)"
    assert sent["message"] == message.body("nano", batch).rstrip()
    assert sent["type"] == "failure"
    assert headers["Content-Type"].startswith("application/json")
    assert notifier.name == "apprise phone"


def test_ntfy_url_from_a_variable(hook: Hook) -> None:
    env = {"NASTUI_NTFY": f"ntfy://127.0.0.1:{hook.port}/nas-alerts"}
    notifier = AppriseNotifier(AppriseConfig("ntfy", url_env="NASTUI_NTFY"), env)
    notifier.send("nano", [worse()])
    [(_, _, body)] = hook.requests
    sent = json.loads(body)
    assert sent["topic"] == "nas-alerts"
    assert sent["title"] == message.subject("nano", [worse()])
    assert "Current_Pending_Sector" in sent["message"]


def test_a_refusing_service_is_one_masked_line(hook: Hook, tmp_path: Path) -> None:
    hook.status = 403
    target = url_file(tmp_path, f"json://secretuser:topsecret@127.0.0.1:{hook.port}/hook")
    with pytest.raises(NotifyError) as caught:
        AppriseNotifier(target, {}).send("nano", [worse()])
    text = str(caught.value)
    assert text.startswith("apprise phone (json://…): not delivered (")
    assert "topsecret" not in text and "secretuser" not in text
    assert "\n" not in text


def test_missing_or_odd_urls(tmp_path: Path) -> None:
    missing = AppriseConfig("phone", url_file=tmp_path / "nope.url")
    with pytest.raises(NotifyError, match=r"cannot read url_file .*nope.url: No such file"):
        AppriseNotifier(missing, {}).send("nano", [worse()])
    with pytest.raises(NotifyError, match=r"url_env NASTUI_X holds no apprise URL"):
        AppriseNotifier(AppriseConfig("x", url_env="NASTUI_X"), {}).send("nano", [worse()])
    unknown = AppriseNotifier(AppriseConfig("x", url_env="U"), {"U": "nosuchscheme://abc"})
    with pytest.raises(NotifyError, match="apprise does not know this URL"):
        unknown.send("nano", [worse()])


def test_configured_targets_and_alert_test(hook: Hook, tmp_path: Path) -> None:
    (tmp_path / "phone.url").write_text(f"json://127.0.0.1:{hook.port}/t\n")
    text = (
        '[[alerts.apprise]]\nname = "phone"\nurl_file = "phone.url"\n\n'
        '[[alerts.apprise]]\nname = "chat"\nurl_env = "NASTUI_CHAT"\n'
    )
    config = parse_config(text, tmp_path / "config.toml")
    assert config.alerts.apprise == (
        AppriseConfig("phone", url_file=tmp_path / "phone.url"),
        AppriseConfig("chat", url_env="NASTUI_CHAT"),
    )
    env = {"NASTUI_CHAT": f"json://127.0.0.1:{hook.port}/c"}
    outcomes = send_test(notifiers_from(config.alerts, env), "nano", 1000.0)
    assert outcomes == [("apprise phone", None), ("apprise chat", None)]
    assert [path for path, _, _ in hook.requests] == ["/t", "/c"]
    assert all(json.loads(body)["type"] == "info" for _, _, body in hook.requests)


def test_helpers() -> None:
    assert mask("failed at https://api.example/bot123456:ABCDEF", "tgram://123456:ABCDEF/") == (
        "failed at https://api.example/bot…:…"
    )
    assert notify_type([notice(NoticeKind.RECOVERED, HOT)]) == "success"
    assert notify_type([notice(NoticeKind.FIRING, HOT)]) == "warning"
