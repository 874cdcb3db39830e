"""The runner's stand-in under `--root`: a bundle's recorded programs answer, another tree's
programs are refused without starting anything, this machine's root runs them; bundle archives
unpack only when every member stays inside."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from nastui.collectors import runner, standin
from nastui.collectors.replay import (
    META,
    BundleError,
    ToolTable,
    Unavailable,
    open_tree,
    relative_argv,
    result_data,
)
from nastui.collectors.runner import CommandResult


def bundle(root: Path, runs: dict[tuple[str, ...], list[CommandResult]]) -> Path:
    """A minimal unpacked bundle at `root` whose tools.json records `runs`."""
    meta = root / META
    meta.mkdir(parents=True)
    (meta / "manifest.json").write_text(
        json.dumps({"format": 1, "host": "box", "taken_at": 1000.0, "masked": False})
    )
    table = {
        "format": 1,
        "installed": {"zpool": True, "btrfs": False},
        "runs": [
            {"argv": list(argv), "results": [result_data(r) for r in results]}
            for argv, results in runs.items()
        ],
    }
    (meta / "tools.json").write_text(json.dumps(table))
    return root


def done(argv: tuple[str, ...], out: str, code: int = 0) -> CommandResult:
    return CommandResult(argv, code, out, "", 0.5)


def test_another_tree_starts_nothing(tmp_path: Path) -> None:
    witness = tmp_path / "touched"
    standin.use(open_tree(tmp_path, {}).stand_in)
    result = runner.run_sync(["touch", str(witness)], timeout=5)
    assert not witness.exists()
    assert result.returncode == 126 and not result.ok and not result.not_found
    assert result.describe() == (
        f"touch: not run under --root {tmp_path} (a tree, not this machine; a capture bundle "
        "brings its programs' outputs)"
    )
    assert not standin.installed("sh")
    assert standin.absent("zpool", "no zpool") == "zpool not run under --root"


def test_the_real_root_and_an_explicit_path_run_programs(tmp_path: Path) -> None:
    assert open_tree(Path("//"), {}).stand_in is None
    assert open_tree(tmp_path, {"NASTUI_ROOT_TOOLS": "path"}).stand_in is None
    assert isinstance(open_tree(tmp_path, {"NASTUI_ROOT_TOOLS": "yes"}).stand_in, Unavailable)


def test_a_bundle_answers_in_recorded_order_wherever_it_lies(tmp_path: Path) -> None:
    argv = ("smartctl", "-n", "standby", "-a", "/dev/sda")
    root = bundle(tmp_path / "b", {argv: [done(argv, "first"), done(argv, "second", 4)]})
    tree = open_tree(root, {"NASTUI_ROOT_TOOLS": "path"})  # a bundle answers all the same
    assert isinstance(tree.stand_in, ToolTable) and tree.manifest is not None
    assert tree.manifest.taken_at == 1000.0
    standin.use(tree.stand_in)
    asked = ("smartctl", "-n", "standby", "-a", f"{root}/dev/sda")
    answers = [runner.run_sync(asked, timeout=5) for _ in range(3)]
    assert [(a.stdout, a.returncode) for a in answers] == [
        ("first", 0),
        ("second", 4),
        ("second", 4),
    ]
    assert answers[0].argv == asked
    other = runner.run_sync(["zpool", "status"], timeout=5)
    assert other.returncode == 126
    assert other.error == "zpool: not recorded in the capture bundle (zpool status)"
    assert standin.installed("zpool") and not standin.installed("btrfs")
    assert standin.installed("smartctl")


async def test_a_streamed_answer_reaches_the_handlers(tmp_path: Path) -> None:
    argv = ("fio", "--output-format=json")
    root = bundle(tmp_path / "b", {argv: [done(argv, "one\ntwo\n")]})
    standin.use(open_tree(root, {}).stand_in)
    lines: list[str] = []
    result = await runner.stream(argv, timeout=5, on_stdout=lines.append)
    assert lines == ["one", "two"] and result.stdout == "" and result.ok


def test_seen_shows_every_result() -> None:
    seen: list[CommandResult] = []

    class Watch:
        def answer(self, argv: tuple[str, ...]) -> CommandResult | None:
            return None

        def seen(self, result: CommandResult) -> None:
            seen.append(result)

        def installed(self, tool: str) -> bool | None:
            return None

        def absent(self, tool: str) -> str | None:
            return None

    standin.use(Watch())
    runner.run_sync(["true"], timeout=5)
    runner.run_sync(["no-such-program-here"], timeout=5)
    assert [(r.argv[0], r.returncode) for r in seen] == [("true", 0), ("no-such-program-here", 127)]


def test_relative_argv() -> None:
    assert relative_argv(["x", "/r/dev/sda", "/rx", "/r"], Path("/r")) == (
        "x",
        "/dev/sda",
        "/rx",
        "/r",
    )
    assert relative_argv(["x", "/dev/sda"], Path("/")) == ("x", "/dev/sda")


def archive(path: Path, members: list[tuple[str, str, str]]) -> Path:
    """A .tar.gz of (name, kind, data-or-link-target) members."""
    with tarfile.open(path, "w:gz") as tar:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data.encode()))
                continue
            info.type = {"dir": tarfile.DIRTYPE, "link": tarfile.SYMTYPE, "fifo": tarfile.FIFOTYPE}[
                kind
            ]
            info.linkname = data
            tar.addfile(info)
    return path


def good_members() -> list[tuple[str, str, str]]:
    manifest = json.dumps({"format": 1, "host": "b", "taken_at": 5.0, "masked": False})
    tools = json.dumps({"format": 1, "installed": {}, "runs": []})
    return [
        ("b", "dir", ""),
        (f"b/{META}/manifest.json", "file", manifest),
        (f"b/{META}/tools.json", "file", tools),
        ("b/sys/devices/x/size", "file", "8\n"),
        ("b/sys/block/sda", "link", "../devices/x"),
    ]


def test_an_archive_unpacks_privately_and_goes_away(tmp_path: Path) -> None:
    tree = open_tree(archive(tmp_path / "b.tar.gz", good_members()), {})
    assert (tree.root / "sys/block/sda/size").read_text() == "8\n"
    assert isinstance(tree.stand_in, ToolTable)
    assert tree.scratch is not None
    where = Path(tree.scratch.name)
    tree.scratch.cleanup()
    assert not where.exists()


@pytest.mark.parametrize(
    ("member", "why"),
    [
        (("/etc/evil", "file", "x"), "points outside the bundle"),
        (("b/../evil", "file", "x"), "points outside the bundle"),
        (("b/sys/out", "link", "../../../etc/passwd"), "leads outside the bundle"),
        (("b/sys/abs", "link", "/etc/passwd"), "leads outside the bundle"),
        (("b/dev/fifo", "fifo", ""), "is not a file, directory or link"),
        (("c/other", "file", "x"), "one top directory wanted"),
    ],
)
def test_an_archive_with_a_member_outside_is_refused(
    tmp_path: Path, member: tuple[str, str, str], why: str
) -> None:
    path = archive(tmp_path / "bad.tar.gz", [*good_members(), member])
    with pytest.raises(BundleError, match=why):
        open_tree(path, {})
    assert not (tmp_path / "evil").exists()


def test_a_file_that_is_no_bundle_is_one_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    with pytest.raises(BundleError, match="not a capture bundle"):
        open_tree(text, {})
    plain = archive(tmp_path / "plain.tar.gz", [("p", "dir", ""), ("p/x", "file", "1")])
    with pytest.raises(BundleError, match=r"without nastui-capture/manifest\.json"):
        open_tree(plain, {})


def test_a_delivery_runs_under_any_root_while_machine_programs_are_refused(
    tmp_path: Path,
) -> None:
    """An alert exec hook reads nothing of the box: the stand-in does not answer for it."""
    previous = standin.use(Unavailable(tmp_path))
    try:
        refused = runner.run_sync(("true",), timeout=5)
        delivered = runner.run_sync(("true",), timeout=5, delivery=True)
    finally:
        standin.use(previous)
    assert not refused.ok
    assert "not run under --root" in (refused.error or "")
    assert delivered.ok
