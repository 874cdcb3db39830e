"""Reading another tree under `--root`: a capture bundle's recorded programs, or none at all.

A capture bundle (`nastui capture`) is a tree (sys/, proc/, dev/, etc/ as nastui read them) with
a `nastui-capture/` directory beside them: `manifest.json` (when, which host, what was left
out), `tools.json` (every program nastui ran, by argument list, with what it printed and how it
exited), `config.toml` (the configuration, secrets removed) and `views/` (what `drives`, `bays`,
`pools` and `status` showed). It comes as one .tar.gz or unpacked.

`open_tree` decides what answers for programs under `--root DIR` (`nastui.collectors.standin`):
- a bundle: `ToolTable`, its recorded outputs, served in the order they were recorded;
- this machine's root, however spelled: the programs themselves;
- any other tree: `Unavailable` (one line: "not run under --root"), unless
  `NASTUI_ROOT_TOOLS=path` says the programs on PATH are made for that tree (test trees with
  fake tools, a host root mounted elsewhere).
Paths under the tree in an argument list are recorded and looked up relative to it, so a bundle
replays wherever it is unpacked.
"""

from __future__ import annotations

import json
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from nastui.collectors.blockstack import is_real_root
from nastui.collectors.runner import CommandResult
from nastui.safeio import MIB, read_bounded

META = "nastui-capture"
MANIFEST = "manifest.json"
TOOLS = "tools.json"
CONFIG = "config.toml"
FORMAT = 1
MANIFEST_LIMIT = 16 * MIB
TOOLS_LIMIT = 256 * MIB
ARCHIVE_LIMIT = 1024 * MIB  # unpacked bytes of a bundle archive
ARCHIVE_MEMBERS = 200_000
ROOT_TOOLS_ENV = "NASTUI_ROOT_TOOLS"


class BundleError(Exception):
    """A capture bundle that cannot be read; `str()` is one line naming it and why."""


def relative_argv(argv: Sequence[str], root: Path) -> tuple[str, ...]:
    """`argv` with paths under `root` written as on the machine ("/tmp/b/dev/sda" ->
    "/dev/sda"); unchanged for the machine's own root."""
    prefix = str(root).rstrip("/")
    if not prefix:
        return tuple(argv)
    return tuple(a[len(prefix) :] if a.startswith(prefix + "/") else a for a in argv)


def result_data(result: CommandResult) -> dict[str, Any]:
    """A result as `tools.json` keeps it (its argument list is kept beside it)."""
    return {
        "returncode": result.returncode,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "duration": round(result.duration, 3),
        "timed_out": result.timed_out,
        "truncated": result.truncated,
        "error": result.error,
    }


def result_from(data: Mapping[str, Any], argv: tuple[str, ...]) -> CommandResult:
    """A recorded result, for `argv` as run now.

    Raises:
        BundleError: a field is missing or of the wrong type.
    """
    try:
        code = data["returncode"]
        return CommandResult(
            argv=argv,
            returncode=None if code is None else int(code),
            stdout=str(data["stdout"]),
            stderr=str(data["stderr"]),
            duration=float(data["duration"]),
            timed_out=bool(data["timed_out"]),
            truncated=bool(data["truncated"]),
            error=None if data["error"] is None else str(data["error"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise BundleError(f"{TOOLS}: a recorded result of {' '.join(argv)} is malformed") from exc


@dataclass
class ToolTable:
    """The stand-in of a bundle: each argument list gets its recorded results in order (the
    last one again once they run out); one never recorded is refused in one line."""

    root: Path
    runs: dict[tuple[str, ...], list[Mapping[str, Any]]]
    present: Mapping[str, bool]
    served: dict[tuple[str, ...], int] = field(default_factory=dict)

    def answer(self, argv: tuple[str, ...]) -> CommandResult:
        """The recorded result for `argv` (see the class)."""
        key = relative_argv(argv, self.root)
        results = self.runs.get(key)
        if not results:
            name = PurePosixPath(argv[0]).name
            why = f"{name}: not recorded in the capture bundle ({' '.join(key)})"
            return CommandResult(argv, 126, "", "", 0.0, error=why)
        index = self.served.get(key, 0)
        self.served[key] = index + 1
        return result_from(results[min(index, len(results) - 1)], argv)

    def seen(self, result: CommandResult) -> None:
        """Nothing to do: the table only answers."""

    def installed(self, tool: str) -> bool:
        """Whether the captured box had `tool` (as nastui asked there, or ran it)."""
        if tool in self.present:
            return self.present[tool]
        return any(PurePosixPath(argv[0]).name == tool for argv in self.runs)

    def absent(self, tool: str) -> str | None:
        """The captured box's own words: nothing to add."""
        return None


@dataclass(frozen=True)
class Unavailable:
    """The stand-in of a tree that is not this machine and brought no programs' outputs."""

    root: Path

    def answer(self, argv: tuple[str, ...]) -> CommandResult:
        """A refusal in one line: this machine's programs are not run against the tree."""
        name = PurePosixPath(argv[0]).name
        why = (
            f"{name}: not run under --root {self.root} (a tree, not this machine; a capture "
            "bundle brings its programs' outputs)"
        )
        return CommandResult(argv, 126, "", "", 0.0, error=why)

    def seen(self, result: CommandResult) -> None:
        """Nothing to do: every answer is a refusal."""

    def installed(self, tool: str) -> bool:
        """Nothing is installed in a tree."""
        return False

    def absent(self, tool: str) -> str:
        """ "zpool not run under --root"."""
        return f"{tool} not run under --root"


@dataclass(frozen=True)
class Manifest:
    """What `manifest.json` says nastui needs to replay a bundle."""

    host: str
    taken_at: float
    masked: bool
    data: Mapping[str, Any]


@dataclass
class Tree:
    """What `--root` opened: where to read, what answers for programs, and for a bundle its
    manifest and configuration. `scratch` keeps an unpacked archive alive (removed with it)."""

    root: Path
    stand_in: ToolTable | Unavailable | None = None
    manifest: Manifest | None = None
    scratch: tempfile.TemporaryDirectory[str] | None = None

    @property
    def config(self) -> Path | None:
        """A bundle's configuration, if it has one."""
        path = self.root / META / CONFIG
        return path if self.manifest is not None and path.is_file() else None


def _json(path: Path, limit: int) -> Any:
    try:
        return json.loads(read_bounded(path, limit))
    except OSError as exc:
        raise BundleError(f"{path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise BundleError(f"{path}: not JSON ({exc})") from None


def read_manifest(root: Path) -> Manifest:
    """A bundle's manifest.

    Raises:
        BundleError: unreadable, or written by a newer nastui.
    """
    data = _json(root / META / MANIFEST, MANIFEST_LIMIT)
    if not isinstance(data, dict) or not isinstance(data.get("format"), int):
        raise BundleError(f"{root / META / MANIFEST}: not a nastui capture manifest")
    if data["format"] > FORMAT:
        raise BundleError(
            f"{root}: capture format {data['format']} is newer than this nastui reads "
            f"({FORMAT}): update nastui"
        )
    try:
        return Manifest(str(data["host"]), float(data["taken_at"]), bool(data["masked"]), data)
    except (KeyError, TypeError, ValueError):
        raise BundleError(f"{root / META / MANIFEST}: host or taken_at missing") from None


def tool_table(root: Path) -> ToolTable:
    """A bundle's recorded programs (`tools.json`).

    Raises:
        BundleError: unreadable or malformed.
    """
    data = _json(root / META / TOOLS, TOOLS_LIMIT)
    try:
        runs = {tuple(str(a) for a in r["argv"]): list(r["results"]) for r in data["runs"]}
        present = {str(k): bool(v) for k, v in data["installed"].items()}
    except (KeyError, TypeError, AttributeError):
        raise BundleError(f"{root / META / TOOLS}: not a nastui tool record") from None
    return ToolTable(root, runs, present)


def is_bundle(root: Path) -> bool:
    """Whether `root` is an unpacked capture bundle."""
    return (root / META / MANIFEST).is_file()


def _checked_members(archive: tarfile.TarFile, name: Path) -> list[tarfile.TarInfo]:
    """The members, if every one is a file, directory or link inside the archive's top
    directory and they fit the bounds."""
    members: list[tarfile.TarInfo] = []
    total = 0
    for member in archive:
        members.append(member)
        total += member.size
        path = PurePosixPath(member.name)
        if len(members) > ARCHIVE_MEMBERS or total > ARCHIVE_LIMIT:
            raise BundleError(f"{name}: larger than a capture bundle may be: not unpacked")
        if path.is_absolute() or ".." in path.parts:
            raise BundleError(f"{name}: {member.name} points outside the bundle: not unpacked")
        if not (member.isfile() or member.isdir() or member.issym()):
            raise BundleError(f"{name}: {member.name} is not a file, directory or link")
        if member.issym() and not _link_inside(path, member.linkname):
            raise BundleError(f"{name}: link {member.name} leads outside the bundle")
    return members


def _link_inside(path: PurePosixPath, target: str) -> bool:
    if target.startswith("/"):
        return False
    depth = len(path.parts) - 1
    for part in PurePosixPath(target).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 1:  # above the archive's top directory
            return False
    return True


def unpack(archive: Path) -> Tree:
    """A bundle archive (.tar.gz) unpacked into a private temporary directory.

    Raises:
        BundleError: not a tar archive, unsafe members, or no single top directory.
    """
    scratch = tempfile.TemporaryDirectory(prefix="nastui-replay-")
    try:
        with tarfile.open(archive, "r:*") as tar:
            members = _checked_members(tar, archive)
            tops = {PurePosixPath(m.name).parts[0] for m in members if m.name}
            if len(tops) != 1:
                raise BundleError(f"{archive}: not a capture bundle (one top directory wanted)")
            kwargs: dict[str, Any] = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(scratch.name, members=members, **kwargs)  # members checked above
    except tarfile.TarError:
        scratch.cleanup()
        raise BundleError(f"{archive}: not a capture bundle (not a tar archive)") from None
    except OSError as exc:
        scratch.cleanup()
        raise BundleError(f"{archive}: not unpacked: {exc.strerror or exc}") from None
    except BundleError:
        scratch.cleanup()
        raise
    return Tree(Path(scratch.name) / tops.pop(), scratch=scratch)


def open_tree(root: Path, env: Mapping[str, str]) -> Tree:
    """What `--root ROOT` reads and what answers for programs there (module docstring).

    Raises:
        BundleError: ROOT is a file that is not a capture bundle, or a bundle is unreadable.
    """
    tree = unpack(root) if root.is_file() else Tree(root)
    if tree.scratch is not None and not is_bundle(tree.root):
        tree.scratch.cleanup()
        raise BundleError(f"{root}: an archive without {META}/{MANIFEST}: not a capture bundle")
    if is_bundle(tree.root):
        tree.manifest = read_manifest(tree.root)
        tree.stand_in = tool_table(tree.root)
    elif is_real_root(tree.root):
        tree.stand_in = None
    elif env.get(ROOT_TOOLS_ENV) != "path":
        tree.stand_in = Unavailable(tree.root)
    return tree
