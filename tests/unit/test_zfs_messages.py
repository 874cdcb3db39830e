"""Every OpenZFS release's words read the same way: each message `zpool` prints when it cannot
answer (module missing or not loadable, /dev/zfs missing or not permitted, libzfs failing, no
pools, no such pool, `-j` unknown), as 2.0.7, 2.1.11, 2.2.7, 2.3.2 and master print it
(fixtures/zpool/messages: file, line and commit per text), maps to one `Meaning`; so do real
runs of 2.1.11 and 2.3.2, through the collector."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nastui.collectors.zfs import collector as zfs
from nastui.collectors.zfs.messages import Meaning, first_line, meaning, missing_pools
from tests.fakepools import install
from tests.zfswords import Said, capture, captures, source_messages

SOURCE = source_messages()
CAPTURED = captures()
HEADS = {
    Meaning.MODULE_NOT_LOADED: "ZFS kernel module not loaded",
    Meaning.MODULE_NOT_LOADABLE: "ZFS kernel module cannot be loaded",
    Meaning.NO_DEVICE: "/dev/zfs missing",
    Meaning.NO_PERMISSION: "no permission on /dev/zfs",
}
RELEASES = ("2.0.7", "2.1.11", "2.2.7", "2.3.2", "master")


@pytest.mark.parametrize("said", SOURCE, ids=[s.id for s in SOURCE])
def test_each_release_text_has_its_meaning(said: Said) -> None:
    assert meaning(said.text) is Meaning(said.meaning)


def test_every_release_and_meaning_is_in_the_table() -> None:
    for release in RELEASES:
        meanings = {s.meaning for s in SOURCE if s.release == release}
        expected = {m.value for m in Meaning} - (
            {Meaning.NO_JSON.value} if release in ("2.3.2", "master") else set()
        )
        assert meanings == expected, release


def test_the_module_words_changed_in_2_2() -> None:
    """2.0 and 2.1 name /sbin/modprobe; 2.2 and later run `modprobe zfs` themselves."""
    for said in SOURCE:
        if said.meaning in ("module not loaded", "module cannot be loaded"):
            old = said.release in ("2.0.7", "2.1.11")
            assert ("'/sbin/modprobe zfs'" in said.text) is old, said


@pytest.mark.parametrize("said", CAPTURED, ids=[s.where for s in CAPTURED])
def test_real_runs_have_their_meaning(said: Said) -> None:
    assert meaning(said.text + said.stdout) is Meaning(said.meaning)


@pytest.mark.parametrize("said", [s for s in CAPTURED if s.returncode == 1], ids=lambda s: s.where)
def test_real_runs_print_the_source_text(said: Said) -> None:
    """What the binaries printed is the text read in their release's source."""
    texts = {s.text for s in SOURCE if s.release == said.release}
    assert said.text in texts


def test_neighbours_are_not_confused() -> None:
    assert meaning("no pools available to import\n") is None
    assert meaning("cannot open 'tank': pool I/O is currently suspended\n") is None
    assert meaning("  pool: no pools available\n") is None
    assert meaning("") is None


def test_missing_pool_names() -> None:
    text = "cannot open 'tank': no such pool\ncannot open 'my pool': no such pool\n"
    assert missing_pools(text) == ("tank", "my pool")
    assert (
        first_line("\n  The ZFS modules are not loaded.\nTry ...")
        == "The ZFS modules are not loaded."
    )


@pytest.mark.parametrize(
    ("release", "situation", "said"),
    [
        ("2.1.11", "no-module", Meaning.MODULE_NOT_LOADED),
        ("2.3.2", "no-module", Meaning.MODULE_NOT_LOADABLE),
        ("2.1.11", "no-dev-zfs", Meaning.NO_DEVICE),
        ("2.3.2", "no-dev-zfs", Meaning.NO_DEVICE),
        ("2.1.11", "dev-zfs-0600-user", Meaning.NO_PERMISSION),
        ("2.3.2", "dev-zfs-0600-user", Meaning.NO_PERMISSION),
    ],
)
def test_the_collector_reads_each_real_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, release: str, situation: str, said: Meaning
) -> None:
    tools = install(tmp_path, monkeypatch)
    run = capture(release, situation)
    for argv in (zfs.status_json_argv(), zfs.list_argv(), zfs.space_argv()):
        tools.answer(argv[0], " ".join(argv[1:]), run.stdout, run.text, run.returncode)
    report = asyncio.run(zfs.ZfsCollector().collect(1000.0))
    assert (report.pools, report.said, report.message) == ((), said, first_line(run.text))
    (error,) = report.errors
    head = f"{HEADS[said]} (zpool: {first_line(run.text)}): ZFS pools are not read; "
    assert error.message.startswith(head), error.message


def test_2_1_falls_back_to_text_on_its_real_usage_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = install(tmp_path, monkeypatch)
    run = capture("2.1.11", "json-option")
    tools.answer(
        "zpool", " ".join(zfs.status_json_argv()[1:]), run.stdout, run.text, run.returncode
    )
    tools.answer("zpool", " ".join(zfs.status_text_argv()[1:]), "", "no pools available\n", 0)
    for argv in (zfs.list_argv(), zfs.space_argv()):
        tools.answer(argv[0], " ".join(argv[1:]), "", "", 0)
    collector = zfs.ZfsCollector()
    report = asyncio.run(collector.collect(1000.0))
    assert report == zfs.ZfsReport()
    assert collector.uses_json is False
