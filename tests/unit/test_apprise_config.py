"""`[[alerts.apprise]]` configuration, and the notifier without the apprise extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from nastui.config import ConfigError, parse_config
from nastui.config.alerting import AppriseConfig
from nastui.notify import AppriseNotifier, NotifyError
from nastui.notify.apprisehook import MISSING
from tests.unit.test_notify_message import worse


def test_a_url_in_the_config_is_refused(tmp_path: Path) -> None:
    text = '[[alerts.apprise]]\nname = "p"\nurl = "tgram://123:abc/456"\n'
    with pytest.raises(ConfigError, match=r"an apprise URL holds the service's token"):
        parse_config(text, tmp_path / "c.toml")


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ('name = "p"\n', "needs exactly one of url_file and url_env"),
        ('name = "p"\nurl_file = "a"\nurl_env = "B"\n', "needs exactly one of"),
        ('name = "p"\nurl_env = "not a name"\n', "an environment variable name"),
        ('name = "p"\nurl_file = "~/a"\n', "no ~"),
        ('url_env = "B"\n', "name"),
    ],
)
def test_bad_targets(tmp_path: Path, body: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        parse_config("[[alerts.apprise]]\n" + body, tmp_path / "c.toml")


def test_without_the_extra_it_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "apprise", None)
    target = AppriseConfig("p", url_env="U")
    with pytest.raises(NotifyError) as caught:
        AppriseNotifier(target, {"U": "json://127.0.0.1:9/x"}).send("nano", [worse()])
    assert str(caught.value) == f"apprise p: {MISSING}"
