"""One-off events (`nastui.core.events`): a rebuild that finished, a scrub that finished with
errors; nothing after a restart."""

from __future__ import annotations

import dataclasses

from nastui.core.events import events
from nastui.model import (
    Health,
    HostSnapshot,
    NoticeKind,
    Pool,
    PoolKind,
    PoolState,
    ScanKind,
    ScanProgress,
    ScanState,
    Subject,
    Vdev,
)

T0 = 1_700_000_000.0
HOUR = 3600.0


def pool(
    scan: ScanProgress | None,
    state: PoolState = PoolState.ONLINE,
    kind: PoolKind = PoolKind.ZFS,
    name: str = "tank",
) -> Pool:
    return Pool(name, kind, state, Vdev(name, "root", state), scan=scan)


def snap(*pools: Pool) -> HostSnapshot:
    return HostSnapshot("nas", T0, pools=pools)


def scan(kind: ScanKind, state: ScanState, **kw: object) -> ScanProgress:
    base = ScanProgress(kind, state, started_at=T0 - 5 * HOUR)
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


RESILVERING = scan(ScanKind.RESILVER, ScanState.RUNNING, bytes_done=1, bytes_total=9, errors=0)
RESILVERED = scan(ScanKind.RESILVER, ScanState.FINISHED, ended_at=T0 - 60, errors=0)


def test_resilver_finished_with_duration_and_errors() -> None:
    before = snap(pool(RESILVERING, PoolState.DEGRADED))
    (notice,) = events(before, snap(pool(RESILVERED)), T0)
    assert notice.kind is NoticeKind.EVENT and notice.at == T0
    alert = notice.alert
    assert (alert.key, alert.health, alert.subject, alert.name, alert.host) == (
        "pool:tank:rebuild-finished",
        Health.OK,
        Subject.POOL,
        "tank",
        "nas",
    )
    assert alert.message == "resilver finished in 4h59m with 0 error(s)"


def test_a_restart_sends_nothing() -> None:
    assert events(None, snap(pool(RESILVERED)), T0) == ()


def test_an_old_finished_scan_is_not_news_again() -> None:
    assert events(snap(pool(RESILVERED)), snap(pool(RESILVERED)), T0) == ()
    assert events(snap(), snap(pool(RESILVERED)), T0) == ()  # pool not seen before


def test_a_rebuild_that_ran_between_polls_counts() -> None:
    before = snap(pool(scan(ScanKind.SCRUB, ScanState.FINISHED, ended_at=T0 - 9 * HOUR)))
    (notice,) = events(before, snap(pool(RESILVERED)), T0)
    assert notice.alert.key == "pool:tank:rebuild-finished"


def test_errors_or_a_still_degraded_pool_warn() -> None:
    bad = dataclasses.replace(RESILVERED, errors=3)
    (notice,) = events(snap(pool(RESILVERING)), snap(pool(bad, PoolState.DEGRADED)), T0)
    assert notice.alert.health is Health.WARNING
    assert notice.alert.value == 3
    assert notice.alert.message == (
        "resilver finished in 4h59m with 3 error(s); pool still DEGRADED"
    )


def test_btrfs_replace_finished() -> None:
    running = scan(ScanKind.REPLACE, ScanState.RUNNING)
    done = scan(ScanKind.REPLACE, ScanState.FINISHED, ended_at=T0 - 2 * HOUR)
    before = snap(pool(running, kind=PoolKind.BTRFS))
    (notice,) = events(before, snap(pool(done, kind=PoolKind.BTRFS)), T0)
    assert notice.alert.message == "replace finished in 3h00m"


def test_md_recovery_that_left_mdstat() -> None:
    recovering = scan(ScanKind.RECOVERY, ScanState.RUNNING)
    before = snap(pool(recovering, PoolState.DEGRADED, PoolKind.MDRAID, "md0"))
    (notice,) = events(before, snap(pool(None, kind=PoolKind.MDRAID, name="md0")), T0)
    assert notice.alert.message == "recovery finished in about 5h00m"
    still = snap(pool(None, PoolState.DEGRADED, PoolKind.MDRAID, "md0"))
    assert events(before, still, T0) == ()  # stopped, not finished: the DEGRADED alert stays


def test_a_canceled_resilver_is_no_event() -> None:
    canceled = scan(ScanKind.RESILVER, ScanState.CANCELED, ended_at=T0 - 60)
    assert events(snap(pool(RESILVERING)), snap(pool(canceled)), T0) == ()


def test_scrub_finished_with_errors_only() -> None:
    running = scan(ScanKind.SCRUB, ScanState.RUNNING, errors=2)
    clean = scan(ScanKind.SCRUB, ScanState.FINISHED, ended_at=T0 - 60, errors=0)
    assert events(snap(pool(running)), snap(pool(clean)), T0) == ()
    dirty = dataclasses.replace(clean, errors=2)
    (notice,) = events(snap(pool(running)), snap(pool(dirty)), T0)
    assert (notice.alert.key, notice.alert.health, notice.alert.message) == (
        "pool:tank:scrub-errors",
        Health.WARNING,
        "scrub finished in 4h59m with 2 error(s)",
    )


def test_pools_are_matched_by_kind_and_name() -> None:
    before = snap(pool(RESILVERING, name="a"), pool(RESILVERING, name="b"))
    after = snap(pool(RESILVERING, name="a"), pool(RESILVERED, name="b"))
    assert [n.alert.name for n in events(before, after, T0)] == ["b"]
