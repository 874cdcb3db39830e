"""The exec hook running real scripts, and `send_test` through mail, hook and webhook at once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui.config.alerting import EmailConfig, Security
from nastui.model import NoticeKind
from nastui.notify import (
    EmailNotifier,
    ExecNotifier,
    Notifier,
    NotifyError,
    WebhookNotifier,
    message,
    send_test,
)
from tests.integration.test_notify_webhook import Hook, serve
from tests.mailsink import HOST, MailSink, free_port
from tests.unit.test_notify_message import AT, HOT, KEY, notice, worse

pytestmark = pytest.mark.integration

RECORDER = """#!/bin/sh
cat > "$1/stdin.json"
env | grep '^NASTUI_' | sort > "$1/env"
"""
FAILING = """#!/bin/sh
cat > /dev/null
echo >&2
echo "relay down: 421 try later" >&2
echo "second line" >&2
exit 3
"""


def script(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[tuple[ExecNotifier, Path]]:
    out = tmp_path / "out"
    out.mkdir()
    yield ExecNotifier([script(tmp_path, "record.sh", RECORDER), str(out)]), out


def test_hook_gets_json_on_stdin_and_variables(recorder: tuple[ExecNotifier, Path]) -> None:
    hook, out = recorder
    batch = [notice(NoticeKind.FIRING, HOT), worse()]
    hook.send("nano", batch)
    assert json.loads((out / "stdin.json").read_text()) == message.document("nano", batch)
    lines = (out / "env").read_text().splitlines()
    # The hook inherits the environment: leave out what the test run itself set (CI's flag).
    ours = [line for line in lines if not line.startswith("NASTUI_REQUIRE_INTEGRATION=")]
    assert ours == [
        "NASTUI_COUNT=2",
        "NASTUI_HEALTH=critical",
        "NASTUI_HOST=nano",
        f"NASTUI_KEY={KEY}",
        "NASTUI_KIND=worse",
        "NASTUI_MESSAGE=Current_Pending_Sector 8",
        "NASTUI_NAME=bay 13 sdk",
        "NASTUI_SUBJECT=[nastui] nano: 2 alerts (1 critical, 1 warning)",
    ]


def test_failing_hook_gives_exit_code_and_first_stderr_line(tmp_path: Path) -> None:
    path = script(tmp_path, "fail.sh", FAILING)
    with pytest.raises(NotifyError) as caught:
        ExecNotifier([path]).send("nano", [worse()])
    assert str(caught.value) == f"exec hook {path}: exited 3: relay down: 421 try later"


def test_missing_hook(tmp_path: Path) -> None:
    path = str(tmp_path / "no-such-hook")
    with pytest.raises(NotifyError) as caught:
        ExecNotifier([path]).send("nano", [worse()])
    assert str(caught.value) == (
        f"exec hook {path}: {path} not found (is it installed and on PATH?): fix [alerts] exec"
    )


def test_hung_hook_is_killed(tmp_path: Path) -> None:
    path = script(tmp_path, "hang.sh", "#!/bin/sh\nsleep 60\n")
    with pytest.raises(NotifyError) as caught:
        ExecNotifier([path], timeout=0.3).send("nano", [worse()])
    assert str(caught.value) == (
        f"exec hook {path}: still running after 0.3 s, killed: make it return quickly "
        "(leave slow work to a background job)"
    )


def test_send_test_through_all_three(recorder: tuple[ExecNotifier, Path]) -> None:
    hook, out = recorder
    with MailSink() as sink:
        for web in serve(Hook()):
            plain = Security.NONE  # the loopback sink speaks plain SMTP
            config = EmailConfig(("admin@example.org",), "nas@example.org", HOST, sink.port, plain)
            mail = EmailNotifier(config, {})
            notifiers: list[Notifier] = [mail, hook, WebhookNotifier(web.url())]
            outcomes = send_test(notifiers, "nano", AT)
            assert outcomes == [(n.name, None) for n in notifiers]
            [(_, headers, body)] = web.requests
            assert headers["Title"] == "[nastui] nano: test message"
            assert json.loads(body)["notices"][0]["kind"] == "test"
    assert [m["Subject"] for m in sink.messages] == ["[nastui] nano: test message"]
    assert "NASTUI_KIND=test" in (out / "env").read_text()


def test_send_test_reports_each_failure_and_goes_on(recorder: tuple[ExecNotifier, Path]) -> None:
    hook, out = recorder
    dead = WebhookNotifier(f"http://{HOST}:{free_port()}/x")
    outcomes = send_test([dead, hook], "nano", AT)
    assert outcomes[0][0] == dead.name
    assert outcomes[0][1] is not None and outcomes[0][1].startswith(f"{dead.name}: ")
    assert outcomes[1] == (hook.name, None)
    assert (out / "stdin.json").exists()


async def test_hook_runs_from_a_worker_thread_of_a_running_loop(
    recorder: tuple[ExecNotifier, Path],
) -> None:
    """As the daemon calls it: `asyncio.to_thread(notifier.send, ...)` inside its event loop."""
    hook, out = recorder
    await asyncio.to_thread(hook.send, "nano", [worse()])
    assert "NASTUI_KIND=worse" in (out / "env").read_text()
