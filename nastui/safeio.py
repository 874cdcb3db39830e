"""Reading files that someone else may have replaced: regular files only, bounded in size.

nastui reads its configuration, its own state files (the alert book, the swap record, the
history's companions) and thousands of sysfs and /proc attributes. Any of them can be, by
accident or on purpose, a FIFO (an `open` that blocks forever), `/dev/zero` or a sparse 1 GB
file (a `read` that fills the memory), or a directory. Every such read goes through here:

- the file is opened with `O_NONBLOCK` (a FIFO opens at once instead of waiting for a writer)
  and `O_CLOEXEC`; `O_NOFOLLOW` too when the caller asks for it;
- what was opened is checked with `fstat` (not a `stat` before the open, which a rename could
  beat): only a regular file is read;
- at most `limit` bytes are read; a longer file is refused, never cut silently;
- JSON read from such a file is parsed by `loads_json`, which refuses nesting deeper than a
  bound before the standard parser (which recurses) sees it.

sysfs attributes and /proc files are regular files (sysfs reports 4096 bytes, /proc 0), so the
checks cost one `fstat` and change nothing for them.

The same tree holds links and directories that can be made hostile too: `resolve` follows a link
to its end with a loop refused as one `UnsafeFileError` (pathlib raises `RuntimeError` for it),
and `names` lists a directory up to a bound (a directory of a million entries is refused, not
sorted). `read_input_bounded` is `read_bounded` for a file an operator names on the command line,
where a pipe (`<(smartctl -x /dev/sda)`) is a normal input: a FIFO is read, bounded, as well.

Writing goes the other way through here too: `write_atomic` is the one way nastui replaces a
file of its own (state files, bench results, the configuration it edits, the demo's hands), so a
reader never sees half a file (with `new=True`, the one way it makes a file only if nothing has
that name); `write_existing` writes a control that must already exist.

`package_text` reads a data file nastui ships inside one of its packages (the interface's
stylesheet, the simulator's drive profiles) through the package's own loader, so it reads the
same from a directory or from the zipapp's archive.

Stdlib only: every layer (config, history, collectors, control) may use it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import pkgutil
import re
import stat
from itertools import accumulate
from pathlib import Path
from typing import Any

KIB = 1024
MIB = 1024 * KIB
ATTR_LIMIT = 64 * KIB  # a sysfs attribute: at most a page; binary ones (VPD pages) a little more
TABLE_LIMIT = 16 * MIB  # a /proc table (mountinfo of thousands of mounts) or an /etc file
STATE_LIMIT = 16 * MIB  # nastui's own state files (acks, books, records): none comes near it
SECRET_LIMIT = 64 * KIB  # a password or URL file: one line


class UnsafeFileError(OSError):
    """A file that is not read: not a regular file, or larger than the caller's bound.

    `str()` is one line naming the file and what it is ("... is a FIFO, not a regular file").
    """


def _kind(mode: int) -> str:
    """What a non-regular file is, in an operator's words."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def open_regular(path: Path | str, *, follow: bool = True) -> int:
    """Open `path` read-only without ever blocking, and only if it is a regular file.

    Returns:
        The file descriptor (the caller closes it).

    Raises:
        UnsafeFileError: it is a FIFO, device, directory or socket (or a link with
            `follow=False`).
        OSError: it cannot be opened (missing, permission).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a link, or the links loop
            what = "a symbolic link loop" if follow else "a symbolic link"
            raise UnsafeFileError(f"{path} is {what}, not a regular file") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafeFileError(f"{path} is {_kind(mode)}, not a regular file")
    return fd


def read_bounded(path: Path | str, limit: int, *, follow: bool = True) -> bytes:
    """The whole content of a regular file of at most `limit` bytes.

    Raises:
        UnsafeFileError: not a regular file, or longer than `limit` bytes.
        OSError: it cannot be opened or read.
    """
    fd = open_regular(path, follow=follow)
    try:
        return read_fd_bounded(fd, path, limit)
    finally:
        os.close(fd)


def read_fd_bounded(fd: int, path: Path | str, limit: int) -> bytes:
    """At most `limit` bytes from an open `fd` (named `path` in messages) to its end.

    Raises:
        UnsafeFileError: there is more than `limit` bytes (what was read is dropped).
        OSError: it cannot be read.
    """
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(limit + 1 - size, 256 * KIB))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise UnsafeFileError(f"{path} is larger than {_size(limit)}: not read")
    return b"".join(chunks)


def read_input_bounded(path: Path | str, limit: int) -> bytes:
    """A file an operator names as input: a regular file or a pipe (read to its end, as any
    reader of a pipe waits for its writer), at most `limit` bytes.

    Raises:
        UnsafeFileError: a device, directory or socket, or longer than `limit` bytes.
        OSError: it cannot be opened or read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISFIFO(mode):
            os.set_blocking(fd, True)
        elif not stat.S_ISREG(mode):
            raise UnsafeFileError(f"{path} is {_kind(mode)}, not a regular file")
        return read_fd_bounded(fd, path, limit)
    finally:
        os.close(fd)


def write_existing(path: Path | str, data: bytes) -> None:
    """Write `data` to a regular file that exists (a sysfs control such as an SES `locate`):
    never created, never through a link in its last component, never a FIFO (whose open would
    wait for a reader) or a device.

    Raises:
        UnsafeFileError: it is not a regular file.
        OSError: it is missing or cannot be written.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFileError(f"{path} is a symbolic link, not a regular file") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeFileError(f"{path} is {_kind(mode)}, not a regular file")
        os.write(fd, data)
    finally:
        os.close(fd)


def write_atomic(
    path: Path | str,
    text: str,
    mode: int | None = None,
    *,
    durable: bool = True,
    in_place: bool = False,
    new: bool = False,
) -> None:
    """Replace `path` with `text` (UTF-8) in one step: written whole to a temporary file beside
    it (created exclusively, 0600), its `mode` (e.g. 0o644) set before the rename so a reader
    never finds it unreadable, renamed over `path`. `durable` flushes the file and then the
    directory to the disk, so after a power cut it is the old file or the new one, never empty
    (False for files rewritten every few seconds anyway). `in_place`: where the directory lets
    no file be created (a configuration the user may edit in a directory only root may), write
    `path` itself instead. `new`: never replace anything: `path` is made only if nothing has
    that name, checked and made in one step (a hard link to the temporary file), so of two
    writers racing for one name exactly one gets it. The directory must exist.

    Raises:
        FileExistsError: `new`, and something already has the name (it is left as it was).
        OSError: the file cannot be written (the temporary file is removed).
    """
    import tempfile  # with `random`: loaded by what writes, not by every reader

    path = Path(path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except PermissionError:
        if not in_place:
            raise
        with path.open("x" if new else "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    temp = Path(name)
    try:
        _write_fd(fd, text, mode, durable=durable)
        if new:
            _link_new(temp, path, text, mode)
            temp.unlink()
        else:
            temp.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    if durable:
        _sync_dir(path.parent)


def _link_new(temp: Path, path: Path, text: str, mode: int | None) -> None:
    """`temp` also at `path`, which must not exist: a hard link (checked and made in one step);
    where the file system has none (FAT, some FUSE mounts), `path` created exclusively and
    written (a reader may then see it half written, never another writer's file replaced)."""
    try:
        os.link(temp, path)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS):
            raise
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(path, flags, 0o600)
        try:
            _write_fd(fd, text, mode, durable=True)
        except OSError:
            path.unlink()  # made by this call, a moment ago: half of it is nobody's
            raise


def _write_fd(fd: int, text: str, mode: int | None, *, durable: bool) -> None:
    """Write `text` to the new file `fd` (closed after), its `mode` set first; flushed to the
    disk when `durable`."""
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        if mode is not None:
            os.fchmod(handle.fileno(), mode)
        handle.write(text)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())


def _sync_dir(directory: Path) -> None:
    """Flush the directory entry of a rename (not every file system can: then it is skipped)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def resolve(path: Path | str) -> Path:
    """Where `path` leads with every link followed: an absolute path that exists.

    Raises:
        UnsafeFileError: the links loop (or chain past the kernel's limit).
        OSError: it, or a link's target, does not exist or cannot be reached.
    """
    try:
        return Path(os.path.realpath(path, strict=True))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFileError(f"{path} is a symbolic link loop") from None
        raise


def names(directory: Path | str, limit: int = 100_000) -> list[str]:
    """The names in a directory, sorted; at most `limit` of them.

    Raises:
        UnsafeFileError: it holds more than `limit` entries.
        OSError: it is not a directory (a FIFO, a loop, missing) or cannot be read.
    """
    found: list[str] = []
    with os.scandir(directory) as entries:
        for entry in entries:
            if len(found) >= limit:
                raise UnsafeFileError(f"{directory} holds more than {limit} entries: not read")
            found.append(entry.name)
    return sorted(found)


def read_text_bounded(path: Path | str, limit: int, *, follow: bool = True) -> str:
    """`read_bounded` decoded as UTF-8 (undecodable bytes replaced, never an exception)."""
    return read_bounded(path, limit, follow=follow).decode("utf-8", errors="replace")


def _size(limit: int) -> str:
    if limit >= MIB and limit % MIB == 0:
        return f"{limit // MIB} MiB"
    if limit >= KIB and limit % KIB == 0:
        return f"{limit // KIB} KiB"
    return f"{limit} bytes"


# ---------------------------------------------------------------------- JSON from such files

MAX_JSON_DEPTH = 64
# Sample: "a \"quoted\" [bracket]" (a JSON string; its brackets do not nest anything)
_JSON_STRING = re.compile(r'"(?:[^"\\]+|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deeply arrays and objects nest in JSON `text` (0 for a scalar); linear, no
    recursion. Brackets inside strings do not count."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets), initial=0))


def loads_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads` for text someone else may have written: nesting deeper than `max_depth`
    (100,000 `[` make the standard parser raise RecursionError, or worse) and bytes that are
    not UTF-8 are a ValueError like any other malformed JSON.

    Raises:
        ValueError: not JSON, nested too deeply, or not UTF-8.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    depth = json_depth(text)
    if depth > max_depth:
        raise ValueError(f"nested {depth} levels deep (at most {max_depth} are read)")
    try:
        return json.loads(text)
    except RecursionError:  # a bound below the interpreter's own, all the same
        raise ValueError("nested too deeply") from None


def package_text(package: str, resource: str) -> str:
    """The UTF-8 text of `resource` (a path relative to `package`'s folder) as shipped.

    `pkgutil.get_data`, not `importlib.resources`: the same loaders, a tenth of the import
    (4 ms of the interface's start, and of the demo's).

    Raises:
        FileNotFoundError: the file is not there, or `package`'s loader cannot read data files
            (none of Python's own).
    """
    data = pkgutil.get_data(package, resource)
    if data is None:
        raise FileNotFoundError(f"{package}: this install's loader cannot read {resource}")
    return data.decode("utf-8")
