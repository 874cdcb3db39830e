"""The values every numeric benchmark setting may take (pure), from any front end.

The command line checks each option as it reads it (one line and exit 64 when out of bounds);
`nastui.bench.profiles.plan` checks every settings it is given, whoever made them. A negative
runtime or ramp ran until killed, a huge queue depth hung fio, and -1000 s was an internal
error: bounds, not hopes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from nastui.bench.sizes import size_label
from nastui.model import BenchSettings

K, M, G = 1 << 10, 1 << 20, 1 << 30


@dataclass(frozen=True, slots=True)
class Bound:
    """The values a numeric setting may take, and its command-line option for messages."""

    option: str
    low: float
    high: float
    unit: str = ""

    def text(self, value: float) -> str:
        """A value as the option reads it."""
        if self.unit == "bytes":
            return size_label(int(value))
        return f"{value:g}{self.unit}"

    def refusal(self, value: float) -> str | None:
        """Why `value` is out of bounds, in one line; None when it is within."""
        if not math.isfinite(value) or not self.low <= value <= self.high:
            shown = "not a finite number" if not math.isfinite(value) else self.text(value)
            return (
                f"{self.option} must be between {self.text(self.low)} and "
                f"{self.text(self.high)} ({shown} given)"
            )
        return None


DAY = 86400.0
# Every numeric setting; fio runs at most 4096 jobs, and an O_DIRECT block is 512 B at least.
BOUNDS: dict[str, Bound] = {
    "runtime_s": Bound("--runtime", 1, DAY, " s"),
    "ramp_s": Bound("--ramp", 0, 3600, " s"),
    "iodepths": Bound("--iodepth", 1, 4096),
    "numjobs": Bound("--numjobs", 1, 256),
    "size_bytes": Bound("--size", 4 * K, float(1 << 60), "bytes"),
    "bs_bytes": Bound("--bs", 512, 64 * M, "bytes"),
    "file_bytes": Bound("--file-size", M, float(1 << 60), "bytes"),
    "record_sizes": Bound("--records", 512, G, "bytes"),
}


def bound_refusal(field: str, value: Any) -> str | None:
    """Why `value` (a number, or a tuple of them) is out of bounds for setting `field`."""
    bound = BOUNDS[field]
    for each in value if isinstance(value, tuple) else (value,):
        why = bound.refusal(float(each))
        if why is not None:
            return why
    return None


def check_bounds(settings: BenchSettings) -> None:
    """Refuse settings out of bounds, whoever made them.

    Raises:
        ValueError: one line naming the option, its bounds and the value given.
    """
    for field in BOUNDS:
        value = getattr(settings, field)
        if value is not None and (why := bound_refusal(field, value)) is not None:
            raise ValueError(why)
