"""`zpool status -p -v` text (OpenZFS 0.8 to 2.3, and older) as `Pool` records (pure).

One block per pool: "key: value" headers (pool, state, status, action, scan, ...) with
continuation lines, the `config:` tree of vdevs with their state, READ/WRITE/CKSUM counters
and notes, and `errors:` with the permanent-error file list. The tree's depth comes from the
indentation (two columns per level, tabs at 8), so `replacing-N`, `spare-N`, dRAID and the
special/dedup/logs/cache/spares groups all come out as the same nested `Vdev`s. Space comes
from `zpool list` (see `lists`); this parser leaves it unknown. `remove:` and `expand:` become
`Pool.layout_change` (see `layout`).

Degrade, never drop: a line this parser does not understand becomes a note on its pool (one
line naming it) and is skipped; a pool is never lost for a detail below its `pool:` line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nastui.collectors.pools_parse import note, numbered, parse_count
from nastui.collectors.zfs.layout import parse_layout
from nastui.collectors.zfs.scan import parse_scan
from nastui.core.scanning.tracker import current_scan
from nastui.model import Pool, PoolKind, PoolState, ScanKind, ScanProgress, ScanState, Vdev
from nastui.model.errors import ParseError

WHAT = "zpool status"
STATES = "ONLINE|DEGRADED|FAULTED|OFFLINE|UNAVAIL|REMOVED|SUSPENDED|AVAIL|INUSE|SPLIT|UNKNOWN"
GROUPS = {
    "logs": "logs",
    "log": "logs",
    "cache": "cache",
    "spares": "spares",
    "spare": "spares",
    "special": "special",
    "dedup": "dedup",
}
KEYS = frozenset(
    {"pool", "id", "state", "status", "action", "see", "scan", "scrub", "remove", "checkpoint"}
) | {"expand", "config", "errors", "comment", "scan warning", "prefetch"}
_NO_FILES = ("No known data errors", "No known errors")
_PERMANENT = "Permanent errors have been detected in the following files"
_NOT_LISTED = "<permanent errors reported; no file listed>"

# Sample:   pool: tank
# Sample:    see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-9P
# Sample:     scan warning: skipped blocks that are only referenced by the checkpoint.
_HEADER = re.compile(r"^ *(?P<key>[a-z]+(?: warning)?):(?: (?P<value>.*))?$")
# Sample:         NAME                      STATE     READ WRITE CKSUM
_COLUMNS = re.compile(r"^ +NAME +STATE +READ +WRITE +CKSUM$")
# Sample:             wwn-0x500000000000000a  FAULTED      0 4.11K     0  too many errors
# Sample:           draid1-0-0          INUSE     currently in use
# Sample:         logs
_VDEV = re.compile(
    rf"^(?P<indent> +)(?P<name>\S+)(?: +(?P<state>{STATES})"
    r"(?: +(?P<read>\d+(?:\.\d+)?[KMGTPE]?) +(?P<write>\d+(?:\.\d+)?[KMGTPE]?)"
    r" +(?P<cksum>\d+(?:\.\d+)?[KMGTPE]?))?)?(?: +(?P<note>\S.*))?$"
)
# Sample: errors: 1 data errors, use '-v' for a list
_ERROR_COUNT = re.compile(r"^(?P<count>\d+) data errors, use '-v' for a list$")
# Sample: errors: List of errors unavailable: permission denied
_UNAVAILABLE = re.compile(r"^List of errors unavailable[:(]? *(?P<why>.*?)\)?$")
# Sample: mirror-0   raidz2-1   draid1:4d:11c:1s-0   replacing-0   spare-6   raidz   mirror
GROUP_KIND = re.compile(r"^(?P<kind>mirror|raidz[123]?|draid[123]?|replacing|spare)(?:[-:].*)?$")
# Sample: draid1-0-0
_DSPARE = re.compile(r"^draid\d-\d+-\d+$")


@dataclass
class _Node:
    name: str
    indent: int
    state: PoolState | None
    counters: tuple[int | None, int | None, int | None]
    note: str | None
    children: list[_Node] = field(default_factory=list)


@dataclass
class _Block:
    """One pool's lines, gathered before they are interpreted."""

    headers: dict[str, list[str]] = field(default_factory=dict)
    tree: list[tuple[int, str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _state(word: str | None) -> PoolState | None:
    if word is None:
        return None
    return PoolState.UNKNOWN if word == "SPLIT" else PoolState(word)


def _vdev_line(line_no: int, line: str) -> _Node:
    match = _VDEV.match(line)
    if match is None:
        raise ParseError(WHAT, "unexpected line in config", line_no, line)
    name, state = match["name"], _state(match["state"])
    if state is None and (match["note"] or name not in GROUPS):
        raise ParseError(WHAT, "vdev without a state", line_no, line)
    counters: tuple[int | None, int | None, int | None] = (None, None, None)
    if match["read"] is not None:
        counters = (
            parse_count(match["read"]),
            parse_count(match["write"]),
            parse_count(match["cksum"]),
        )
    return _Node(name, len(match["indent"]), state, counters, match["note"])


def _tree(lines: list[tuple[int, str]], notes: list[str]) -> _Node | None:
    """The vdev tree from its lines: each line's parent is the last less-indented line. A line
    that is no vdev, or that falls outside the tree, is noted and skipped."""
    root: _Node | None = None
    stack: list[_Node] = []
    for line_no, line in lines:
        try:
            node = _vdev_line(line_no, line)
            if root is not None and (
                node.indent < root.indent
                or (node.indent == root.indent and node.name not in GROUPS)
            ):
                raise ParseError(WHAT, "vdev outside the pool's tree", line_no, line)
        except ParseError as exc:
            notes.append(str(exc))
            continue
        if root is None:
            root, stack = node, [node]
            continue
        while len(stack) > 1 and stack[-1].indent >= node.indent:
            stack.pop()
        stack[-1].children.append(node)
        stack.append(node)
    return root


def group_kind(name: str, default: str = "group") -> str:
    """The kind of a vdev with children, from its name ("mirror-0" -> "mirror"); a bare
    "raidz" or "draid" is the single-parity one. `default` when the name does not say."""
    match = GROUP_KIND.match(name)
    kind = match["kind"] if match else default
    return "raidz1" if kind == "raidz" else "draid1" if kind == "draid" else kind


def _kind_of(node: _Node, depth: int) -> str:
    if depth == 0:
        return "root"
    if depth == 1 and node.name in GROUPS:
        return GROUPS[node.name]
    if node.children:
        return group_kind(node.name)
    if _DSPARE.match(node.name):
        return "dspare"
    return "file" if node.name.startswith("/") and not node.name.startswith("/dev/") else "disk"


def _group_state(children: tuple[Vdev, ...], kind: str) -> PoolState:
    """A state for a group line the tool prints without one ("logs", "spares")."""
    if kind == "spares":
        return PoolState.AVAIL
    healthy = (PoolState.ONLINE, PoolState.AVAIL, PoolState.INUSE)
    return PoolState.ONLINE if all(c.state in healthy for c in children) else PoolState.DEGRADED


def _freeze(node: _Node, depth: int = 0) -> Vdev:
    kind = _kind_of(node, depth)
    children = tuple(_freeze(c, depth + 1) for c in node.children)
    state = node.state if node.state is not None else _group_state(children, kind)
    read, write, cksum = node.counters
    return Vdev(node.name, kind, state, read, write, cksum, children=children, note=node.note)


def _errors(block: _Block) -> tuple[tuple[str, ...], int | None]:
    """The permanent-error file list and the data error count."""
    text = " ".join(block.headers.get("errors", []))
    if not text or text in _NO_FILES:
        return (), 0 if text else None
    if (count := _ERROR_COUNT.match(text)) is not None:
        return (), int(count["count"])
    if (unavailable := _UNAVAILABLE.match(text)) is not None:
        return (f"<file list unavailable: {unavailable['why'] or 'no reason given'}>",), None
    if text.startswith(_PERMANENT):
        if not block.files:  # the list cut off: errors there are, how many is not known
            return (_NOT_LISTED,), None
        return tuple(block.files), len(block.files)
    raise ParseError(WHAT, "unknown errors text", line=text)


def _status_text(headers: dict[str, list[str]]) -> str | None:
    status = " ".join(" ".join(headers.get("status", [])).split())
    action = " ".join(" ".join(headers.get("action", [])).split())
    if not status:
        return None
    return f"{status} Action: {action}" if action else status


def last_scrub(scans: list[ScanProgress]) -> ScanProgress | None:
    """The finished scrub that ended last among `scans` (a pool's last scrub), else None: with
    a finished scrub and a running dRAID rebuild both printed, the scrub is not lost."""
    done = [s for s in scans if s.kind is ScanKind.SCRUB and s.state is ScanState.FINISHED]
    return max(done, key=lambda s: s.ended_at or 0.0, default=None)


def _scans(headers: dict[str, list[str]], notes: list[str]) -> list[ScanProgress]:
    found = []
    for key, lines in headers.items():
        if key.split("#")[0] not in ("scan", "scrub"):
            continue
        try:
            scan = parse_scan(lines, notes)
        except ParseError as exc:
            notes.append(str(exc))
            continue
        if scan is not None:
            found.append(scan)
    return found


def _layout(headers: dict[str, list[str]], notes: list[str]) -> ScanProgress | None:
    """The vdev removal or raidz expansion, the running one first."""
    found = []
    for key in ("remove", "expand"):
        try:
            change = parse_layout(key, headers.get(key, []), notes)
        except ParseError as exc:
            notes.append(str(exc))
            continue
        if change is not None:
            found.append(change)
    return current_scan(found)


def _pool_state(headers: dict[str, list[str]], notes: list[str]) -> PoolState:
    word = " ".join(headers.get("state", ["UNKNOWN"]))
    if word not in STATES.split("|"):
        notes.append(note(WHAT, "unknown pool state", line=word))
        return PoolState.UNKNOWN
    return _state(word) or PoolState.UNKNOWN


def _pool(block: _Block) -> Pool:
    headers, notes = block.headers, list(block.notes)
    name = " ".join(headers["pool"])
    state = _pool_state(headers, notes)
    scans = _scans(headers, notes)
    try:
        files, count = _errors(block)
    except ParseError as exc:
        files, count = (), None
        notes.append(str(exc))
    tree = _tree(block.tree, notes)
    return Pool(
        name=name,
        kind=PoolKind.ZFS,
        state=state,
        root=_freeze(tree) if tree is not None else Vdev(name, "root", PoolState.UNKNOWN),
        scan=current_scan(scans),
        last_scrub=last_scrub(scans),
        error_files=files,
        status_text=_status_text(headers),
        error_count=count,
        layout_change=_layout(headers, notes),
        notes=tuple(notes),
    )


# values that never wrap onto more lines, and sections after which a line is out of place
_NO_CONTINUATION = frozenset({"pool", "id", "state", "config-done", "errors"})


def _listing_files(block: _Block) -> bool:
    """The pool's `errors:` heads a permanent-error file list: every line under it is a file."""
    return " ".join(block.headers.get("errors", [])).startswith(_PERMANENT)


def _resumes_tree(line: str) -> bool:
    """An indented vdev line with a state: the tree goes on after a stray blank line."""
    match = _VDEV.match(line)
    return match is not None and match["state"] is not None


class _Reader:
    """Walks the lines, filling one `_Block` per pool."""

    def __init__(self) -> None:
        self.blocks: list[_Block] = []
        self.key: str | None = None
        self.stray: list[str] = []

    def note(self, line_no: int, line: str, reason: str) -> None:
        """Note a line not understood, on the pool it appears in (or on the report)."""
        (self.blocks[-1].notes if self.blocks else self.stray).append(
            note(WHAT, reason, line_no, line)
        )

    def line(self, line_no: int, line: str) -> None:
        if not line.strip():
            if self.key == "config" and self.blocks[-1].tree:
                self.key = "config-done"
            return
        header = _HEADER.match(line)
        if header is not None and header["key"] in KEYS:
            self._header(line_no, line, header["key"], header["value"] or "")
            return
        if not self.blocks or self.key is None:
            if line.strip() not in ("all pools are healthy", "no pools available"):
                self.note(line_no, line, "unexpected line outside a pool")
            return
        self._continuation(line_no, line)

    def _header(self, line_no: int, line: str, key: str, value: str) -> None:
        if key == "pool":
            self.blocks.append(_Block())
        elif not self.blocks:
            self.note(line_no, line, f"'{key}:' before any 'pool:'")
            return
        headers = self.blocks[-1].headers
        if key in ("scan", "scrub"):  # one per dRAID rebuild as well as the pool's own scan
            key = f"{key}#{sum(1 for k in headers if k.startswith(key + '#'))}"
        self.key = key
        headers[key] = [value.strip()] if value.strip() else []

    def _continuation(self, line_no: int, line: str) -> None:
        block = self.blocks[-1]
        if self.key in ("config", "config-done") and _COLUMNS.match(line):
            self.key = "config"
        elif self.key == "config" and not line.startswith(" "):
            self.note(line_no, line, "unexpected line in config")
        elif self.key == "config" or (self.key == "config-done" and _resumes_tree(line)):
            block.tree.append((line_no, line))  # a blank line inside the tree does not end it
            self.key = "config"
        elif self.key == "errors" and (line.startswith(" ") or _listing_files(block)):
            block.files.append(line.strip())  # a page may have lost the list's indentation
        elif self.key in _NO_CONTINUATION or not line.startswith(" "):
            self.note(line_no, line, "unexpected line")
        else:
            block.headers[self.key or ""].append(line.strip())


def parse_zpool_status_report(text: str) -> tuple[tuple[Pool, ...], tuple[str, ...]]:
    """Every pool in `zpool status [-p] [-v]` output, in the order printed, and notes for lines
    met before any pool (lines inside a pool that were not understood are in its `notes`).
    Never raises."""
    reader = _Reader()
    for line_no, line in numbered(text):
        reader.line(line_no, line)
    return tuple(_pool(block) for block in reader.blocks), tuple(reader.stray)


def parse_zpool_status(text: str) -> tuple[Pool, ...]:
    """Every pool in `zpool status` output (see `parse_zpool_status_report`)."""
    return parse_zpool_status_report(text)[0]
