"""The CLI tests run `nastui` in this process (tests/inproc.py): `subprocess.run` of a
`python -m nastui` command line with captured output is answered by `nastui.entry.main` here,
at a fraction of a child's CPU. A test marked `@pytest.mark.subprocess` runs real children (the
console script, a pipe closed under it, what a fresh interpreter imports); `subprocess.Popen`,
a shell command line and anything without captured output always do."""

from __future__ import annotations

import subprocess

import pytest

from tests.inproc import run_like_subprocess


@pytest.fixture(autouse=True)
def nastui_in_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("subprocess") is None:
        monkeypatch.setattr(subprocess, "run", run_like_subprocess)
