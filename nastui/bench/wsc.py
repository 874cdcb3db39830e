"""Write-sync-close: how long writing a file, fsyncing it and closing it takes.

    python -m nastui.bench.wsc --path FILE --size 1G --record 64K [--direct] [--refill]

A deliberately simple timer (after the BBC's "wsc"): open, write `size` bytes in `record`-sized
write() calls, fsync, close, each phase timed, nothing else. With `--direct` the file is opened
O_DIRECT (the buffer is page-aligned, as O_DIRECT needs); with `--refill` every record holds
different random bytes (a compressing or deduplicating SSD sees no repeats), else zeros.

Output, one JSON object per line on stdout, for `nastui.bench.progress.WscReader`:
    {"t": 1.0, "bytes": 268435456}                       every second while writing
    {"done": true, "bytes": 1073741824, "write_s": 2.1, "fsync_s": 0.4, "close_s": 0.0}
    {"error": "open /x: Permission denied"}              and exit status 1
The runner starts it with the parent-death signal: it never outlives nastui.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import sys
import time
from collections.abc import Sequence

from nastui.bench.sizes import parse_size

POOL = 64 << 20  # random bytes generated once; records are cut from it at shifting offsets
SHIFT = 4093  # a prime: consecutive records never start at the same place in the pool
PROGRESS_S = 1.0


def _emit(record: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _fill(buffer: mmap.mmap, pool: bytes, offset: int, record: int) -> int:
    """Copy `record` fresh bytes from the pool into the aligned buffer; the next offset."""
    end = offset + record
    if end <= len(pool):
        buffer[:record] = pool[offset:end]
    else:
        head = len(pool) - offset
        buffer[:head] = pool[offset:]
        buffer[head:record] = pool[: record - head]
    return (offset + record + SHIFT) % len(pool)


def write_sync_close(path: str, size: int, record: int, *, direct: bool, refill: bool) -> None:
    """Time the three phases, printing progress and the result (see the module docstring)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (os.O_DIRECT if direct else 0)
    buffer = mmap.mmap(-1, record)  # page-aligned
    pool = os.urandom(max(POOL, record)) if refill else b""
    offset = 0
    fd = os.open(path, flags, 0o600)
    written, started = 0, time.monotonic()
    next_report = started + PROGRESS_S
    view = memoryview(buffer)
    while written < size:
        if refill:
            offset = _fill(buffer, pool, offset, record)
        n = os.write(fd, view[: min(record, size - written)] if not direct else view)
        written += n
        now = time.monotonic()
        if now >= next_report:
            _emit({"t": round(now - started, 3), "bytes": written})
            next_report = now + PROGRESS_S
    wrote = time.monotonic()
    os.fsync(fd)
    synced = time.monotonic()
    os.close(fd)
    closed = time.monotonic()
    _emit(
        {
            "done": True,
            "bytes": written,
            "write_s": round(wrote - started, 6),
            "fsync_s": round(synced - wrote, 6),
            "close_s": round(closed - synced, 6),
        }
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run; errors are one JSON line and exit status 1."""
    parser = argparse.ArgumentParser(prog="python -m nastui.bench.wsc")
    parser.add_argument("--path", required=True)
    parser.add_argument("--size", type=parse_size, default=1 << 30)
    parser.add_argument("--record", type=parse_size, default=1 << 20)
    parser.add_argument("--direct", action="store_true")
    parser.add_argument("--refill", action="store_true")
    args = parser.parse_args(argv)
    try:
        write_sync_close(args.path, args.size, args.record, direct=args.direct, refill=args.refill)
    except OSError as exc:
        _emit({"error": f"{exc.filename or args.path}: {exc.strerror or exc}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
