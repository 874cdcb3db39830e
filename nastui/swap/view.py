"""`nastui swap` as text and JSON: the plan, the swap in progress, the log.

Commands are printed as shell words from `nastui.swap.logic.argv.argv_for`, so what the plan
shows is exactly what `swap start` and `swap replace` run.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from nastui.core import units
from nastui.swap.logic.argv import argv_for, command_line
from nastui.swap.logic.names import Stage
from nastui.swap.logic.plan import SwapPlan
from nastui.swap.logic.redundancy import Redundancy
from nastui.swap.logic.state import Swap, SwapPhase
from nastui.swap.logic.undo import abort_undo, prepare_ops, undo_ops

_NEXT = {
    SwapPhase.PLANNED: "run `nastui swap start` to prepare",
    SwapPhase.PREPARING: "run `nastui swap abort`: it undoes what may have run (each undo is "
    "skipped when the pool shows it needless), then start again",
    SwapPhase.PREPARED: "pull the drive whose LED is lit, then run `nastui swap`",
    SwapPhase.PULLED: "insert the new drive (same bay or any free one), then run `nastui swap`",
    SwapPhase.INSERTED: "check the findings, then `nastui swap replace --confirm NEW_SERIAL` "
    "(first, if you like, `nastui swap burnin --confirm NEW_SERIAL`)",
    SwapPhase.REPLACING: "the replace was started: run `nastui swap` to follow the rebuild",
    SwapPhase.REBUILDING: "the pool rebuilds: run `nastui swap` to follow it",
    SwapPhase.DONE: "done",
    SwapPhase.ABORTED: "aborted",
}


def redundancy_text(red: Redundancy) -> str:
    """ "raidz2 of 8; can lose 1 more once it is out (already missing: sdc)"."""
    if red.left_after is None:
        left = "unknown what it can lose"
    elif red.left_after < 0:
        left = "pulling it loses data"
    else:
        left = f"can lose {red.left_after} more once it is out"
    gone = f" (already missing: {', '.join(red.others_missing)})" if red.others_missing else ""
    return f"{red.layout}; {left}{gone}"


def plan_text(plan: SwapPlan) -> str:
    """The plan for humans."""
    if plan.drive is None:
        return f"{plan.refusal}\n"
    where = f"bay {plan.bay}" if plan.bay is not None else "no bay"
    ident = plan.drive.identity
    dev = plan.drive.dev or "(gone)"
    lines = [f"{where}: {dev} {ident.model or '?'} {ident.serial or '?'}"]
    if plan.pool is None or plan.group is None or plan.member is None:
        lines += [f"  {n}" for n in plan.notes]
        return "\n".join(lines) + "\n"
    for m in plan.memberships or ():
        lines.append(
            f"  pool {m.pool.name} ({m.pool.kind.value}, {m.pool.state.value}), "
            f"{m.group.name}, member {m.member.name} {m.member.state.value}"
        )
        lines.append(f"    redundancy: {redundancy_text(m.redundancy)}")
    if not plan.memberships:
        lines.append(f"  pool {plan.pool.name}, {plan.group.name}, member {plan.member.name}")
    if plan.refusal:
        lines.append(f"  REFUSED: {plan.refusal}")
    free = ", ".join(map(str, plan.free_bays)) or "none"
    way = "in place (new drive first, old one out at the end)" if plan.in_place else "pull first"
    lines.append(f"  free bays: {free}; way: {way}")
    lines.append(
        f"  rebuild: about {units.duration(plan.rebuild_seconds)} "
        f"({units.size(plan.rebuild_bytes)} at {units.rate(plan.rebuild_rate)}, last scan's rate)"
    )
    needs = plan.needs
    if needs is not None:
        sector = (
            f", {needs.sectors.logical}/{needs.sectors.physical} B sectors" if needs.sectors else ""
        )
        smr = ", not SMR" if needs.no_smr else ""
        lines.append(f"  new drive: at least {units.size(needs.min_bytes)}{sector}{smr}")
    for stage in (Stage.PREPARE, Stage.REPLACE):
        ops = [o for o in plan.ops if o.stage is stage]
        if ops:
            lines.append(f"  {stage.value}:")
            lines += [f"    {command_line(o)}    # {o.why}" for o in ops]
    lines += [f"  note: {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"


def plan_data(plan: SwapPlan) -> dict[str, Any]:
    """The plan as JSON-ready data."""
    red = plan.redundancy
    needs = plan.needs
    return {
        "target": plan.target,
        "drive": plan.drive.key if plan.drive else None,
        "dev": plan.drive.dev if plan.drive else None,
        "bay": plan.bay,
        "pool": plan.pool.name if plan.pool else None,
        "pool_kind": plan.pool.kind.value if plan.pool else None,
        "group": plan.group.name if plan.group else None,
        "member": plan.member.name if plan.member else None,
        "redundancy": dataclasses.asdict(red) if red else None,
        "memberships": [
            {
                "pool": m.pool.name,
                "group": m.group.name,
                "member": m.member.name,
                "redundancy": dataclasses.asdict(m.redundancy),
            }
            for m in plan.memberships
        ],
        "refusal": plan.refusal,
        "safe_to_pull": plan.safe_to_pull,
        "free_bays": list(plan.free_bays),
        "in_place": plan.in_place,
        "commands": [
            {"stage": o.stage.value, "argv": list(argv_for(o)), "why": o.why} for o in plan.ops
        ],
        "rebuild": {
            "bytes": plan.rebuild_bytes,
            "rate_bytes_per_s": plan.rebuild_rate,
            "seconds": plan.rebuild_seconds,
        },
        "needs": dataclasses.asdict(needs) if needs else None,
        "notes": list(plan.notes),
    }


def next_step(swap: Swap) -> str:
    """What the operator does next. Told to pull a drive whose LED no method could light,
    the operator is given its bay and serial to read off the label instead (a lit LED there
    may be another drive's, for another reason)."""
    if swap.in_place and swap.phase is SwapPhase.PREPARED:
        return "insert the new drive in a free bay (the old one stays in), then run `nastui swap`"
    if swap.in_place and swap.phase is SwapPhase.DONE:
        return f"pull the old drive: {_pull_where(swap)}"
    if swap.phase is SwapPhase.PREPARED and not swap.led:
        return f"pull the old drive: {_pull_where(swap)}, then run `nastui swap`"
    return _NEXT[swap.phase]


def _pull_where(swap: Swap) -> str:
    """The drive to pull, by its lit LED, else by what is written on it."""
    old = swap.old
    if swap.led and old.bay is not None:
        return f"bay {old.bay} (its LED is lit)"
    serial = f"serial {old.serial}" if old.serial else f"device {old.dev}"
    where = f"bay {old.bay}, " if old.bay is not None else ""
    return f"{where}{serial}: no locate LED is lit for it, check the serial on the drive's label"


def preparing_lines(swap: Swap) -> list[str]:
    """For a swap stopped while preparing: each preparing write, whether it ran, may or may not
    have run (begun, no answer kept: killed during it, or it failed), or never ran."""
    lines = []
    for number, op in enumerate(prepare_ops(swap), 1):
        if number <= swap.prep_done:
            state = "ran"
        elif number <= swap.prep_started:
            state = "may or may not have run"
        else:
            state = "not run"
        lines.append(f"  {state}: {command_line(op)}")
    undo = [command_line(op) for op in undo_ops(swap)]
    lines.append(f"  abort runs: {'; '.join(undo) if undo else 'nothing (no write began)'}")
    return lines


def _when(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(t)) if t is not None else "-"


def swap_text(swap: Swap) -> str:
    """The swap in progress for humans."""
    lines = []
    for wrong in swap.wrong_pulls:
        lines.append(f"CRITICAL: WRONG DRIVE PULLED: {wrong}: put it back in its bay now")
    for failed in swap.failures:
        lines.append(f"CRITICAL: another member of {swap.pool} is down: {failed}")
    lines.append(f"swap {swap.phase.value}: {swap.old.label} of {swap.pool or 'no pool'}")
    if swap.phase is SwapPhase.PREPARING:
        lines.append(
            "  INTERRUPTED while preparing (killed, or a write failed): the pool may be "
            "degraded by what ran"
        )
        lines += preparing_lines(swap)
    if swap.new is not None:
        lines.append(f"  new drive: {swap.new.label} ({swap.new.dev})")
    for finding in swap.findings:
        mark = "BLOCKS" if finding.startswith("!") else "warn"
        lines.append(f"  {mark}: {finding.removeprefix('!')}")
    if swap.burnin is not None:
        mark = "BLOCKS: " if swap.burnin.startswith("!") else ""
        lines.append(f"  {mark}burn-in {swap.burnin.removeprefix('!')}")
    if swap.progress is not None and swap.phase is SwapPhase.REBUILDING:
        p = swap.progress
        pct = f"{p.percent:.1f} %" if p.percent is not None else "?"
        lines.append(f"  rebuild: {pct} at {units.rate(p.rate)}, {units.duration(p.eta_s)} left")
    if swap.phase is SwapPhase.PREPARED and (back := abort_undo(swap)):
        undo = "; ".join(command_line(op) for op in back)
        lines.append(f"  abort before the pull runs: {undo}")
    lines.append(f"  next: {next_step(swap)}")
    lines += [f"  {_when(t)} {text}" for t, text in swap.events[-6:]]
    return "\n".join(lines) + "\n"


def swap_data(swap: Swap | None) -> dict[str, Any]:
    """The swap as JSON-ready data (null when none)."""
    if swap is None:
        return {"swap": None}
    body = dataclasses.asdict(swap)
    body["next"] = next_step(swap)
    body["blocked"] = swap.blocked
    body["undo"] = [list(argv_for(o)) for o in abort_undo(swap)]
    return {"swap": body}


def record_line(record: dict[str, Any]) -> str:
    """One finished swap: "2026-11-25 12:37  bay 10  storage  done: OLD -> NEW  rebuild 7h"."""
    old, new = record.get("old") or {}, record.get("new") or {}
    took = units.duration(record.get("rebuild_s"), unknown="-")
    burnin = record.get("burnin")
    burnt = ""
    if isinstance(burnin, str):
        burnt = "  burn-in failed" if burnin.startswith("!") else "  burn-in passed"
    return (
        f"{_when(record.get('started_at'))}  bay {record.get('bay', '-')}  "
        f"{record.get('pool') or '-'}  {record.get('phase')}: "
        f"{old.get('model')} {old.get('serial')} -> "
        f"{new.get('model', '-')} {new.get('serial', '-')}  rebuild {took}{burnt}"
    )


def log_text(records: list[dict[str, Any]]) -> str:
    """`nastui swap log`."""
    if not records:
        return "no swaps on record\n"
    return "\n".join(record_line(r) for r in records) + "\n"


def record_data(record: dict[str, Any]) -> dict[str, Any]:
    """A finished swap as `nastui swap log --json` shows it (and `nastui drives --json` under
    a drive)."""
    old, new = record.get("old") or {}, record.get("new") or {}
    return {
        "bay": record.get("bay"),
        "pool": record.get("pool"),
        "phase": record.get("phase"),
        "started_at": record.get("started_at"),
        "done_at": record.get("done_at"),
        "rebuild_s": record.get("rebuild_s"),
        "burnin": record.get("burnin"),
        "old": {"model": old.get("model"), "serial": old.get("serial")},
        "new": {"model": new.get("model"), "serial": new.get("serial")} if new else None,
    }
