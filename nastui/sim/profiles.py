"""Real drive profiles (`data/drives.json`) and the identities the simulator gives its drives.

Each profile was extracted once from a real smartctl report in the shared corpus and carries the
provenance of every source it used (repository, path, commit, licence). Only non-copyleft sources
are used. The simulator adds what a report cannot give it: a serial number and WWN per drive in
the vendor's real format, and the /dev/disk/by-id names udev would make from them.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Collection, Mapping
from dataclasses import fields
from functools import cache
from typing import Any, NamedTuple

from nastui.model import DriveClass, DriveIdentity, SmartAttribute, Transport
from nastui.safeio import package_text


class Provenance(NamedTuple):
    """Where a profile's data came from.

    Attributes:
        repo: source repository ("prometheus-community/smartctl_exporter").
        path: file path in that repository.
        commit: the commit the corpus copy was taken from.
        licence: the source's licence (SPDX id).
        corpus_file: the copy under /work/shared/corpus.
        supplies: which fields this source supplied.
    """

    repo: str
    path: str
    commit: str
    licence: str
    corpus_file: str
    supplies: str


class NvmeBaseline(NamedTuple):
    """The NVMe SMART / Health Information log as the source drive reported it."""

    critical_warning: int
    percentage_used: int
    available_spare: int
    available_spare_threshold: int
    media_errors: int
    unsafe_shutdowns: int
    power_on_hours: int
    data_units_read: int
    data_units_written: int
    num_err_log_entries: int
    power_cycles: int


class DriveProfile(NamedTuple):
    """One real drive model as a smartctl report describes it.

    Attributes:
        key: the profile's name in drives.json ("hgst-hus724040ala640").
        model: model string as the drive reports it.
        family: smartctl's model family, when in its database.
        firmware: firmware revision; None where every usable source redacted it.
        capacity_bytes: user capacity.
        rpm: rotation rate; None for flash.
        rotational: spinning disk or not.
        transport: SATA or NVMe.
        form_factor: "3.5 inches", when reported.
        power_on_hours: the source drive's power-on hours (scales lifetime counters).
        temperature: the source drive's temperature when the report was taken.
        wwn_oui: IEEE OUI in the drive's WWN (6 hex digits), for ATA drives.
        eui_oui: IEEE OUI in the namespace EUI-64, for NVMe drives.
        serial_format: which serial generator fits this vendor.
        attributes: the ATA attribute table, verbatim.
        nvme: the NVMe health log, verbatim.
        provenance: every source used.
    """

    key: str
    model: str
    family: str | None
    firmware: str | None
    capacity_bytes: int
    rpm: int | None
    rotational: bool
    transport: Transport
    form_factor: str | None
    power_on_hours: int
    temperature: int
    wwn_oui: str | None
    eui_oui: str | None
    serial_format: str
    attributes: tuple[SmartAttribute, ...]
    nvme: NvmeBaseline | None
    provenance: tuple[Provenance, ...]

    @property
    def drive_class(self) -> DriveClass:
        """HDD, SSD or NVMe."""
        return DriveIdentity(transport=self.transport, rotational=self.rotational).drive_class

    @property
    def by_id_model(self) -> str:
        """The model as udev writes it in by-id names (runs of spaces become one underscore)."""
        return "_".join(self.model.split())


def _fields(names: Collection[str], row: Mapping[str, Any], **given: Any) -> dict[str, Any]:
    """The values in `row` under `names` (a record's fields), overridden by `given`."""
    return {**{k: v for k, v in row.items() if k in names}, **given}


def _profile(key: str, row: Mapping[str, Any]) -> DriveProfile:
    nvme = row.get("nvme_health")
    attribute = {f.name for f in fields(SmartAttribute)}
    return DriveProfile(
        **_fields(
            DriveProfile._fields,
            row,
            key=key,
            transport=Transport(row["transport"]),
            attributes=tuple(SmartAttribute(**_fields(attribute, a)) for a in row["attributes"]),
            nvme=NvmeBaseline(**nvme) if nvme else None,
            provenance=tuple(Provenance(**p) for p in row["provenance"]),
        )
    )


def data_text() -> str:
    """The text of drives.json, as shipped inside the package (`safeio.package_text`).

    Raises:
        FileNotFoundError: the package was loaded by something that cannot read its data.
    """
    return package_text("nastui.sim", "data/drives.json")


@cache
def load_profiles() -> Mapping[str, DriveProfile]:
    """Every drive profile in drives.json, by key."""
    raw = json.loads(data_text())
    return {key: _profile(key, row) for key, row in raw["profiles"].items()}


def profile(key: str) -> DriveProfile:
    """The drive profile called `key`."""
    return load_profiles()[key]


def profile_of_model(model: str | None) -> DriveProfile | None:
    """The drive profile of the model a drive reports, if there is one."""
    return next((p for p in load_profiles().values() if p.model == model), None)


_ALNUM = string.ascii_uppercase + string.digits


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _hgst_pk(rng: random.Random) -> str:
    # Ultrastar 7K4000 / Deskstar NAS style, 14 characters: "PK2334PBHDJ2SR".
    return "PK" + rng.choice(("1331", "1334", "2331", "2334")) + "P" + _pick(rng, _ALNUM, 7)


def _hgst_ultrastar(rng: random.Random) -> str:
    # Later Ultrastar (7K6000, HC5xx) style, 8 characters: "K7GX9TYL".
    return (
        rng.choice(string.ascii_uppercase) + rng.choice(string.digits) + "G" + _pick(rng, _ALNUM, 5)
    )


def _wd(rng: random.Random) -> str:
    return "WD-WCC4E" + _pick(rng, string.digits, 7)


def _micron(rng: random.Random) -> str:
    # Crucial/Micron: year and week of manufacture, then 8 hex digits: "1913E1F1C0A5".
    week = f"{rng.randint(18, 21):02d}{rng.randint(1, 52):02d}"
    return week + _pick(rng, "0123456789ABCDEF", 8)


def _samsung(rng: random.Random) -> str:
    return "S4EUNX0" + rng.choice("MNR") + _pick(rng, string.digits, 6) + rng.choice("ABHLMWXZ")


_SERIALS: dict[str, Callable[[random.Random], str]] = {
    "hgst-pk": _hgst_pk,
    "hgst-ultrastar": _hgst_ultrastar,
    "wd": _wd,
    "micron": _micron,
    "samsung": _samsung,
}


def make_serial(prof: DriveProfile, rng: random.Random) -> str:
    """A serial number in the vendor's real format."""
    return _SERIALS[prof.serial_format](rng)


def make_wwn(prof: DriveProfile, serial: str, rng: random.Random) -> str | None:
    """The WWN as smartctl prints it ("5 000cca 2xxxxxxxx"), or None for NVMe drives."""
    if prof.wwn_oui is None:
        return None
    if prof.serial_format == "micron":
        # Crucial derives the WWN's vendor part from the serial number's hex tail.
        return f"5 {prof.wwn_oui} 1{serial[-8:].lower()}"
    return f"5 {prof.wwn_oui} 2{_pick(rng, '0123456789abcdef', 8)}"


def by_id_names(
    prof: DriveProfile, serial: str, wwn: str | None, rng: random.Random
) -> tuple[str, ...]:
    """The /dev/disk/by-id names udev makes for the drive, the ata-/nvme- name first."""
    if prof.transport is Transport.NVME:
        base = f"nvme-{prof.by_id_model}_{serial}"
        eui = f"nvme-eui.{prof.eui_oui}5{_pick(rng, '0123456789abcdef', 9)}"
        return (base, f"{base}_1", eui)
    names = [f"ata-{prof.by_id_model}_{serial}"]
    if wwn:
        names.append("wwn-0x" + wwn.replace(" ", ""))
    return tuple(names)
