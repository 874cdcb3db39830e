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


def _run_in_a_fresh_interpreter(argv: list[str]) -> str:
    return (
        "import contextlib, io\n"
        "from nastui.entry import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({argv!r})\n"
    )


@pytest.mark.parametrize("argv", [["--demo", "status"], ["--demo", "bays", "--json"]])
def test_a_command_that_needs_no_event_loop_never_loads_asyncio(argv: list[str]) -> None:
    """The simulator's reads never wait (`Backend.collect_at_once`): 13 ms of the run."""
    loaded = loaded_after(_run_in_a_fresh_interpreter(argv))
    assert not {"asyncio", "ssl", "_ssl"} & loaded


_ASYNCIO_AS_LOADED = (
    "import asyncio.base_events, importlib.machinery, sys\n"
    "from nastui.entry import _WITHOUT_TLS\n"
    "assert asyncio.base_events.ssl is None  # recorded as unavailable\n"
    "assert type(asyncio.__loader__) is importlib.machinery.SourceFileLoader\n"
    "assert asyncio.__spec__.loader is asyncio.__loader__\n"
    "assert _WITHOUT_TLS not in sys.meta_path  # once\n"
)


def test_a_command_on_an_event_loop_loads_asyncio_without_openssl() -> None:
    """asyncio is imported with `ssl` hidden (`entry._AsyncioWithoutTls`): 6 MB less."""
    loaded = loaded_after(_run_in_a_fresh_interpreter(["--demo", "swap"]) + _ASYNCIO_AS_LOADED)
    assert "asyncio" in loaded
    assert not {"ssl", "_ssl"} & loaded


def test_asyncio_imported_after_the_start_is_without_openssl_too() -> None:
    """The machine's `status` imports asyncio when it collects, after the command's code is
    loaded: the hook is still there for it."""
    loaded = loaded_after(
        "from nastui.entry import _loading\n"
        "with _loading():\n"
        "    import json\n"
        "import sys\n"
        "assert 'asyncio' not in sys.modules\n"
        "from nastui.session import run_async\n"
        "async def two() -> int:\n"
        "    return 2\n"
        "assert run_async(two()) == 2\n" + _ASYNCIO_AS_LOADED
    )
    assert not {"ssl", "_ssl"} & loaded


@pytest.mark.parametrize("argv", [["--demo", "status"], ["--demo", "bays", "--json"]])
def test_a_run_never_loads_shutil(argv: list[str]) -> None:
    """argparse's formatter asks `shutil` for the width unless given one (`Parser`'s is):
    shutil would load bz2, lzma and zlib in every run. (The demo's first run writes its state
    file, through tempfile, which needs shutil: the second run is the one measured.)"""
    loaded_after(_run_in_a_fresh_interpreter(argv))
    loaded = loaded_after(_run_in_a_fresh_interpreter(argv))
    assert not {"shutil", "bz2", "lzma"} & loaded


def test_the_interface_never_loads_openssl() -> None:
    loaded = loaded_after(
        "from nastui.entry import _loading\n"
        "with _loading():\n"
        "    pass\n"
        "import nastui.ui.launch, nastui.ui.app"
    )
    assert "textual.app" in loaded
    assert not {"ssl", "_ssl"} & loaded


def test_tls_still_works_for_the_notifiers_after_the_start() -> None:
    """SMTP and webhooks import `ssl` themselves, after asyncio: the real module, with TLS."""
    loaded = loaded_after(
        "from nastui.entry import _loading\n"
        "with _loading():\n"
        "    import asyncio\n"
        "assert asyncio.run(asyncio.sleep(0, 'ran')) == 'ran'\n"
        "import smtplib, ssl, urllib.request\n"
        "import nastui.notify.smtp, nastui.notify.webhook\n"
        "assert smtplib._have_ssl and hasattr(urllib.request, 'HTTPSHandler')\n"
        "ssl.create_default_context()\n"
    )
    assert {"ssl", "_ssl", "nastui.notify.smtp"} <= loaded


def test_nothing_is_hidden_when_ssl_is_already_loaded() -> None:
    loaded_after(
        "import ssl\n"
        "from nastui.entry import _loading\n"
        "with _loading():\n"
        "    import asyncio.base_events\n"
        "assert asyncio.base_events.ssl is ssl\n"
    )
