"""A checker for text cut on screen: given the lines a screen shows and the values the snapshot
holds (serials, device and vdev names, LBAs, hours, RPMs...), find every value shown cut without
a mark, and every number shown cut at all.

A value is "shown cut" where a word on a line (between spaces or borders, brackets and marks
taken off) is a long enough head of it (its tail lost) or a long enough tail of it (its head
lost). A string cut that way must carry `~` or `...`
right where the cut is; a number must never be cut (a layout drops the column instead). A bare
tail of a number is not taken as a sighting (too many numbers end alike), a marked one is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nastui.model import HostSnapshot

MARKS = ("...", "~")
MIN_SEEN = 4  # fewer characters of a value than this are not taken as a sighting of it
LEAD = "[(<>|`+-=!#*"  # brackets, tree branches and bay marks before a value
TRAIL = ")]>|,;:'\""  # brackets and punctuation after one


@dataclass(frozen=True, slots=True)
class Cut:
    """One cut found: the value, the line, and why it is wrong."""

    value: str
    line: str
    why: str

    def __str__(self) -> str:
        return f"{self.why}: {self.value!r} in {self.line.rstrip()!r}"


def _words(line: str) -> list[tuple[str, bool, bool]]:
    """The line's words as (word, marked before, marked after), brackets and marks taken off."""
    words = []
    for raw in line.replace("|", " ").split():
        word = raw.lstrip(LEAD).rstrip(TRAIL)
        before = after = False
        for mark in MARKS:
            if word.startswith(mark):
                word, before = word[len(mark) :], True
                break
        for mark in MARKS:
            if word.endswith(mark):
                word, after = word[: -len(mark)], True
                break
        if not after and word.endswith(".") and not word.endswith(".."):
            word = word[:-1]  # the end of a sentence
        words.append((word, before, after))
    return words


def find_cuts(lines: Iterable[str], strings: Iterable[str], numbers: Iterable[str]) -> list[Cut]:
    """Every unmarked cut of a string and every cut of a number in `lines`: a word that is a
    long enough head or tail of a value, but not all of it (values are single words)."""
    values = [(s, False) for s in set(strings) if len(s) > MIN_SEEN and " " not in s]
    values += [(n, True) for n in set(numbers) if len(n) > MIN_SEEN]
    found: list[Cut] = []
    for line in lines:
        for word, before, after in _words(line):
            if len(word) < MIN_SEEN:
                continue
            for value, number in values:
                if len(word) >= len(value) or len(word) < max(MIN_SEEN, len(value) // 2):
                    continue
                head, tail = value.startswith(word), value.endswith(word)
                if number and not head:
                    # A number's tail alone is too often another number ("2025 rpm" and
                    # 62025 hours): only a marked one ("~025") counts as a cut.
                    tail = tail and before
                if not (head or tail):
                    continue
                marked = (head and after) or (tail and before)
                if number:
                    found.append(Cut(value, line, "number cut" + (" (marked)" if marked else "")))
                elif not marked:
                    found.append(Cut(value, line, "unmarked cut"))
    return found


def known_values(snapshot: HostSnapshot) -> tuple[set[str], set[str]]:
    """The strings (serials, devices, models, pool and vdev names) and the numbers (LBAs,
    power-on hours, raw counters, RPMs) a screen of `snapshot` may show."""
    strings: set[str] = set()
    numbers: set[str] = set()
    for drive in snapshot.drives:
        ident = drive.identity
        strings.update(v for v in (ident.serial, drive.dev) if v)
        if drive.power_on_hours is not None:
            numbers.add(str(drive.power_on_hours))
        for test in drive.self_tests:
            if test.first_error_lba is not None:
                numbers.add(str(test.first_error_lba))
        for attr in drive.attributes:
            if attr.raw is not None and attr.raw >= 10_000:
                numbers.add(str(attr.raw))
    for fan in snapshot.fans:
        if fan.rpm is not None:
            numbers.add(str(fan.rpm))
    for pool in snapshot.pools:
        strings.add(pool.name)
        stack = [pool.root]
        while stack:
            vdev = stack.pop()
            if vdev.drive:  # a member's name (by-id); "raidz3-0" reads like the word "raidz3"
                strings.add(vdev.name)
            stack.extend(vdev.children)
    return strings, numbers
