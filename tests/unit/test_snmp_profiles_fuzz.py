"""Property tests: mutated and truncated walks never crash an SNMP profile's parser.

Each recording is cut at a random point, has cells dropped, and has values swapped for any type
the engine can return (ints far out of range, negative counts, floats including NaN, bytes with
NULs and invalid UTF-8, strings, OIDs, None). The parser must return a snapshot of its source.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nastui.collectors.snmp_profiles import PROFILES
from nastui.collectors.snmp_profiles.base import Oid, Profile, SnmpValue, Walk
from nastui.config.remote import SnmpProfile
from nastui.model import HostSnapshot
from tests.snmprec import fixture

RECORDINGS: dict[SnmpProfile, tuple[str, ...]] = {
    SnmpProfile.NET_SNMP: ("netsnmp-lab.snmprec", "netsnmp-synthetic.snmprec"),
    SnmpProfile.SYNOLOGY: ("synologyds214.snmprec", "synology-synthetic-degraded.snmprec"),
    SnmpProfile.QNAP: ("qnap_TVS-871U-RP_excerpt.snmprec", "qnap-synthetic-raid.snmprec"),
    SnmpProfile.TRUENAS: ("freenas-11.2_FREENAS-MIB_excerpt.snmprec", "truenas-synthetic.snmprec"),
    SnmpProfile.UPS: ("tripplite.snmprec", "eastpower-istars-swv053.snmprec"),
    SnmpProfile.APC: ("apc-synthetic.snmprec", "apc-synthetic-onbattery.snmprec"),
}
CASES = [(profile, name) for profile, names in RECORDINGS.items() for name in names]
WALKS = {name: dict(fixture(name)) for _, name in CASES}
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALUES: st.SearchStrategy[SnmpValue] = st.one_of(
    st.none(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([2**2000, -(2**2000)]),
    st.sampled_from([0, -1, 255, 2**31 - 1, 2**63]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.binary(max_size=24),
    st.sampled_from([b"", b"\x00\x00", b"\xff\xfe", b"38 C", b"5.46 TB", b"Disk 3 (", b"NaN"]),
    st.text(max_size=16),
    st.tuples(st.integers(min_value=0, max_value=2**32)).map(tuple),
    st.lists(st.integers(min_value=0, max_value=99), max_size=12).map(tuple),
)


def mutated(data: st.DataObject, walk: Walk) -> dict[Oid, SnmpValue]:
    keys = sorted(walk)
    cut = data.draw(st.integers(min_value=0, max_value=len(keys)), label="cut")
    result = {key: walk[key] for key in keys[:cut]}
    if not result:
        return result
    drop = data.draw(st.sets(st.sampled_from(sorted(result)), max_size=20), label="drop")
    for key in drop:
        del result[key]
    if result:
        for key in data.draw(st.lists(st.sampled_from(sorted(result)), max_size=30), label="swap"):
            result[key] = data.draw(VALUES, label="value")
    return result


def check(profile: Profile, walk: Walk) -> None:
    snapshot = profile.parse("fuzz", walk, 1_700_000_000.0)
    assert isinstance(snapshot, HostSnapshot)
    assert snapshot.source == f"snmp:{profile.name}"
    assert all(e.source == snapshot.source for e in snapshot.errors)
    assert all("\n" not in e.message for e in snapshot.errors)


@SETTINGS
@given(case=st.sampled_from(CASES), data=st.data())
def test_mutated_walks_never_crash(case: tuple[SnmpProfile, str], data: st.DataObject) -> None:
    profile, name = case
    check(PROFILES[profile], mutated(data, WALKS[name]))


@SETTINGS
@given(
    profile=st.sampled_from(sorted(RECORDINGS)),
    walk=st.dictionaries(
        st.lists(st.integers(min_value=0, max_value=60), min_size=1, max_size=18).map(tuple),
        VALUES,
        max_size=40,
    ),
)
def test_random_walks_under_the_roots_never_crash(
    profile: SnmpProfile, walk: dict[Oid, SnmpValue]
) -> None:
    """Random cells placed under each of the profile's roots."""
    chosen = PROFILES[profile]
    rooted = {(*root, *key): value for root in chosen.roots for key, value in walk.items()}
    check(chosen, rooted)


def test_empty_walk_gives_an_empty_snapshot() -> None:
    for profile in RECORDINGS:
        snapshot = PROFILES[profile].parse("h", {}, 1.0)
        assert (snapshot.drives, snapshot.pools, snapshot.fans) == ((), (), ())
