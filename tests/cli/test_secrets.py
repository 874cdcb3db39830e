"""Secrets stay with nastui: its children get a minimal environment, and `--debug` masks them.

Before: every child (smartctl, zpool, the exec hook) inherited the SMTP password and the apprise
URL an operator exported for nastui (4 of 4 runs), and `--debug` printed apprise's own log lines
with the URL's token in them. Now a child gets PATH, TZ, TMPDIR and the C locale (and what its
caller passes: the hook's NASTUI_* variables, ipmitool's password), and every log record passes
a filter that masks the secrets nastui read and credentials in any URL.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nastui import exits
from nastui.core.redact import SECRETS, RedactingFilter, mask_credentials
from tests.fakepools import real_programs
from tests.integration.test_notify_webhook import Hook, serve
from tests.rootfuzz import make_tree

SMTP_PASSWORD = "hunter2-smtp-Pa55"
APPRISE_URL = "tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/987654321"
ENV_DUMP = '#!/bin/sh\nenv > "{dump}"\nexit {code}\n'
# What a child may see besides what its caller gives it; `sh` adds PWD, SHLVL and _.
BASE = {"PATH", "TZ", "TMPDIR", "LC_ALL", "LANG", "PWD", "SHLVL", "_"}
HOOK_VARIABLES = {
    "NASTUI_HOST", "NASTUI_KIND", "NASTUI_HEALTH", "NASTUI_SUBJECT", "NASTUI_KEY",
    "NASTUI_NAME", "NASTUI_MESSAGE", "NASTUI_COUNT",
}  # fmt: skip


def dumping(bin_dir: Path, name: str, dump: Path, code: int = 0) -> None:
    script = bin_dir / name
    script.write_text(ENV_DUMP.format(dump=dump, code=code))
    script.chmod(0o755)


def run(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nastui", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_smartctl_zpool_and_the_exec_hook_never_see_nastuis_secrets(tmp_path: Path) -> None:
    root, config = make_tree(tmp_path)
    bin_dir, dumps = tmp_path / "bin", tmp_path / "dumps"
    bin_dir.mkdir()
    dumps.mkdir()
    for tool, code in (("smartctl", 1), ("zpool", 1)):
        dumping(bin_dir, tool, dumps / tool, code)
    dumping(bin_dir, "page-me", dumps / "hook")
    config.write_text(
        config.read_text() + f'[collectors]\nzfs = true\n[alerts]\nexec = ["{bin_dir}/page-me"]\n'
    )
    env = {
        "PATH": f"{bin_dir}:{real_programs(tmp_path / 'sysbin', ('sh', 'env'))}",
        "PYTHONPATH": os.environ.get("PYTHONPATH", str(Path.cwd())),
        "NASTUI_STATE_DIR": str(tmp_path / "state"),
        "NASTUI_ROOT_TOOLS": "path",  # the fakes on PATH answer for the fake --root tree
        "NASTUI_SMTP_PASSWORD": SMTP_PASSWORD,
        "NAS_APPRISE_URL": APPRISE_URL,
        "AWS_SECRET_ACCESS_KEY": "not-for-children-1",
    }
    status = run("--root", str(root), "--config", str(config), "status", env=env)
    assert status.returncode in (0, 1, 2, 3), status.stderr
    sent = run("--config", str(config), "alert", "test", env=env)
    assert sent.returncode == exits.OK, sent.stderr
    seen = {path.name: path.read_text() for path in dumps.iterdir()}
    assert set(seen) == {"smartctl", "zpool", "hook"}
    for name, text in seen.items():
        names = {line.partition("=")[0] for line in text.splitlines() if "=" in line}
        assert SMTP_PASSWORD not in text and "AAHdqTcv" not in text, name
        assert "not-for-children" not in text, name
        allowed = BASE | (HOOK_VARIABLES if name == "hook" else set())
        assert names <= allowed, (name, names - allowed)
        assert "LC_ALL=C" in text.splitlines()
    assert {line.partition("=")[0] for line in seen["hook"].splitlines()} >= HOOK_VARIABLES


@pytest.fixture
def hook() -> Iterator[Hook]:
    yield from serve(Hook())


def test_debug_masks_the_apprise_token_in_apprises_own_log(hook: Hook, tmp_path: Path) -> None:
    pytest.importorskip("apprise", reason="the apprise extra: pip install -e '.[apprise]'")
    url = f"json://alice:S3cretPassw0rd@127.0.0.1:{hook.port}/hooks/T0KENPATH99?token=QUERYTOK77"
    config = tmp_path / "config.toml"
    config.write_text('[[alerts.apprise]]\nname = "phone"\nurl_env = "NAS_APPRISE_URL"\n')
    env = {**os.environ, "NAS_APPRISE_URL": url, "NASTUI_STATE_DIR": str(tmp_path / "state")}
    env.pop("NASTUI_CONFIG", None)
    done = run("--debug", "--config", str(config), "alert", "test", env=env)
    assert done.returncode == exits.OK, done.stderr
    assert len(hook.requests) == 1  # delivered: the masking changed only the log
    apprise_lines = [ln for ln in done.stderr.splitlines() if ln.startswith("debug apprise:")]
    assert any("POST URL" in ln for ln in apprise_lines), done.stderr
    for secret in ("S3cretPassw0rd", "T0KENPATH99", "QUERYTOK77"):
        assert secret not in done.stderr
    assert "…" in done.stderr


@pytest.fixture
def registry() -> Iterator[None]:
    saved = SECRETS._known  # the process-wide registry, restored after
    yield
    SECRETS._known = saved


def test_the_filter_masks_registered_secrets_and_url_credentials(registry: None) -> None:
    SECRETS.add(SMTP_PASSWORD)
    SECRETS.add_url(APPRISE_URL)
    record = logging.LogRecord(
        "apprise",
        logging.DEBUG,
        __file__,
        1,
        "Telegram POST URL: %s (password %s)",
        (
            "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/x",
            SMTP_PASSWORD,
        ),
        None,
    )
    assert RedactingFilter().filter(record)
    text = record.getMessage()
    assert text == "Telegram POST URL: https://api.telegram.org/bot…:…/x (password …)"
    assert mask_credentials("https://bob:pw1234@h/x?apikey=abc&q=1") == (
        "https://bob:…@h/x?apikey=…&q=1"
    )
    SECRETS.add("ab")  # too short to mask without masking words
    assert SECRETS.mask("about") == "about"
