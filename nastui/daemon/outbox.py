"""What the daemon owes its notifiers: batches decided but not yet delivered, per notifier.

Every cycle's notices become batches (one per host) owed to every configured notifier. The
outbox is written with the alert book, in the same file and the same fsync'd rename
(`nastui.daemon.keeper.Keeper.commit`), before anything is sent, and again as soon as a
notifier has taken a batch. So a SIGKILL at any point loses nothing (what was decided is
owed, and sent after the restart) and repeats at most the batch each notifier was sending
when the process died (its delivery happened, its record did not): at least once, and at most
one more.

A notifier that fails keeps what it is owed, in order, until it answers again
(`nastui.daemon.postman`). The outbox is bounded: at most `MAX_BATCHES` batches (the oldest
are dropped first) and none older than `MAX_AGE_S`, each drop said in the log.

In the book's file: "outbox": {"next": SEQ, "batches": [{"seq", "host", "owed": [NAME...],
"notices": [NOTICE...]}]} with NOTICE as `nastui.core.alerting.notice_record`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nastui.core.alerting import notice_from, notice_record
from nastui.model import Notice

MAX_BATCHES = 1000
MAX_AGE_S = 7 * 86400.0


@dataclass(frozen=True, slots=True)
class Batch:
    """One host's notices of one cycle, and the notifiers that have not taken them yet."""

    seq: int
    host: str
    notices: tuple[Notice, ...]
    owed: tuple[str, ...]

    @property
    def at(self) -> float:
        """When it was decided."""
        return min((n.at for n in self.notices), default=0.0)


def _same(a: Notice, b: Notice) -> bool:
    """The same news: a notice decided again after a restart (its time differs)."""
    return (a.kind, a.alert.host, a.alert.key, a.alert.message) == (
        b.kind,
        b.alert.host,
        b.alert.key,
        b.alert.message,
    )


@dataclass
class Outbox:
    """The batches owed, oldest first."""

    batches: list[Batch] = field(default_factory=list)
    next_seq: int = 1

    def add(self, host: str, notices: Sequence[Notice], owed: Iterable[str]) -> Batch | None:
        """Owe `notices` about `host` to the notifiers named `owed`; notices already owed (the
        same news, decided again after a restart) are left out. None when nothing is left or
        nobody is owed."""
        names = tuple(owed)
        waiting = [n for b in self.batches if b.host == host for n in b.notices]
        fresh = tuple(n for n in notices if not any(_same(n, w) for w in waiting))
        if not fresh or not names:
            return None
        batch = Batch(self.next_seq, host, fresh, names)
        self.next_seq += 1
        self.batches.append(batch)
        return batch

    def owed_to(self, name: str) -> list[Batch]:
        """What `name` has not taken yet, oldest first."""
        return [b for b in self.batches if name in b.owed]

    def taken(self, seq: int, name: str) -> None:
        """`name` took batch `seq`: it is owed to one notifier fewer (gone when to none)."""
        for i, batch in enumerate(self.batches):
            if batch.seq == seq:
                owed = tuple(n for n in batch.owed if n != name)
                if owed:
                    self.batches[i] = dataclasses.replace(batch, owed=owed)
                else:
                    del self.batches[i]
                return

    def trim(self, now: float) -> list[Batch]:
        """Drop what is too old or too many (`MAX_AGE_S`, `MAX_BATCHES`); the dropped ones."""
        old = [b for b in self.batches if now - b.at > MAX_AGE_S]
        kept = [b for b in self.batches if b not in old]
        over = kept[: max(0, len(kept) - MAX_BATCHES)]
        self.batches = kept[len(over) :]
        return [*old, *over]

    def record(self) -> dict[str, Any]:
        """The outbox as a JSON object (see the module docstring)."""
        return {
            "next": self.next_seq,
            "batches": [
                {
                    "seq": b.seq,
                    "host": b.host,
                    "owed": list(b.owed),
                    "notices": [notice_record(n) for n in b.notices],
                }
                for b in self.batches
            ],
        }


def _batch_from(item: Any) -> Batch | None:
    if not isinstance(item, dict):
        return None
    seq, host, owed = item.get("seq"), item.get("host"), item.get("owed")
    raw = item.get("notices")
    if not isinstance(seq, int) or not isinstance(host, str) or not isinstance(raw, list):
        return None
    if not isinstance(owed, list) or not all(isinstance(n, str) for n in owed):
        return None
    notices = tuple(n for n in map(notice_from, raw) if n is not None)
    return Batch(seq, host, notices, tuple(owed)) if notices and owed else None


def outbox_from(data: Any) -> Outbox:
    """The outbox in the book file's JSON object (empty when there is none; malformed batches
    are skipped)."""
    record = data.get("outbox") if isinstance(data, dict) else None
    if not isinstance(record, dict):
        return Outbox()
    raw = record.get("batches")
    batches = [b for b in map(_batch_from, raw if isinstance(raw, list) else []) if b is not None]
    batches.sort(key=lambda b: b.seq)
    start = record.get("next")
    next_seq = max([start if isinstance(start, int) else 1, *(b.seq + 1 for b in batches)])
    return Outbox(batches, next_seq)
