"""`nastui.entry` loads a command's code with the cyclic garbage collector off and freezes what
it loaded (`gc.freeze`), the parser apart (its garbage is collected, not kept): the collector is
back as it was before the command runs, whether the command line parsed or argparse ended the
run (`--version`, a usage error)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from nastui.entry import main
from tests.unit.test_import_hygiene import loaded_after


def test_the_collector_is_back_on_after_a_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("NASTUI_STATE_DIR", str(tmp_path))
    assert main(["--demo", "status"]) in {0, 1, 2}
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # what the run loaded is frozen, not walked again
    assert capsys.readouterr().out.startswith("NASTUI ")


@pytest.mark.parametrize("argv", [["--version"], ["--no-such-option"]])
def test_the_collector_is_back_on_when_argparse_ends_the_run(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        main(argv)
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with pytest.raises(SystemExit):
            main(["--version"])
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["--seed", "3", "bays", "--json"], "nastui.cli.cmd_bays"),
        (["--demo", "status"], "nastui.cli.cmd_status"),
        (["--demo"], None),
        (["no-such-command"], None),
    ],
)
def test_load_command_imports_the_named_commands_module(
    argv: list[str], module: str | None
) -> None:
    loaded = loaded_after(f"from nastui.cli.args import load_command; load_command({argv!r})")
    commands = {m for m in loaded if m.startswith("nastui.cli.cmd_")}
    assert commands == ({module} if module else set())
