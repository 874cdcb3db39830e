"""The top level of a packed nvlist, as libnvpair packs it (pure): each pair's name, and (XDR) a
string pair's value. Nothing else is interpreted.

Both of libnvpair's encodings (include/sys/nvpair.h, module/nvpair/nvpair.c):
- native (NV_ENCODE_NATIVE, what `spa_config.c` writes to zpool.cache through `fnvlist_pack`):
  each pair is its size (int32), the name's size with its NUL (int16, then 2 reserved bytes),
  the element count and the type (int32 each), the name, then the value; an embedded list's
  pairs follow the pair that holds it, and each list ends with 4 zero bytes;
- XDR (NV_ENCODE_XDR, what `vdev_label.c` writes into every ZFS label): big-endian; each pair is
  its encoded and decoded sizes, the name as an XDR string (length, bytes padded to 4), the type
  and element count, then the value (a string: length, bytes); the encoded size covers embedded
  lists, and the list ends with two zero words.
Both start with a 4-byte header (encoding, endianness) and the list's version and flags.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from nastui.model.errors import ParseError

NVLIST, NVLIST_ARRAY, STRING = 19, 20, 9  # data_type_t in include/sys/nvpair.h
NATIVE, XDR = 0, 1  # NV_ENCODE_NATIVE, NV_ENCODE_XDR
_MAX_DEPTH = 64
_PAIRS_AT = 12  # after the header, nvl_version and nvl_nvflag


@dataclass(frozen=True, slots=True)
class Pair:
    """One top-level pair: its name, type (data_type_t) and, read from an XDR-encoded list only,
    its value's bytes (to the pair's end)."""

    name: str
    kind: int
    value: bytes = b""


class _Reader:
    """A cursor over a packed nvlist's bytes; `what` names them in errors."""

    def __init__(self, data: bytes, order: str, what: str) -> None:
        self.data, self.order, self.what = data, order, what

    def int32(self, at: int) -> int:
        if at < 0 or at + 4 > len(self.data):
            raise ParseError(self.what, f"cut short at byte {at}")
        value: int = struct.unpack_from(self.order + "i", self.data, at)[0]
        return value

    def int16(self, at: int) -> int:
        if at + 2 > len(self.data):
            raise ParseError(self.what, f"cut short at byte {at}")
        value: int = struct.unpack_from(self.order + "h", self.data, at)[0]
        return value

    def text(self, at: int, size: int) -> str:
        raw = self.data[at : at + size] if at >= 0 and size >= 0 else b""
        if len(raw) != size:
            raise ParseError(self.what, f"name cut short at byte {at}")
        return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def _native(reader: _Reader, at: int, depth: int) -> tuple[list[Pair], int]:
    """The pairs of one native-encoded list starting at `at`, and where it ends."""
    if depth > _MAX_DEPTH:
        raise ParseError(reader.what, "nested too deep")
    pairs: list[Pair] = []
    while True:
        size = reader.int32(at)
        if size == 0:
            return pairs, at + 4
        if size < 16:
            raise ParseError(reader.what, f"pair of {size} bytes at byte {at}")
        elements, kind, name_size = (
            reader.int32(at + 8),
            reader.int32(at + 12),
            reader.int16(at + 4),
        )
        pairs.append(Pair(reader.text(at + 16, name_size), kind))
        at += size
        for _ in range(1 if kind == NVLIST else elements if kind == NVLIST_ARRAY else 0):
            at = _native(reader, at, depth + 1)[1]


def _xdr(reader: _Reader, at: int) -> list[Pair]:
    """The pairs of an XDR-encoded list (each pair's size covers its embedded lists)."""
    pairs: list[Pair] = []
    while True:
        size, decoded = reader.int32(at), reader.int32(at + 4)
        if decoded == 0:
            return pairs
        length = reader.int32(at + 8)
        if size < 12 or length < 0:
            raise ParseError(reader.what, f"pair of {size} bytes at byte {at}")
        kind_at = at + 12 + ((length + 3) & ~3)
        kind = reader.int32(kind_at) if kind_at + 8 <= at + size else -1
        value = reader.data[kind_at + 8 : at + size]
        pairs.append(Pair(reader.text(at + 12, length), kind, value))
        at += size


def packed_pairs(data: bytes, what: str) -> tuple[Pair, ...]:
    """The top-level pairs of a packed nvlist (`what` names it in errors).

    Raises:
        ParseError: not a packed nvlist, or one cut short.
    """
    if len(data) < _PAIRS_AT:
        raise ParseError(what, f"{len(data)} bytes, too short for a packed nvlist")
    encoding, endian = data[0], data[1]
    if encoding not in (NATIVE, XDR) or endian not in (0, 1):
        raise ParseError(what, "not a packed nvlist (unknown encoding)")
    if encoding == XDR:
        return tuple(_xdr(_Reader(data, ">", what), _PAIRS_AT))
    pairs, _ = _native(_Reader(data, "<" if endian == 1 else ">", what), _PAIRS_AT, 0)
    return tuple(pairs)


def packed_string(data: bytes, name: str, what: str) -> str | None:
    """The value of the top-level string pair `name` of an XDR-encoded list, the encoding every
    ZFS label's list has (`vdev_label.c`); None when there is no such pair.

    Raises:
        ParseError: not an XDR-encoded nvlist, one cut short, or that pair's value cut short.
    """
    if data[:1] != bytes([XDR]):
        raise ParseError(what, "not an XDR-encoded nvlist")
    for pair in packed_pairs(data, what):
        if pair.name == name and pair.kind == STRING:
            reader = _Reader(pair.value, ">", what)
            return reader.text(4, reader.int32(0))
    return None
