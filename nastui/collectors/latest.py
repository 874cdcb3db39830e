"""Reading the daemon's latest snapshot (`latest.json` in the state directory).

`nastui daemon` writes its newest assessed snapshot there (see `nastui.control.latest`), so
readers that must never poll the box themselves (the SNMP agent, `nastui export --from-state`)
serve it instead: no smartctl, no woken disk, no root.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from nastui.core import codec
from nastui.core.statefiles import state_dir
from nastui.model import HostSnapshot
from nastui.safeio import STATE_LIMIT, read_bounded

LATEST_FILE = "latest.json"


class LatestError(ValueError):
    """The latest-snapshot file is missing, unreadable or garbage; one line says which."""


def read_latest(path: Path) -> HostSnapshot:
    """The snapshot in `path`.

    Raises:
        LatestError: missing ("no snapshot at PATH: is `nastui daemon` running?"), unreadable
            (permission) or not a snapshot; the message is one line naming the file.
    """
    try:
        text = read_bounded(path, STATE_LIMIT)
    except FileNotFoundError:
        raise LatestError(f"no snapshot at {path}: is `nastui daemon` running?") from None
    except PermissionError:
        raise LatestError(
            f"cannot read {path}: permission denied (the daemon writes it mode 0644; "
            "check the state directory's permissions)"
        ) from None
    except OSError as exc:
        raise LatestError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return codec.loads(text, str(path))
    except ValueError as exc:
        raise LatestError(str(exc)) from None


def default_latest_path(env: Mapping[str, str], euid: int) -> Path:
    """Where the daemon keeps latest.json: this user's state directory when the file is there
    ($NASTUI_STATE_DIR, or a daemon run by this user), else root's (/var/lib/nastui): snmpd runs
    the agent as its own unprivileged user, while the daemon runs as root."""
    own = state_dir(env, euid) / LATEST_FILE
    if env.get("NASTUI_STATE_DIR") or euid == 0 or own.exists():
        return own
    return state_dir(env, 0) / LATEST_FILE
