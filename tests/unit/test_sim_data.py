"""The drive data: real profiles from non-copyleft sources, identities in vendor formats."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from nastui.model import Transport
from nastui.sim import SCENARIOS, SimBackend
from nastui.sim.profiles import data_text, load_profiles

PERMISSIVE = {"Apache-2.0", "MIT", "CC-BY-4.0", "BSD-2-Clause", "BSD-3-Clause"}
COPYLEFT_SOURCES = ("py-smart", "rockstor", "netdata", "proxmox", "truenas/middleware", "ledmon")


def raw_profiles() -> dict[str, dict[str, Any]]:
    profiles: dict[str, dict[str, Any]] = json.loads(data_text())["profiles"]
    return profiles


def test_every_source_is_permissively_licensed() -> None:
    for key, prof in raw_profiles().items():
        assert prof["provenance"], key
        for source in prof["provenance"]:
            assert source["licence"] in PERMISSIVE, (key, source)
            assert "copyleft" not in json.dumps(source).lower()
            repo = source["repo"].lower()
            assert not any(bad in repo for bad in COPYLEFT_SOURCES), (key, repo)
            assert source["path"] and re.fullmatch(r"[0-9a-f]{7,40}", source["commit"])
            assert source["corpus_file"].startswith("smartctl/")


def test_profiles_carry_the_drive_facts() -> None:
    for prof in load_profiles().values():
        assert prof.model and prof.capacity_bytes > 0 and prof.power_on_hours > 0
        if prof.transport is Transport.NVME:
            assert prof.nvme is not None and not prof.attributes and prof.eui_oui
        else:
            ids = {a.id for a in prof.attributes}
            assert {9, 194} <= ids and prof.wwn_oui and prof.firmware
            assert prof.rotational is (prof.rpm is not None)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_simulated_drive_is_a_profiled_model(name: str) -> None:
    models = {p.model: p for p in load_profiles().values()}
    for drive in SimBackend(name).snapshot().drives:
        prof = models[drive.identity.model or ""]
        assert drive.identity.firmware == prof.firmware
        assert drive.identity.capacity_bytes == prof.capacity_bytes
        assert {a.id for a in drive.attributes} == {a.id for a in prof.attributes}


SERIAL_FORMATS = {
    "HGST HUS724040ALA640": r"PK\d{4}P[A-Z0-9]{7}",
    "HGST HUS726040ALE614": r"[A-Z]\dG[A-Z0-9]{5}",
    "WUH721818ALE6L4": r"[A-Z]\dG[A-Z0-9]{5}",
    "WDC WD40EFRX-68WT0N0": r"WD-WCC4E\d{7}",
    "CT500MX500SSD1": r"\d{4}[0-9A-F]{8}",
    "Samsung SSD 970 EVO Plus 250GB": r"S4EUNX0[A-Z]\d{6}[A-Z]",
}


@pytest.mark.parametrize("name", ["resilvering", "mixed", "datacenter-102"])
def test_serials_wwns_and_by_id_names_look_real(name: str) -> None:
    snap = SimBackend(name).snapshot()
    for drive in snap.drives:
        ident = drive.identity
        assert ident.serial and ident.model
        assert re.fullmatch(SERIAL_FORMATS[ident.model], ident.serial), ident.serial
        if ident.transport is Transport.NVME:
            assert drive.by_id[0] == f"nvme-Samsung_SSD_970_EVO_Plus_250GB_{ident.serial}"
            assert drive.by_path and drive.by_path.endswith("-nvme-1")
            continue
        assert ident.wwn and re.fullmatch(r"5 [0-9a-f]{6} [0-9a-f]{9}", ident.wwn)
        assert drive.by_id == (
            f"ata-{'_'.join(ident.model.split())}_{ident.serial}",
            "wwn-0x" + ident.wwn.replace(" ", ""),
        )


def test_hgst_by_path_spans_three_hbas_of_eight_phys() -> None:
    snap = SimBackend().snapshot()
    paths = {d.by_path for d in snap.drives}
    assert len(paths) == 24
    for path in paths:
        assert path and re.fullmatch(r"pci-0000:0[123]:00\.0-sas-phy[0-7]-lun-0", path)
    assert all((d.identity.wwn or "").startswith("5 000cca 2") for d in snap.drives)
