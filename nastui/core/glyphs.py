"""Glyph sets: Unicode where the terminal can show it, plain ASCII on consoles that cannot.

A Linux VT or an IPMI serial console (TERM=linux, vt100, vt220) has no braille, no eighth-block
bars and often no rounded or heavy box corners; a non-UTF-8 locale has none of them at all.
`choose_ascii` decides from the environment; `--ascii` forces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

ASCII_TERMS = frozenset({"linux", "vt100", "vt102", "vt220", "vt52", "dumb", "ansi", "cons25"})


@dataclass(frozen=True, slots=True)
class Glyphs:
    """The characters front ends draw with."""

    vbar: str
    hbar: str
    cross: str
    degree: str
    bar_full: str
    bar_empty: str
    arrow_up: str
    arrow_down: str
    ellipsis: str
    tree_branch: str
    tree_last: str
    tree_pipe: str
    ascii: bool


UNICODE = Glyphs("│", "─", "┼", "°", "█", "░", "↑", "↓", "…", "├─", "└─", "│ ", False)
ASCII = Glyphs("|", "-", "+", "", "#", ".", "^", "v", "...", "|-", "`-", "| ", True)


def _is_utf8(value: str) -> bool:
    lowered = value.lower()
    return "utf-8" in lowered or "utf8" in lowered


def _utf8_locale(env: Mapping[str, str]) -> bool:
    if env.get("LC_ALL"):
        return _is_utf8(env["LC_ALL"])
    ctype, lang = env.get("LC_CTYPE", ""), env.get("LANG", "")
    # PEP 538: Python coerces a C/POSIX locale to LC_CTYPE=C.UTF-8 in its own environment;
    # the terminal behind it was still set up for the C locale, so do not trust that.
    coerced = ctype == "C.UTF-8" and lang in ("", "C", "POSIX")
    if ctype and not coerced:
        return _is_utf8(ctype)
    return _is_utf8(lang)


def choose_ascii(env: Mapping[str, str], *, forced: bool | None = None) -> bool:
    """True when output must be plain ASCII.

    Args:
        env: the environment (TERM, LC_ALL, LC_CTYPE, LANG).
        forced: `--ascii` (True) or a config choice; None decides from `env`.
    """
    if forced is not None:
        return forced
    term = env.get("TERM", "").lower()
    if term in ASCII_TERMS or term.startswith(("vt1", "vt2")):
        return True
    return not _utf8_locale(env)


# What to print instead of a non-ASCII character on an ASCII-only console.
ASCII_FALLBACK = {
    "°": "",
    "…": "...",
    "—": "-",
    "–": "-",
    "→": "->",
    "←": "<-",
    "±": "+-",
    "×": "x",
    "µ": "u",
    "│": "|",
    "─": "-",
    "┼": "+",
    "├": "|",
    "└": "`",
    "█": "#",
    "░": ".",
    "↑": "^",
    "↓": "v",
}


def ascii_char(char: str) -> str:
    """`char` itself when ASCII, else its fallback ("?" when there is none)."""
    return char if char.isascii() else ASCII_FALLBACK.get(char, "?")


def to_ascii(text: str) -> str:
    """`text` with every non-ASCII character replaced by its fallback."""
    return text if text.isascii() else "".join(ascii_char(c) for c in text)


def glyphs_for(ascii_only: bool) -> Glyphs:
    """The glyph set to draw with."""
    return ASCII if ascii_only else UNICODE
