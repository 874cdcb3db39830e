"""The README points only at what a clone has: its links and the files it names exist, and it
sends no one to the workplace's `../shared/` or a harness that is not in the repository."""

from __future__ import annotations

import re

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_no_path_outside_the_clone() -> None:
    assert "../" not in README.replace("http://", "").replace("https://", "")
    assert "ptybytes" not in README


def test_every_relative_link_and_named_repo_file_exists() -> None:
    links = re.findall(r"\]\(([^)#\s]+)\)", README)
    named = re.findall(
        r"`((?:contrib|docs|tests|nastui|systemd|screenshots)/[\w./-]+\.\w+)`", README
    )
    missing = [
        p for p in {*links, *named} if "://" not in p and not (REPO / p.split("#")[0]).exists()
    ]
    assert not missing, missing


def test_every_named_repo_directory_and_test_module_exists() -> None:
    """`tests/lab/`, `tests/fixtures/heldout/`, and the test modules named alone
    (`test_zfs.py` in the lab's table, `test_clean_install.py` beside its directory's other)."""
    folders = re.findall(r"`((?:contrib|docs|tests|nastui|systemd|screenshots)/[\w./-]*/)`", README)
    modules = set(re.findall(r"`(test_\w+\.py)`", README))
    found = {p.name for p in (REPO / "tests").rglob("test_*.py")}
    assert folders and modules
    missing = [f for f in folders if not (REPO / f).is_dir()] + sorted(modules - found)
    assert not missing, missing
