"""The swap files' text: the swap in progress (`swap.json`) and the log of finished ones
(`swaps.json`), both JSON with a format version (pure; writing is `nastui.control.statefile`).

    {"version": 1, "swap": {"host": "nano", "phase": "pulled", "old": {...}, "ops": [...], ...}}
    {"version": 1, "log": [{"bay": 10, "old": {...}, "new": {...}, "started_at": ...}]}

A file that is not what it should be decodes to None (the caller says so and starts over),
never to half a swap.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from nastui.swap.logic.names import Op, OpKind, Stage
from nastui.swap.logic.state import DriveRef, Progress, Swap, SwapPhase

LOG_FILE = "swaps.json"
FORMAT_VERSION = 1


def encode_swap(swap: Swap | None) -> str:
    """The text of swap.json."""
    body = dataclasses.asdict(swap) if swap is not None else None
    return json.dumps({"version": FORMAT_VERSION, "swap": body}, indent=2)


def _ref(data: Any) -> DriveRef | None:
    if not isinstance(data, dict):
        return None
    bay, size = data.get("bay"), data.get("capacity_bytes")
    return DriveRef(
        key=str(data["key"]),
        serial=data.get("serial"),
        model=data.get("model"),
        dev=str(data.get("dev", "")),
        bay=bay if isinstance(bay, int) else None,
        path=data.get("path"),
        capacity_bytes=size if isinstance(size, int) else None,
    )


def _op(data: Any) -> Op:
    fields = {f.name: data[f.name] for f in dataclasses.fields(Op) if f.name in data}
    fields["kind"] = OpKind(fields["kind"])
    fields["stage"] = Stage(fields["stage"])
    return Op(**fields)


def _progress(data: Any) -> Progress | None:
    return Progress(**data) if isinstance(data, dict) else None


_LIT_BEFORE = ("prepared", "pulled", "inserted", "replacing", "rebuilding")


def _led(body: dict[str, Any]) -> bool:
    """Whether the swap holds its bay's LED lit; a file from before nastui kept it: as that
    nastui did (lit from the start of a pull-first swap until it was done)."""
    led = body.get("led")
    if isinstance(led, bool):
        return led
    return not body.get("in_place") and body.get("phase") in _LIT_BEFORE


def _count(body: dict[str, Any], name: str) -> int:
    """A count of preparing writes; 0 in a file from before nastui kept them (its swap was
    kept only once preparing was over: no write of it was left half done)."""
    value = body.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name}: {value!r}")
    return value


def decode_swap(text: str) -> Swap | None:
    """The swap in swap.json's text; None for no swap or a file that is not one."""
    try:
        data = json.loads(text)
        body = data["swap"] if data.get("version") == FORMAT_VERSION else None
        if not isinstance(body, dict):
            return None
        old = _ref(body["old"])
        if old is None:
            return None
        return dataclasses.replace(
            Swap(
                host=str(body["host"]),
                phase=SwapPhase(body["phase"]),
                in_place=bool(body["in_place"]),
                old=old,
                pool=body.get("pool"),
                pool_kind=body.get("pool_kind"),
                group=body.get("group"),
                member=body.get("member"),
                ops=tuple(_op(o) for o in body.get("ops", ())),
                members=tuple((str(p), str(t), str(m)) for p, t, m in body.get("members", ())),
                present=tuple((str(k), b) for k, b in body.get("present", ())),
                started_at=float(body["started_at"]),
            ),
            pulled_at=body.get("pulled_at"),
            inserted_at=body.get("inserted_at"),
            replaced_at=body.get("replaced_at"),
            done_at=body.get("done_at"),
            new=_ref(body.get("new")),
            findings=tuple(body.get("findings", ())),
            wrong_pulls=tuple(body.get("wrong_pulls", ())),
            failures=tuple(body.get("failures", ())),
            progress=_progress(body.get("progress")),
            rebuild_estimate_s=body.get("rebuild_estimate_s"),
            events=tuple((float(t), str(x)) for t, x in body.get("events", ())),
            burnin=body.get("burnin") if isinstance(body.get("burnin"), str) else None,
            led=_led(body),
            prep_started=_count(body, "prep_started"),
            prep_done=min(_count(body, "prep_done"), _count(body, "prep_started")),
        )
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None  # RecursionError: json nested deeper than the stack


def log_record(swap: Swap) -> dict[str, Any]:
    """What `nastui swap log` keeps of a finished swap."""
    took = (
        swap.done_at - swap.replaced_at
        if swap.done_at is not None and swap.replaced_at is not None
        else None
    )
    return {
        "host": swap.host,
        "bay": swap.old.bay,
        "pool": swap.pool,
        "phase": swap.phase.value,
        "old": dataclasses.asdict(swap.old),
        "new": dataclasses.asdict(swap.new) if swap.new else None,
        "started_at": swap.started_at,
        "done_at": swap.done_at,
        "rebuild_s": took,
        "burnin": swap.burnin,
    }


def decode_log(text: str) -> list[dict[str, Any]]:
    """The records in swaps.json's text (none when unreadable)."""
    try:
        data = json.loads(text) if text else {}
    except (ValueError, RecursionError):
        return []
    rows = data.get("log") if isinstance(data, dict) else None
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def encode_log(records: list[dict[str, Any]]) -> str:
    """The text of swaps.json."""
    return json.dumps({"version": FORMAT_VERSION, "log": records}, indent=2)


def failed_serials(records: list[dict[str, Any]]) -> set[str]:
    """Serials of drives taken out by earlier swaps (they failed; they must not come back)."""
    out = set()
    for record in records:
        old = record.get("old")
        if isinstance(old, dict) and isinstance(old.get("serial"), str):
            out.add(old["serial"])
    return out


def records_for(
    records: list[dict[str, Any]], bay: int | None, serial: str | None, host: str | None = None
) -> list[dict[str, Any]]:
    """The swaps of a bay or of a drive (its serial as the old or the new one), oldest first;
    with `host`, only that host's (a record without one counts as any host's)."""

    def serials(record: dict[str, Any]) -> set[object]:
        return {(record.get(side) or {}).get("serial") for side in ("old", "new")}

    return [
        r
        for r in records
        if (host is None or r.get("host") in (None, host))
        and (
            (bay is not None and r.get("bay") == bay)
            or (serial is not None and serial in serials(r))
        )
    ]
