"""Directories nastui makes for its own files, with explicit modes (never the caller's umask).

`Path.mkdir(parents=True)` makes every missing directory `0777 & ~umask`: under umask 000 a
state directory anyone may write, where another user could plant a history file or swap
`latest.json`. `make_dir` makes each missing component with `mode` and sets it again with
chmod (a umask cannot widen or narrow it); directories that already exist are left as they are
(an administrator's `chgrp`/`chmod` stays).

    STATE_DIR_MODE    0750  the state directory: the history, the alert book, latest.json
                            (the directory's group decides who else may read them)
    PRIVATE_DIR_MODE  0700  benchmark results and other one-user directories
"""

from __future__ import annotations

from pathlib import Path

STATE_DIR_MODE = 0o750
PRIVATE_DIR_MODE = 0o700


def make_dir(path: Path, mode: int = STATE_DIR_MODE) -> None:
    """Make `path` and any missing parent with exactly `mode`; existing ones are untouched.

    Raises:
        OSError: a component cannot be made (permission, read-only or full file system), or
            exists and is not a directory.
    """
    missing: list[Path] = []
    probe = path
    while not probe.is_dir():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode)
        except FileExistsError:
            if not directory.is_dir():
                raise
            continue  # made by someone else meanwhile: theirs, left alone
        directory.chmod(mode)
