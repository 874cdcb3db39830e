"""What every section validator shares: the problem list and `Section`, a table with typed getters.

A getter checks one value, reports what is wrong with it (naming the dotted key, the rule and the
value found) and returns the default instead, so validation always runs to the end and the loader
can report the problem that comes first in the file.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar, overload

from nastui.config.tomlpos import KeyPath, LineIndex
from nastui.config.validate_values import (
    describe,
    dotted,
    in_range,
    is_integer,
    is_number,
    number_text,
    one_of,
    show,
    suggest,
)

E = TypeVar("E", bound=StrEnum)
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the configuration.

    Attributes:
        path: key path of the value at fault (or of the table missing a key).
        message: the whole message, dotted key first.
        line: the line it points at, when known.
    """

    path: KeyPath
    message: str
    line: int | None


class Context:
    """The problems found so far and the line index they are placed with."""

    def __init__(self, index: LineIndex) -> None:
        self.index = index
        self.problems: list[Problem] = []

    def report(self, path: KeyPath, message: str) -> None:
        """Record a problem at `path`."""
        self.problems.append(Problem(path, message, self.index.line_of(path)))

    def line(self, path: KeyPath) -> int | None:
        """The line of `path` (or of its nearest enclosing table)."""
        return self.index.line_of(path)

    def ordered(self) -> list[Problem]:
        """Every problem, nearest the top of the file first; among equals, as reported."""
        return sorted(self.problems, key=lambda p: (p.line is None, p.line or 0))


class Section:
    """One TOML table at a key path, read through getters that report what is wrong.

    Attributes:
        ctx: where problems go.
        path: the table's key path.
        table: its contents as tomllib read them.
    """

    def __init__(self, ctx: Context, path: KeyPath, table: Mapping[str, object]) -> None:
        self.ctx = ctx
        self.path = path
        self.table = table
        self.suggested: set[str] = set()  # known keys an unknown key was taken for

    @property
    def key(self) -> str:
        """The table's dotted name."""
        return dotted(self.path)

    @property
    def where(self) -> str:
        """Its name and line, for pointing back at it: "fan[1] (line 4)"."""
        line = self.line()
        return self.key if line is None else f"{self.key} (line {line})"

    def name(self, key: str) -> str:
        """The dotted name of one of its keys."""
        return dotted((*self.path, key))

    def has(self, key: str) -> bool:
        """Whether the key is set."""
        return key in self.table

    def line(self, key: str | None = None) -> int | None:
        """The line of the table, or of one of its keys."""
        return self.ctx.line(self.path if key is None else (*self.path, key))

    def report(self, key: str | None, message: str) -> None:
        """Record a problem at one of its keys (None: at the table itself)."""
        self.ctx.report(self.path if key is None else (*self.path, key), message)

    def check_keys(self, known: Collection[str], refused: Collection[str] = ()) -> None:
        """Report every key that is not in `known`, suggesting the nearest known one. A key in
        `refused` (`keys.REFUSED_KEYS`: the caller says why) is neither reported here nor
        offered: the message names only keys that are accepted."""
        for key in self.table:
            if key in known or key in refused:
                continue
            close = suggest(key, known)
            if close:
                self.suggested.add(close)
            hint = f"did you mean {close}?" if close else f"expected one of: {', '.join(known)}"
            self.report(key, f"unknown key {self.name(key)} ({hint})")

    def misspelt(self, key: str) -> bool:
        """Whether an unknown key of this table was reported as a misspelling of `key`.

        A check that `key` is missing then stays quiet: the misspelling is the problem to fix.
        """
        return key in self.suggested

    def require(self, key: str, what: str = "") -> bool:
        """Report a missing key (unless it was misspelt); True when it is present."""
        if key in self.table:
            return True
        if not self.misspelt(key):
            self.report(key, f"{self.name(key)} is required{f' ({what})' if what else ''}")
        return False

    def wrong(self, key: str, rule: str) -> None:
        """Report that a key's value breaks `rule` ("a positive integer")."""
        self.report(key, f"{self.name(key)} must be {rule}, got {show(self.table[key])}")

    def text(self, key: str, *, required: bool = False) -> str | None:
        """A non-empty string, or None when absent or wrong."""
        if not (self.require(key) if required else key in self.table):
            return None
        value = self.table[key]
        if isinstance(value, str) and value.strip():
            return value
        self.wrong(key, "a non-empty string")
        return None

    @overload
    def integer(
        self, key: str, default: int, *, low: int | None = ..., high: int | None = ...
    ) -> int: ...
    @overload
    def integer(
        self,
        key: str,
        default: None = ...,
        *,
        low: int | None = ...,
        high: int | None = ...,
        required: bool = ...,
    ) -> int | None: ...
    def integer(
        self,
        key: str,
        default: int | None = None,
        *,
        low: int | None = None,
        high: int | None = None,
        required: bool = False,
    ) -> int | None:
        """An integer within [low, high] (low=1 reads "a positive integer")."""
        if not (self.require(key) if required else key in self.table):
            return default
        value = self.table[key]
        if isinstance(value, int) and is_integer(value) and in_range(value, low, high, False):
            return value
        self.wrong(key, describe("integer", low, high, low == 1 and high is None, ""))
        return default

    @overload
    def number(
        self,
        key: str,
        default: float,
        *,
        low: float | None = ...,
        high: float | None = ...,
        positive: bool = ...,
        unit: str = ...,
    ) -> float: ...
    @overload
    def number(
        self,
        key: str,
        default: None = ...,
        *,
        low: float | None = ...,
        high: float | None = ...,
        positive: bool = ...,
        unit: str = ...,
    ) -> float | None: ...
    def number(
        self,
        key: str,
        default: float | None = None,
        *,
        low: float | None = None,
        high: float | None = None,
        positive: bool = False,
        unit: str = "",
    ) -> float | None:
        """A finite number (integer or float) within the bounds."""
        if key not in self.table:
            return default
        value = self.table[key]
        if (
            isinstance(value, int | float)
            and is_number(value)
            and in_range(value, low, high, positive)
        ):
            return float(value)
        self.wrong(key, describe("number", low, high, positive, unit))
        return default

    def boolean(self, key: str) -> bool | None:
        """true or false, or None when absent or wrong."""
        value = self.table.get(key)
        if value is None or isinstance(value, bool):
            return value
        self.wrong(key, "true or false")
        return None

    @overload
    def choice(self, key: str, kind: type[E], default: E) -> E: ...
    @overload
    def choice(self, key: str, kind: type[E], default: None = ...) -> E | None: ...
    def choice(self, key: str, kind: type[E], default: E | None = None) -> E | None:
        """One of an enumeration's values (case-insensitive)."""
        if key not in self.table:
            return default
        value = self.table[key]
        if isinstance(value, str):
            for member in kind:
                if member.value.lower() == value.strip().lower():
                    return member
        self.wrong(key, one_of(m.value for m in kind))
        return default

    def strings(self, key: str, *, single: bool = False) -> tuple[str, ...]:
        """An array of non-empty strings (`single`: a lone string is accepted as one)."""
        value = self.table.get(key)
        if value is None:
            return ()
        if single and isinstance(value, str):
            value = [value]
        if (
            isinstance(value, list)
            and value
            and all(isinstance(v, str) and v.strip() for v in value)
        ):
            return tuple(str(v) for v in value)
        rule = "an array of non-empty strings"
        self.wrong(key, f"a non-empty string or {rule}" if single else rule)
        return ()

    def items(self, key: str) -> Iterator[tuple[KeyPath, object]]:
        """The items of an array, each with its key path (reports a value that is no array)."""
        value = self.table.get(key)
        if value is None:
            return
        if not isinstance(value, list):
            self.wrong(key, "an array")
            return
        for index, item in enumerate(value):
            yield (*self.path, key, index), item

    def pairs(
        self, key: str, *, integers: bool, what: str
    ) -> Iterator[tuple[KeyPath, float, float]]:
        """The items of an array of `[a, b]` pairs of numbers (`integers`: of integers).

        An item that is no such pair is reported as not "a [what] pair" and skipped.
        """

        def check(value: object) -> bool:
            return is_number(value) and (is_integer(value) or not integers)

        kind = "integers" if integers else "numbers"
        for path, item in self.items(key):
            if isinstance(item, list) and len(item) == 2 and all(check(v) for v in item):
                yield path, float(item[0]), float(item[1])
            else:
                rule = f"a [{what}] pair of {kind}"
                self.ctx.report(path, f"{dotted(path)} must be {rule}, got {show(item)}")

    def table_at(self, key: str) -> Section | None:
        """A sub-table, or None when absent or not a table."""
        value = self.table.get(key)
        if value is None:
            return None
        if isinstance(value, dict):
            return Section(self.ctx, (*self.path, key), value)
        self.wrong(key, "a table")
        return None

    def tables(self, key: str) -> list[Section]:
        """The tables of an array of tables (`[[key]]`)."""
        if isinstance(self.table.get(key), dict):
            self.wrong(key, f"an array of tables ([[{self.name(key)}]])")
            return []
        sections: list[Section] = []
        for path, item in self.items(key):
            if isinstance(item, dict):
                sections.append(Section(self.ctx, path, item))
            else:
                self.ctx.report(path, f"{dotted(path)} must be a table, got {show(item)}")
        return sections


def check_order(
    low: tuple[Section, str, float],
    high: tuple[Section, str, float],
    *,
    strict: bool,
) -> None:
    """Report when the value of one key is not below (or, not `strict`, not above) another's.

    Each side is (section, key, value); a side whose key is not set is named as a default.
    The problem is reported at the side the user set (the lower one when both are).
    """
    (low_sec, low_key, low_value), (high_sec, high_key, high_value) = low, high
    if low_value < high_value or (not strict and low_value == high_value):
        return
    relation = "below" if strict else "at most"
    low_text = _side_text(low_sec, low_key, low_value)
    high_text = _side_text(high_sec, high_key, high_value)
    if low_sec.has(low_key):
        low_sec.report(low_key, f"{low_text} must be {relation} {high_text}")
    else:
        opposite = "above" if strict else "at least"
        high_sec.report(high_key, f"{high_text} must be {opposite} {low_text}")


def _side_text(section: Section, key: str, value: float) -> str:
    default = "" if section.has(key) else ", the default"
    return f"{section.name(key)} ({number_text(value)}{default})"


def repeat_of(seen: dict[K, Section], key: K, section: Section) -> Section | None:
    """Remember that `section` has `key`; the table that had it first, when that is another."""
    first = seen.setdefault(key, section)
    return None if first is section else first


def check_unique(sections: list[Section], key: str, what: str) -> None:
    """Report a string value of `key` that two tables share ("the name of fan[1]")."""
    seen: dict[str, Section] = {}
    for section in sections:
        value = section.table.get(key)
        if isinstance(value, str) and (first := repeat_of(seen, value, section)):
            message = f"{section.name(key)} {show(value)} is already the {what} of {first.where}"
            section.report(key, message)
