"""The recorder: a stand-in for the runner that lets every program run (or the stand-in it
wraps answer) and keeps each result by argument list, relative to the root, for `tools.json`.

It also keeps what nastui asked about installed programs (`zpool` on PATH?), so a replay
answers those questions as the captured box did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nastui.collectors import replay, standin
from nastui.collectors.runner import CommandResult

OUTPUT_LIMIT = 8 * 1024 * 1024  # characters kept of each stream of a recorded run


def _cut(text: str) -> tuple[str, bool]:
    return (text[:OUTPUT_LIMIT], True) if len(text) > OUTPUT_LIMIT else (text, False)


@dataclass
class Recorder:
    """Records through `inner` (the session's stand-in, or None: the machine's programs)."""

    root: Path
    inner: standin.StandIn | None = None
    runs: dict[tuple[str, ...], list[dict[str, Any]]] = field(default_factory=dict)
    present: dict[str, bool] = field(default_factory=dict)

    def answer(self, argv: tuple[str, ...]) -> CommandResult | None:
        """The wrapped stand-in's answer, if there is one."""
        return self.inner.answer(argv) if self.inner is not None else None

    def seen(self, result: CommandResult) -> None:
        """Keep `result` (each stream at most `OUTPUT_LIMIT` characters)."""
        stdout, cut_out = _cut(result.stdout)
        stderr, cut_err = _cut(result.stderr)
        data = replay.result_data(result)
        data.update(stdout=stdout, stderr=stderr, truncated=result.truncated or cut_out or cut_err)
        key = replay.relative_argv(result.argv, self.root)
        self.runs.setdefault(key, []).append(data)

    def installed(self, tool: str) -> bool:
        """Whether `tool` is there (asked of the wrapped stand-in, else PATH), remembered."""
        previous = standin.use(self.inner)
        try:
            found = standin.installed(tool)
        finally:
            standin.use(previous)
        self.present[tool] = found
        return found

    def absent(self, tool: str) -> str | None:
        """The wrapped stand-in's words, if any."""
        return self.inner.absent(tool) if self.inner is not None else None

    def table(self, mask: Callable[[str], str] = str) -> dict[str, Any]:
        """`tools.json`: every run and installed-question, each text through `mask`."""
        runs = [
            {
                "argv": [mask(a) for a in argv],
                "results": [
                    {
                        **r,
                        "stdout": mask(r["stdout"]),
                        "stderr": mask(r["stderr"]),
                        "error": None if r["error"] is None else mask(r["error"]),
                    }
                    for r in results
                ],
            }
            for argv, results in self.runs.items()
        ]
        return {
            "format": replay.FORMAT,
            "installed": dict(sorted(self.present.items())),
            "runs": runs,
        }

    def outputs(self) -> list[str]:
        """Every recorded stdout (to look for serial numbers in)."""
        return [r["stdout"] for results in self.runs.values() for r in results]
