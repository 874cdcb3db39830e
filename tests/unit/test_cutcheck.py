"""The cut checker the screen tests rely on finds what it must and nothing more."""

from __future__ import annotations

from tests.ui.cutcheck import find_cuts

SERIAL = "PK2331PB95FOVP"
LBA = "2947981906"


def test_whole_values_pass() -> None:
    lines = [f"bay 0: sdr 37C OK {SERIAL}", f"read failure at LBA {LBA}"]
    assert find_cuts(lines, [SERIAL], [LBA]) == []


def test_marked_string_cuts_pass() -> None:
    lines = ["[ ~PB95FOVP]  ", "...HUS724040ALA640_PK2331PB95FOVP OK", "PK2331P~  "]
    assert find_cuts(lines, [SERIAL, "ata-HGST_HUS724040ALA640_PK2331PB95FOVP"], []) == []


def test_unmarked_cuts_are_found() -> None:
    # the examples: a serial cut to 9 characters at the end of a line, and to 8 in a cell
    assert find_cuts(["3.6 TiB PK2331PB9"], [SERIAL], [])
    assert find_cuts([" + 3 PK2331PB  + 4"], [SERIAL], [])
    assert find_cuts(["|  PB95FOVP |"], [SERIAL], [])  # its head lost, no mark


def test_a_number_is_never_cut() -> None:
    assert find_cuts([f"at LBA {LBA[:-1]}"], [], [LBA])  # "294798190" for "2947981906"
    assert find_cuts([f"at LBA {LBA[:-2]}~"], [], [LBA])  # marked is no better for a number
    assert find_cuts([f"at LBA ~{LBA[3:]}"], [], [LBA])


def test_another_value_with_the_same_head_is_not_a_cut() -> None:
    assert find_cuts(["PK2331PXXXXXXX  "], [SERIAL], []) == []
    assert find_cuts(["29479819060 sectors"], [], [LBA]) == []
    assert find_cuts(["rear-2  1906 rpm"], [], ["21906"]) == []
