"""Every OpenZFS release's words for a `zpool` that cannot answer, as data (for the unit tests
and the lab): `source_messages()` are the texts read from each release's source
(fixtures/zpool/messages/OPENZFS_MESSAGES.json), `captures()` real runs of 2.1.11 and 2.3.2.
Each carries the `nastui.collectors.zfs.messages.Meaning` value it must be read as."""

from __future__ import annotations

import json
from dataclasses import dataclass

from tests.fakepools import FIXTURES

MESSAGES = FIXTURES / "zpool/messages"


@dataclass(frozen=True)
class Said:
    """One message: which release says it, where, the text and what it means."""

    release: str
    where: str
    text: str
    meaning: str
    returncode: int
    stdout: str = ""

    @property
    def id(self) -> str:
        return f"{self.release}:{self.meaning}:{self.where.split('/')[-1]}"


def source_messages() -> list[Said]:
    """The texts as each release's source prints them."""
    doc = json.loads((MESSAGES / "OPENZFS_MESSAGES.json").read_text())
    return [
        Said(r["release"], f"{r['file']}:{r['line']}", r["text"], r["meaning"], r["exit"])
        for r in doc["messages"]
    ]


def captures() -> list[Said]:
    """Real runs (stderr as `text`)."""
    found = []
    for path in sorted((MESSAGES / "captured").glob("*.json")):
        rec = json.loads(path.read_text())
        found.append(
            Said(
                rec["openzfs"],
                path.name,
                rec["stderr"],
                rec["meaning"],
                rec["returncode"],
                rec["stdout"],
            )
        )
    return found


def capture(release: str, situation: str, argv: str = "status-json") -> Said:
    """One real run, by release ("2.3.2"), situation ("no-module") and command."""
    name = f"zpool-{release}__{situation}__{argv}.json"
    return next(s for s in captures() if s.where == name)
