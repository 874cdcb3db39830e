"""`nastui capture` of a fake box (fake /sys tree, a fake smartctl replaying real reports), and
`--root BUNDLE` replaying it: the same `drives`, `bays` and `pools --json` with no program run,
from the .tar.gz or unpacked; serials masked the same way everywhere; no secret of the
configuration in the bundle; no sleeping drive woken."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import nastui
from tests.cli.test_json_schema import DOC
from tests.cli.test_pools_cli import MDSTAT, degraded_tank
from tests.fakepools import install, md_tree
from tests.smartbox import FakeBox, fake_box

VIEWS = ("drives", "bays", "pools")
SECRETS = {
    "community": "c0mmunity-s3cret",
    "auth": "v3-auth-s3cret",
    "priv file": "v3-priv-file-s3cret",
    "smtp file": "smtp-file-s3cret",
    "apprise file": "tgram://123456:apprise-t0ken/987",
    "webhook": "webhook-path-t0ken",
    "exec": "exec-arg-t0ken",
}
SECRET_CONFIG = f"""
# comment with a secret: {SECRETS["auth"]}
[[host]]
name = "old-nas"
address = "192.0.2.10"
community = "{SECRETS["community"]}"

[[host]]
name = "v3-nas"
address = "192.0.2.11"
version = "3"
user = "monitor"
auth_protocol = "SHA"
auth_password = "{SECRETS["auth"]}"
priv_protocol = "AES"
priv_password_file = "priv.pass"

[alerts]
webhook = "https://hooks.example.org/services/T000/{SECRETS["webhook"]}?x=1"
exec = ["/usr/local/bin/notify", "--token", "{SECRETS["exec"]}"]

[alerts.email]
to = ["ops@example.org"]
from = "nas@example.org"
host = "smtp.example.org"
username = "nas"
password_file = "smtp.pass"

[[alerts.apprise]]
name = "phone"
url_file = "apprise.url"

[[ups]]
target = "rackups@192.0.2.20"
"""


def box(tmp_path: Path) -> FakeBox:
    """The fake box with only the fake smartctl on PATH (no zpool or btrfs of this machine)."""
    found = fake_box(tmp_path)
    found.env["PATH"] = found.env["PATH"].split(os.pathsep)[0]
    return found


def capture(found: FakeBox, output: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = nastui(*found.where, "capture", "-o", str(output), *args, env=found.env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done


def views(bundle: Path) -> dict[str, Any]:
    """The views the bundle recorded at capture time."""
    with tarfile.open(bundle) as tar:
        found = {}
        for member in tar.getmembers():
            name = Path(member.name)
            if name.parent.name == "views" and name.suffix == ".json":
                data = tar.extractfile(member)
                assert data is not None
                found[name.stem] = json.load(data)
    return found


def replay(where: Path, view: str, env: dict[str, str], root_was: Path) -> Any:
    """`nastui --root WHERE VIEW --json`, with the tree's place written as the captured root's
    (messages name files under the root they read)."""
    done = nastui("--root", str(where), view, "--json", env=env)
    assert done.returncode == 0, done.stderr
    text = re.sub(r"/tmp/nastui-replay-[^/\"]+/nastui-capture-[^/\"]+", str(root_was), done.stdout)
    return json.loads(text.replace(str(where), str(root_was)))


def all_bytes(bundle: Path) -> list[tuple[str, bytes]]:
    """Every member's name, link target and content."""
    with tarfile.open(bundle) as tar:
        out = []
        for member in tar.getmembers():
            data = tar.extractfile(member) if member.isfile() else None
            content = data.read() if data is not None else b""
            out.append((member.name, member.linkname.encode() + content))
        return out


def test_a_capture_replays_to_the_same_views_without_running_anything(tmp_path: Path) -> None:
    found = box(tmp_path)
    live = {v: json.loads(nastui(*found.where, v, "--json", env=found.env).stdout) for v in VIEWS}
    bundle = tmp_path / "box.tar.gz"
    capture(found, bundle)
    recorded = views(bundle)
    calls = len(SmartBoxLog(found).calls())
    replay_env = {**found.env, "NASTUI_ROOT_TOOLS": "", "NASTUI_STATE_DIR": str(tmp_path / "s2")}
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    with tarfile.open(bundle) as tar:
        tar.extractall(unpacked, filter="data")
    (top,) = unpacked.iterdir()
    for where in (bundle, top):
        for view in VIEWS:
            assert replay(where, view, replay_env, found.root) == recorded[view], (where, view)
    assert len(SmartBoxLog(found).calls()) == calls  # replayed: no smartctl ran
    for view in VIEWS:  # and the live box says the same, but for the time it was read
        live[view].pop("taken_at", None)
        recorded[view].pop("taken_at", None)
        assert recorded[view] == live[view], view
    drives = {d["dev"]: d for d in recorded["drives"]["drives"]}
    assert drives["sdb"]["health"] == "CRITICAL" and drives["sdd"]["power"] == "standby"
    assert {b["bay"]: b["mapped_by"] for b in recorded["bays"]["bays"]} == {
        0: "serial",
        1: "enclosure",
        2: "serial",
        3: "serial",
    }


def test_pools_of_every_kind_replay_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A degraded ZFS pool from a text-only zpool (its JSON refused, exit 2, recorded too) and
    md arrays from /proc/mdstat and md sysfs, captured and replayed."""
    found = box(tmp_path)
    (tmp_path / "tools").mkdir()
    tools = install(tmp_path / "tools", monkeypatch)
    degraded_tank(tools)
    md_tree(found.root, MDSTAT, {"md3": {"sync_action": "check"}})
    found.env["PATH"] += os.pathsep + os.environ["PATH"]
    bundle = tmp_path / "pools.tar.gz"
    capture(found, bundle)
    recorded = views(bundle)
    kinds = sorted({p["kind"] for p in recorded["pools"]["pools"]})
    assert kinds == ["mdraid", "zfs"], recorded["pools"]
    env = {**found.env, "NASTUI_ROOT_TOOLS": "", "PATH": "/nonexistent"}
    for view in VIEWS:
        assert replay(bundle, view, env, found.root) == recorded[view], view


class SmartBoxLog:
    """The fake smartctl's call log of a fake box."""

    def __init__(self, found: FakeBox) -> None:
        self.path = Path(found.env["FAKE_SMARTCTL_LOG"])

    def calls(self) -> list[list[str]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line]


def test_a_sleeping_drive_is_never_woken_and_awake_ones_are_reported_in_full(
    tmp_path: Path,
) -> None:
    found = box(tmp_path)
    done = capture(found, tmp_path / "b.tar.gz", "--json")
    assert "sdd: standby, so no smartctl -x (never woken)" in done.stderr
    data = json.loads(done.stdout)
    assert next(iter(data)) == "schema" and all(f"`{key}" in DOC for key in data), data
    assert data["notes"] == ["sdd: standby, so no smartctl -x (never woken)"]
    assert data["size_bytes"] == (tmp_path / "b.tar.gz").stat().st_size
    calls = [c for c in SmartBoxLog(found).calls() if c[-1].startswith("/")]  # a drive's
    assert calls and all(c[:2] == ["-n", "standby"] for c in calls), calls
    assert not Path(found.env["FAKE_SMARTCTL_WAKES"]).exists()
    full = sorted(Path(c[-1]).name for c in calls if "-x" in c)
    assert full == ["sda", "sda", "sdb", "sdb", "sdc", "sdc"]  # text and JSON, never sdd


def test_masked_serials_are_masked_everywhere_and_still_replay(tmp_path: Path) -> None:
    found = box(tmp_path)
    bundle = tmp_path / "masked.tar.gz"
    done = capture(found, bundle, "--mask-serials")
    recorded = views(bundle)
    serials = {"SERA", "SERB", "SERD", "8DG3J2ZD"}
    reported = {d["serial"] for d in recorded["drives"]["drives"]}
    assert not reported & serials and len(reported) == 4
    smart = json.loads(nastui(*found.where, "drives", "--json", env=found.env).stdout)
    serials |= {d["serial"] for d in smart["drives"]}  # as smartctl reports them too
    for name, data in all_bytes(bundle):
        for serial in serials:
            assert serial not in name and serial.encode() not in data, (serial, name)
    by_id = [n for n, _ in all_bytes(bundle) if "/dev/disk/by-id/" in n]
    tokens = {n.rsplit("_", 1)[1] for n in by_id}
    assert tokens <= reported  # a by-id name and the drive's serial: the same token
    env = {**found.env, "NASTUI_ROOT_TOOLS": ""}
    for view in VIEWS:
        assert replay(bundle, view, env, found.root) == recorded[view], view
    assert {b["bay"]: b["mapped_by"] for b in recorded["bays"]["bays"]}[0] == "serial"
    assert "4 serials masked" in done.stdout


def test_the_bundle_holds_no_secret_of_the_configuration(tmp_path: Path) -> None:
    found = box(tmp_path)
    config = found.config.read_text() + SECRET_CONFIG
    found.config.write_text(config)
    (found.config.parent / "priv.pass").write_text(SECRETS["priv file"] + "\n")
    (found.config.parent / "smtp.pass").write_text(SECRETS["smtp file"] + "\n")
    (found.config.parent / "apprise.url").write_text(SECRETS["apprise file"] + "\n")
    check = nastui("--root", str(found.root), "config", "check", str(found.config), env=found.env)
    assert check.returncode == 0, check.stdout + check.stderr  # valid, and bound to its drives
    bundle = tmp_path / "secret.tar.gz"
    capture(found, bundle)
    everything = all_bytes(bundle)
    for what, secret in SECRETS.items():
        for name, data in everything:
            assert secret.encode() not in data, (what, name)
    kept = next(d for n, d in everything if n.endswith("nastui-capture/config.toml")).decode()
    assert "hooks.example.org" in kept and 'user = "monitor"' in kept  # the rest stays
    assert 'exec = ["/usr/local/bin/notify", "REDACTED", "REDACTED"]' in kept
    env = {**found.env, "NASTUI_ROOT_TOOLS": ""}
    assert nastui("--root", str(bundle), "bays", "--json", env=env).returncode == 0
    status = json.loads(nastui("--root", str(bundle), "status", "--json", env=env).stdout)
    assert status["ups"] == []  # the box is replayed, not its network (no NUT, no SNMP)


def test_an_existing_output_is_never_overwritten_and_the_demo_is_no_box(tmp_path: Path) -> None:
    found = box(tmp_path)
    there = tmp_path / "there.tar.gz"
    there.write_text("mine")
    done = nastui(*found.where, "capture", "-o", str(there), env=found.env)
    assert done.returncode == 73 and there.read_text() == "mine"
    assert done.stderr.strip().splitlines()[-1] == (
        f"nastui capture: {there} exists: not overwritten (give another --output)"
    )
    demo = nastui("--demo", "capture", "-o", str(tmp_path / "demo.tar.gz"))
    assert demo.returncode == 64
    assert "capture reads a real machine, not the simulator (--demo)" in demo.stderr
    missing = nastui(
        *found.where, "capture", "-o", str(tmp_path / "no/dir/b.tar.gz"), env=found.env
    )
    assert missing.returncode == 73 and "No such file or directory" in missing.stderr


@pytest.mark.parametrize("junk", [b"not a tar at all", b""])
def test_a_root_that_is_no_bundle_is_one_line(tmp_path: Path, junk: bytes) -> None:
    path = tmp_path / "junk.tar.gz"
    path.write_bytes(junk)
    done = nastui("--root", str(path), "drives", "--json")
    assert done.returncode == 65, done.stderr
    assert done.stderr.startswith(f"nastui: --root {path}: not a capture bundle")
    assert len(done.stderr.splitlines()) == 1
