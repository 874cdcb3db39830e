"""SNMP profiles: which subtrees to walk on a remote host and how to read them into a snapshot.

`PROFILES` maps each configured `SnmpProfile` to its `Profile`; `profile_for` looks one up.
"""

from __future__ import annotations

from collections.abc import Mapping

from nastui.collectors.snmp_profiles import apc, nastui, netsnmp, qnap, synology, truenas, ups
from nastui.collectors.snmp_profiles.base import Profile
from nastui.config.remote import SnmpProfile

PROFILES: Mapping[SnmpProfile, Profile] = {
    SnmpProfile.NET_SNMP: netsnmp.PROFILE,
    SnmpProfile.SYNOLOGY: synology.PROFILE,
    SnmpProfile.QNAP: qnap.PROFILE,
    SnmpProfile.TRUENAS: truenas.PROFILE,
    SnmpProfile.UPS: ups.PROFILE,
    SnmpProfile.APC: apc.PROFILE,
    SnmpProfile.NASTUI: nastui.PROFILE,
}


def profile_for(profile: SnmpProfile) -> Profile:
    """The profile configured as `profile`.

    Raises:
        KeyError: naming the profile, when this build has no reader for it yet.
    """
    try:
        return PROFILES[profile]
    except KeyError:
        raise KeyError(f"SNMP profile {profile.value!r} is not available in this build") from None
