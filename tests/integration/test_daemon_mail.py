"""`nastui daemon` against a real SMTP server (aiosmtpd): the alert mail, `nastui alert test`,
and a restart in the middle of an incident that must not send the same alerts again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nastui.history.db import History
from tests.mailsink import MailSink

pytestmark = pytest.mark.integration


def config(tmp_path: Path, sink: MailSink) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        "[alerts]\nrepeat_interval = 86400\n\n[alerts.email]\n"
        'to = "admin@example.org"\nfrom = "nano NAS <nas@example.org>"\n'
        f'host = "{sink.host}"\nport = {sink.port}\nsecurity = "none"\n'
    )
    return path


def nastui(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NASTUI_STATE_DIR": str(tmp_path / "state")}
    return subprocess.run(
        [sys.executable, "-m", "nastui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_alert_mail_and_no_duplicate_after_a_restart(tmp_path: Path) -> None:
    with MailSink() as sink:
        cfg = str(config(tmp_path, sink))
        first = nastui(tmp_path, "daemon", "--once", "--scenario", "failing-drive", "--config", cfg)
        assert first.returncode == 0, first.stderr
        assert len(sink.messages) >= 1
        # One mail per host the alerts are about: the box itself, and the fleet hosts of the
        # simulated scenario; every one sent as the box, whose name is in its subject and footer.
        assert all(m["Subject"].startswith("[nastui] nano: ") for m in sink.messages)
        assert all("\nnastui on nano, " in m.get_content() for m in sink.messages)
        assert any(m["Subject"].startswith("[nastui] nano: archive: ") for m in sink.messages)
        (mail,) = [m for m in sink.messages if "Current_Pending_Sector" in m.get_content()]
        assert mail["To"] == "admin@example.org"
        (fleet,) = [m for m in sink.messages if "offsite" in m["Subject"]]
        assert "[nastui] nano: CRITICAL offsite: " in fleet["Subject"]
        sent = len(sink.messages)
        # The daemon restarts mid-incident: the same alerts stand, nothing is sent again.
        second = nastui(
            tmp_path, "daemon", "--once", "--scenario", "failing-drive", "--config", cfg
        )
        assert second.returncode == 0, second.stderr
        assert len(sink.messages) == sent
        assert "alert firing" not in second.stdout
    history = History.open(tmp_path / "state" / "history.sqlite", readonly=True)
    delivered = {row.delivery for row in history.notices(0)}
    # "kept": self-test starts and results, recorded in the alert log but never sent
    assert all("sent" in d or d == "kept" for d in delivered), delivered


def test_alert_test_reaches_the_mailbox_and_says_so(tmp_path: Path) -> None:
    with MailSink() as sink:
        result = nastui(
            tmp_path, "alert", "test", "--demo", "--config", str(config(tmp_path, sink))
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("sent    email to admin@example.org")
        (mail,) = sink.messages
        assert "test" in mail["Subject"].lower()


def test_alert_test_names_a_dead_mail_server(tmp_path: Path) -> None:
    sink = MailSink()  # never started: nothing listens on its port
    result = nastui(tmp_path, "alert", "test", "--demo", "--config", str(config(tmp_path, sink)))
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED  email")
    assert "refused" in result.stdout and "Traceback" not in result.stderr


def test_alert_test_without_notifiers_says_how_to_add_one(tmp_path: Path) -> None:
    result = nastui(tmp_path, "alert", "test", "--demo")
    assert result.returncode == 78
    assert "no notifier configured: add [alerts.email], exec or webhook" in result.stderr


def test_the_ack_command_of_a_fleet_mail_works_as_printed(tmp_path: Path) -> None:
    with MailSink() as sink:
        cfg = str(config(tmp_path, sink))
        first = nastui(tmp_path, "daemon", "--once", "--scenario", "hot-bay", "--config", cfg)
        assert first.returncode == 0, first.stderr
        (mail,) = [m for m in sink.messages if "ups-rack" in m["Subject"]]
    text = mail.get_content()
    assert "nastui on nano, " in text  # the box that sent it, not the UPS
    (line,) = [x.strip() for x in text.splitlines() if x.strip().startswith("ack:")]
    command = line.removeprefix("ack:").strip()
    assert command.startswith("nastui alert ack ")
    # Run through a shell exactly as printed (the demo's options after the program name).
    program = f"{sys.executable} -m nastui --scenario hot-bay"
    env = {**os.environ, "NASTUI_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run(
        ["sh", "-c", command.replace("nastui", program, 1)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("acknowledged ups-rack/ups:")
    listed = nastui(tmp_path, "alert", "list", "--scenario", "hot-bay")
    assert "(acknowledged)" in listed.stdout.split("ups-rack/", 1)[1].split("\n")[1]
