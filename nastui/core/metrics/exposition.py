"""The Prometheus text exposition format (pure): a metric family and its text.

Every sample is a gauge (HELP and TYPE first), labels escaped (backslash, double quote,
newline), no timestamps (node_exporter's textfile collector refuses them), no duplicate series
(the first wins); an unknown value adds no sample: unknown is never 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

Labels = tuple[tuple[str, str], ...]


@dataclass
class Family:
    """One metric family: its name, help text and samples (label set -> value)."""

    name: str
    help: str
    samples: dict[Labels, float] = field(default_factory=dict)

    def add(self, value: float | None, /, **labels: str) -> None:
        """Add a sample; None (unknown) adds nothing, a repeated label set keeps the first."""
        key = tuple(labels.items())
        if value is not None and key not in self.samples:
            self.samples[key] = float(value)


def escape_label(value: str) -> str:
    """A label value with backslash, double quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    """HELP text with backslash and newline escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def format_value(value: float) -> str:
    """A sample value: integers without a fraction, NaN and infinities as Prometheus spells
    them."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer() and abs(value) < 2**63:
        return str(int(value))
    return repr(float(value))


def format_families(families: Iterable[Family]) -> str:
    """The exposition text of `families`, skipping those without samples."""
    lines: list[str] = []
    for family in families:
        if not family.samples:
            continue
        lines.append(f"# HELP {family.name} {escape_help(family.help)}")
        lines.append(f"# TYPE {family.name} gauge")
        for labels, value in family.samples.items():
            text = ",".join(f'{k}="{escape_label(v)}"' for k, v in labels)
            lines.append(
                f"{family.name}{{{text}}} {format_value(value)}"
                if text
                else f"{family.name} {format_value(value)}"
            )
    return "".join(f"{line}\n" for line in lines)
