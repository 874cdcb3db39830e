"""A benchmark's write footprint, and whoever else uses any of it (pure).

The rule the benchmark guard applies to a device target: from the target, walk DOWN to
everything a write to it lands on, then look UP from each of those for every other user. A
write may go ahead only when nothing but the target's own chain uses any byte it can reach.

The machine is modelled as a `Stack` (read by `nastui.collectors.blockstack`; tests build one
as data):

- `Device`s (block devices, by device number) with their `Link`s down: a loop device to its
  backing device or file at its offset (the bytes it covers), a partition to its disk's range,
  a dm/md/bcache/zram device to each member (anywhere in it: nobody outside the kernel knows
  its map);
- `Filesystem`s (by the st_dev of their files) and the block devices they live on;
- `Use`s: every user of a span of a block device or of a file (a mount, swap, a process's
  descriptor, working directory or mapping, an export, an exclusive claim), each with a `key`
  naming who uses it. Each link is also a use of what it links to, keyed like the link.

`footprint` walks down: a device's span maps through each link (linearly for loops and
partitions: byte b of a loop at offset o is byte o + b of its backing); a file is written
inside its filesystem, whose devices are then reached (with the filesystem's own mounts as
part of the chain). `conflicts` looks up: a use of a reached span that overlaps it, by anyone
whose key is not on the chain that reached it, is a conflict; so is any use of a filesystem
living on a device reached raw (its files, its mounts: raw writes corrupt it whatever part of
it they hit), and a file whose filesystem's devices cannot be told. `windows` lists the devices
laid linearly over what the target reaches (its partitions, loop devices over it at an offset)
and where: their labels can be read through the target (a whole-disk ZFS vdev's, on partition 1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

MAX_DEPTH = 64  # deeper than any real stack: a cycle in a damaged model ends here


@dataclass(frozen=True, slots=True, order=True)
class Block:
    """A block device, by device number ("7:3")."""

    devno: str


@dataclass(frozen=True, slots=True, order=True)
class File:
    """A file (or directory), by its filesystem's device number and its inode."""

    dev: str
    ino: int


Node = Block | File


@dataclass(frozen=True, slots=True)
class Span:
    """Bytes `start` up to `end` of a node; `end` None: to its end (or nobody knows where)."""

    node: Node
    start: int = 0
    end: int | None = None

    def overlaps(self, other: Span) -> bool:
        """Whether the two spans share a byte (of the same node)."""
        if self.node != other.node:
            return False
        mine = self.end if self.end is not None else float("inf")
        theirs = other.end if other.end is not None else float("inf")
        return self.start < theirs and other.start < mine and self.start < mine


@dataclass(frozen=True, slots=True)
class Link:
    """Writes to a device land on `lower`.

    Attributes:
        lower: the span it covers (a loop's backing from its offset, a partition's range).
        key: who makes the link ("loop loop5", "part sda1", "holder dm-0"): its use of `lower`.
        what: that use in words, after the lower node's name ("loop5 over it at offset 1048576").
        linear: byte b of the device is byte `lower.start + b` (loops, partitions); otherwise
            a write may land anywhere in `lower` (dm, md, bcache, zram members).
    """

    lower: Span
    key: str
    what: str
    linear: bool = True


@dataclass(frozen=True, slots=True)
class Device:
    """A block device: its number, kernel name, size in bytes (None: unknown) and links down."""

    devno: str
    name: str
    size: int | None = None
    links: tuple[Link, ...] = ()


@dataclass(frozen=True, slots=True)
class Filesystem:
    """A filesystem: the st_dev of its files, the block devices it lives on (None: not known;
    empty: none, as tmpfs), and what it is in words ("ext4 at /srv")."""

    dev: str
    devices: tuple[str, ...] | None
    what: str = ""


@dataclass(frozen=True, slots=True)
class Use:
    """Someone using a span: `key` says who ("pid 4242", "fs 7:3" for a filesystem's mounts,
    "swap"), `what` says how, after the node's name ("mounted at /srv (ext4)")."""

    span: Span
    key: str
    what: str
    brief: bool = False  # a read-only descriptor: maybe a probe, gone in a moment


@dataclass(frozen=True, slots=True)
class Conflict:
    """One reason to refuse, in words; `brief` when it may be a passing read-only probe
    (udev's blkid after a close, smartctl), which the watch lets pass once."""

    text: str
    brief: bool = False


@dataclass(frozen=True, slots=True)
class Stack:
    """The machine's block stack: devices by number, filesystems by st_dev, every use, and
    file names for messages."""

    devices: Mapping[str, Device] = field(default_factory=dict)
    filesystems: Mapping[str, Filesystem] = field(default_factory=dict)
    uses: tuple[Use, ...] = ()
    names: Mapping[File, str] = field(default_factory=dict)

    def with_uses(self, extra: Iterable[Use]) -> Stack:
        """The same stack with more uses."""
        return replace(self, uses=(*self.uses, *extra))


@dataclass(frozen=True, slots=True)
class Reach:
    """A span the target's writes reach: the keys of the chain that got there (`key` the last
    one), the filesystem (st_dev) it is reached inside of, when reached through a file, and
    whether every link of the chain is linear (`linear`: the target's byte b is byte
    `span.start + b` here)."""

    span: Span
    chain: frozenset[str] = frozenset()
    inside: str | None = None
    depth: int = 0
    key: str = ""
    linear: bool = True


@dataclass(frozen=True, slots=True)
class Window:
    """A device laid linearly over bytes the target writes (a partition of the target, a loop
    device over it at an offset): its byte 0 is the target's byte `at` (negative: it begins
    before the target), and it is `size` bytes long (None: not known)."""

    name: str
    at: int
    size: int | None


def fs_key(dev: str) -> str:
    """The key of a filesystem's own use of its devices (its mounts)."""
    return f"fs {dev}"


def loop_key(name: str) -> str:
    """The key of a loop device's use of its backing."""
    return f"loop {name}"


def holder_key(name: str) -> str:
    """The key of a device's use of a device it is built on (a partition's disk, a member)."""
    return f"holder {name}"


def filesystem_of(stack: Stack, dev: str) -> Filesystem | None:
    """The filesystem whose files have st_dev `dev`: as modelled, or, when `dev` is a block
    device (a filesystem lazily unmounted, or not listed), the one on that device."""
    known = stack.filesystems.get(dev)
    if known is not None:
        return known
    if dev in stack.devices:
        return Filesystem(dev, (dev,), "a filesystem")
    return None


def _through(link: Link, span: Span) -> Span:
    """Where `span` of a device lands through `link`."""
    lower = link.lower
    if not link.linear:
        return lower
    start = lower.start + span.start
    end = None if span.end is None else lower.start + span.end
    if lower.end is not None:
        end = lower.end if end is None else min(end, lower.end)
    return Span(lower.node, start, end)


def _below(stack: Stack, reach: Reach) -> list[Reach]:
    node = reach.span.node
    deeper = reach.depth + 1
    if isinstance(node, File):
        fs = filesystem_of(stack, node.dev)
        if fs is None or not fs.devices:
            return []
        key = fs_key(fs.dev)
        chain = reach.chain | {key}
        return [Reach(Span(Block(d)), chain, fs.dev, deeper, key, False) for d in fs.devices]
    device = stack.devices.get(node.devno)
    if device is None:
        return []
    return [
        Reach(
            _through(link, reach.span),
            reach.chain | {link.key},
            None,
            deeper,
            link.key,
            reach.linear and link.linear,
        )
        for link in device.links
    ]


def footprint(stack: Stack, devno: str) -> tuple[Reach, ...]:
    """Everything a write anywhere on device `devno` lands on, the device first."""
    device = stack.devices.get(devno)
    size = device.size if device is not None else None
    queue = [Reach(Span(Block(devno), 0, size))]
    found: list[Reach] = []
    seen: set[tuple[Span, str | None]] = set()
    while queue:
        reach = queue.pop(0)
        if (reach.span, reach.inside) in seen or reach.depth > MAX_DEPTH:
            continue
        seen.add((reach.span, reach.inside))
        found.append(reach)
        queue += _below(stack, reach)
    return tuple(found)


def windows(stack: Stack, devno: str) -> tuple[Window, ...]:
    """The devices laid linearly over what a write to device `devno` reaches through linear
    links only (its partitions, loop devices over it at an offset; the other partitions of
    the disk a target partition is on are beside it, not over it): their bytes are the
    target's, so their labels can be read through the target."""
    found: list[Window] = []
    for reach in footprint(stack, devno):
        if not reach.linear:
            continue
        for device in stack.devices.values():
            for link in device.links:
                lower = link.lower
                if link.linear and link.key not in reach.chain and lower.overlaps(reach.span):
                    size = device.size if lower.end is None else lower.end - lower.start
                    found.append(Window(device.name, lower.start - reach.span.start, size))
    return tuple(dict.fromkeys(found))


def name_of(stack: Stack, node: Node) -> str:
    """A node in words: a device's kernel name, a file's path (or its numbers)."""
    if isinstance(node, Block):
        device = stack.devices.get(node.devno)
        return device.name if device is not None else f"device {node.devno}"
    return stack.names.get(node) or f"file {node.ino} on {node.dev}"


def describe(stack: Stack, reach: Reach) -> str:
    """A reached span in words: "loop3 bytes 1048576-17825792", "vda (inside 254:0)"."""
    span = reach.span
    name = name_of(stack, span.node)
    if reach.inside is not None:
        return f"{name} (holding the filesystem of the file above)"
    end = "end" if span.end is None else str(span.end)
    return f"{name} bytes {span.start}-{end}"


def _above(stack: Stack, key: str, by_node: Mapping[Node, list[Use]]) -> str:
    """What uses the device whose link is `key`, when a link is the conflict: " (loop9:
    mounted at /mnt (ext4))"; empty when nothing does."""
    for device in stack.devices.values():
        if any(link.key == key for link in device.links):
            whats = list(dict.fromkeys(u.what for u in by_node.get(Block(device.devno), ())))
            if whats:
                more = f", and {len(whats) - 3} more" if len(whats) > 3 else ""
                return f" ({device.name}: {', '.join(whats[:3])}{more})"
    return ""


def all_uses(stack: Stack) -> dict[Node, list[Use]]:
    """Every use by node: the stack's own and each device link's use of what it links to."""
    by_node: dict[Node, list[Use]] = defaultdict(list)
    for device in stack.devices.values():
        for link in device.links:
            by_node[link.lower.node].append(Use(link.lower, link.key, link.what))
    for use in stack.uses:
        by_node[use.span.node].append(use)
    return by_node


def _files_by_fs(by_node: Mapping[Node, list[Use]]) -> dict[str, list[tuple[File, Use]]]:
    found: dict[str, list[tuple[File, Use]]] = defaultdict(list)
    for node, uses in by_node.items():
        if isinstance(node, File):
            found[node.dev] += [(node, use) for use in uses]
    return found


def _where(stack: Stack, reach: Reach) -> str:
    """How the target's writes reach it, after its name ("" for the target itself)."""
    if reach.depth == 0:
        return ""
    span = reach.span
    if reach.inside is not None:
        return " (it holds the filesystem of a file the target writes to)"
    end = "its end" if span.end is None else str(span.end)
    what = "file" if isinstance(span.node, File) else "device"
    return f" (the target writes to this {what}, bytes {span.start}-{end})"


def reach_words(stack: Stack, reach: Reach) -> str:
    """A reached node and how the target's writes reach it, in words: "loop3 (the target
    writes to this device, bytes 1048576-33554432)"; the target's own name for itself."""
    return f"{name_of(stack, reach.span.node)}{_where(stack, reach)}"


def _raw_filesystem_uses(
    stack: Stack, reach: Reach, files: Mapping[str, list[tuple[File, Use]]]
) -> list[Conflict]:
    """Uses of filesystems living on a device reached raw: every file of theirs in use."""
    node = reach.span.node
    assert isinstance(node, Block)
    found = []
    for dev, uses in files.items():
        fs = filesystem_of(stack, dev)
        if fs is None or not fs.devices or node.devno not in fs.devices:
            continue
        for file, use in uses:
            if use.key not in reach.chain and fs_key(dev) not in reach.chain:
                name = name_of(stack, file)
                text = f"{reach_words(stack, reach)}: a file on it ({name}): {use.what}"
                found.append(Conflict(text, use.brief))
    return found


def conflicts(stack: Stack, devno: str) -> tuple[Conflict, ...]:
    """Why writing device `devno` would write what someone else uses, one each (empty when
    nothing but the target's own chain uses its footprint)."""
    by_node = all_uses(stack)
    files = _files_by_fs(by_node)
    found: list[Conflict] = []
    for reach in footprint(stack, devno):
        node = reach.span.node
        here = reach_words(stack, reach)
        if isinstance(node, File):
            fs = filesystem_of(stack, node.dev)
            if fs is None or fs.devices is None:
                found.append(
                    Conflict(
                        f"{here}: nastui cannot tell which devices hold its filesystem "
                        f"({fs.what if fs else node.dev}), so not where the writes land"
                    )
                )
        for use in by_node.get(node, ()):
            if use.key in reach.chain:
                continue
            if isinstance(node, File) or use.span.overlaps(reach.span):
                above = _above(stack, use.key, by_node)
                found.append(Conflict(f"{here}: {use.what}{above}", use.brief))
        if isinstance(node, Block) and reach.inside is None:
            found += _raw_filesystem_uses(stack, reach, files)
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True, slots=True)
class Relevant:
    """Which uses `conflicts(stack, devno)` can look at, told from the node used, so that a
    reader of every process's uses builds only those (`relevant`). A use of any other node is
    never a conflict and never in one's words: `conflicts` reads the uses of the nodes the
    footprint reaches, the uses of files whose filesystem lives on a device reached raw, and,
    for its words, the uses of block devices (what uses the device whose link is a conflict).

    Attributes:
        files: the files the footprint reaches.
        filesystems: the st_dev of every filesystem living on a device reached raw (a file
            on one is a conflict whoever uses it).
    """

    files: frozenset[File]
    filesystems: frozenset[str]

    def __call__(self, node: Node) -> bool:
        """Whether a use of `node` can matter: every block device, and those files."""
        return isinstance(node, Block) or node in self.files or node.dev in self.filesystems


def relevant(stack: Stack, devno: str) -> Relevant:
    """The uses that can matter to `conflicts(stack, devno)`: the footprint depends on the
    devices and filesystems only, never on the uses, so it is told before any is read."""
    reached = footprint(stack, devno)
    files = frozenset(r.span.node for r in reached if isinstance(r.span.node, File))
    raw = {
        r.span.node.devno for r in reached if isinstance(r.span.node, Block) and r.inside is None
    }
    on_raw = {dev for dev, fs in stack.filesystems.items() if raw & set(fs.devices or ())}
    unlisted = {dev for dev in raw if dev not in stack.filesystems}  # see `filesystem_of`
    return Relevant(files, frozenset(on_raw | unlisted))


def texts(found: Iterable[Conflict]) -> tuple[str, ...]:
    """The reasons in words."""
    return tuple(c.text for c in found)


def _laid_at_start(stack: Stack, devno: str, chain: frozenset[str]) -> bool:
    """Whether a device other than the chain's is laid linearly over device `devno` from its
    byte 0 (a loop device over it at offset 0, its first partition at 0)."""
    return any(
        link.linear and link.key not in chain and link.lower.node == Block(devno)
        for device in stack.devices.values()
        for link in device.links
        if link.lower.start == 0
    )


def probed_lowers(stack: Stack, devno: str) -> tuple[tuple[str, Reach], ...]:
    """The devices below target `devno` that its loop devices write to raw, whose contents
    (signatures, labels) are read as the target's are, each with how it is reached: an
    unmounted filesystem, an LVM PV or an md member there is written over through a loop
    device at an offset, and the target's own labels do not show it. One that another device
    is laid over from its byte 0 is left out: what is found there is that device's, whose
    use of the bytes the footprint weighs already."""
    found: dict[str, tuple[str, Reach]] = {}
    for reach in footprint(stack, devno):
        node = reach.span.node
        if not isinstance(node, Block) or not reach.key.startswith(loop_key("")):
            continue
        device = stack.devices.get(node.devno)
        if device is not None and not _laid_at_start(stack, node.devno, reach.chain):
            found.setdefault(node.devno, (device.name, reach))
    return tuple(found.values())


def loop_lowers(stack: Stack, devno: str) -> tuple[str, ...]:
    """Block devices below the target reached raw through a loop device: nothing in the
    kernel claims those for the loop, so the collector asks the kernel (an exclusive open)
    whether anything else has claimed them."""
    found = [
        reach.span.node.devno
        for reach in footprint(stack, devno)
        if isinstance(reach.span.node, Block) and reach.key.startswith(loop_key(""))
    ]
    return tuple(dict.fromkeys(found))
