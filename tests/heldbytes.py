"""`held_bytes(build)`: how many bytes of Python objects what `build()` returns keeps alive
(tracemalloc, while it is held); for memory figures in tests and `tests/perf`."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable


def held_bytes(build: Callable[[], object]) -> int:
    """Bytes traced while the result of `build()` is still referenced."""
    tracemalloc.start()
    try:
        kept = build()
        size = tracemalloc.get_traced_memory()[0]
        del kept
    finally:
        tracemalloc.stop()
    return size
