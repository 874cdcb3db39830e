"""JSON for snapshots: `snapshot_to_json`, `snapshot_from_json`, `dumps`, `loads` (pure).

Generic over the model's frozen dataclasses, driven by their type hints: enums by value, tuples
and frozensets as lists (frozensets sorted, so equal snapshots give equal text), dicts as lists
of [key, value] pairs, nested dataclasses as objects, `X | None` as the value or null. The round
trip is lossless: `snapshot_from_json(snapshot_to_json(s)) == s`.

    {"version": 1, "snapshot": {"host": "nano", "taken_at": 1700000000.0, "drives": [...]}}

A field missing from the data takes its default (files written by an older nastui still load);
unknown keys are ignored. Anything else that does not fit raises `ValueError` naming the source
and where in the data it went wrong. The daemon's `latest.json`, the SNMP agent and the history
database all use this format.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import types
import typing
from typing import Any

from nastui.model import HostSnapshot
from nastui.safeio import loads_json

FORMAT_VERSION = 1


class _Mismatch(ValueError):
    """The data does not fit the type at `where`."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where or 'top level'}: {message}")


def encode(value: Any) -> Any:
    """Any model value as plain JSON data (dicts, lists, str, int, float, bool, None)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, int | float):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [encode(item) for item in value]
    if isinstance(value, frozenset | set):
        items = [encode(item) for item in value]
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(value, dict):
        return [[encode(k), encode(v)] for k, v in value.items()]
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _describe(data: Any) -> str:
    text = json.dumps(data)[:40] if _jsonable(data) else repr(data)[:40]
    return f"{type(data).__name__} {text}"


def _jsonable(data: Any) -> bool:
    try:
        json.dumps(data)
    except (TypeError, ValueError):
        return False
    return True


def _scalar(tp: type, data: Any, where: str) -> Any:
    if tp is bool:
        if isinstance(data, bool):
            return data
    elif tp is int:
        if isinstance(data, int) and not isinstance(data, bool):
            return data
    elif tp is float:
        if isinstance(data, int | float) and not isinstance(data, bool):
            return float(data)
    elif tp is str:
        if isinstance(data, str):
            return data
    else:
        raise _Mismatch(where, f"cannot decode type {tp!r}")
    raise _Mismatch(where, f"expected {tp.__name__}, got {_describe(data)}")


def _dataclass(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise _Mismatch(where, f"expected an object for {cls.__name__}, got {_describe(data)}")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if field.name in data:
            kwargs[field.name] = decode(
                hints[field.name], data[field.name], f"{where}.{field.name}"
            )
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise _Mismatch(where, f"{cls.__name__} lacks {field.name!r}")
    return cls(**kwargs)


def _sequence(args: tuple[Any, ...], data: Any, where: str) -> tuple[Any, ...]:
    if not isinstance(data, list):
        raise _Mismatch(where, f"expected a list, got {_describe(data)}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(decode(args[0], item, f"{where}[{i}]") for i, item in enumerate(data))
    if len(args) != len(data):
        raise _Mismatch(where, f"expected {len(args)} items, got {len(data)}")
    pairs = enumerate(zip(args, data, strict=True))
    return tuple(decode(tp, item, f"{where}[{i}]") for i, (tp, item) in pairs)


def _union(args: tuple[Any, ...], data: Any, where: str) -> Any:
    if data is None and type(None) in args:
        return None
    members = [a for a in args if a is not type(None)]
    for member in members:
        try:
            return decode(member, data, where)
        except _Mismatch:
            if len(members) == 1:
                raise
    names = " or ".join(getattr(m, "__name__", repr(m)) for m in members)
    raise _Mismatch(where, f"expected {names}, got {_describe(data)}")


def _pairs(key_tp: Any, value_tp: Any, data: Any, where: str) -> dict[Any, Any]:
    if not isinstance(data, list):
        raise _Mismatch(where, f"expected a list of [key, value] pairs, got {_describe(data)}")
    result: dict[Any, Any] = {}
    for i, pair in enumerate(data):
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Mismatch(f"{where}[{i}]", f"expected a [key, value] pair, got {_describe(pair)}")
        result[decode(key_tp, pair[0], f"{where}[{i}]")] = decode(value_tp, pair[1], where)
    return result


def decode(tp: Any, data: Any, where: str = "") -> Any:
    """JSON data as a value of type `tp` (a model dataclass, enum, container or scalar).

    Raises:
        ValueError: the data does not fit; the message says where.
    """
    origin = typing.get_origin(tp)
    if origin is types.UnionType or origin is typing.Union:
        return _union(typing.get_args(tp), data, where)
    if origin is tuple:
        return _sequence(typing.get_args(tp), data, where)
    if origin is frozenset:
        (item_tp,) = typing.get_args(tp)
        return frozenset(_sequence((item_tp, ...), data, where))
    if origin is dict:
        key_tp, value_tp = typing.get_args(tp)
        return _pairs(key_tp, value_tp, data, where)
    if tp is type(None):
        if data is None:
            return None
        raise _Mismatch(where, f"expected null, got {_describe(data)}")
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp, data, where)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except (ValueError, TypeError):
            raise _Mismatch(where, f"{_describe(data)} is not a {tp.__name__}") from None
    return _scalar(tp, data, where)


def snapshot_to_json(snapshot: HostSnapshot) -> dict[str, Any]:
    """The snapshot as JSON data: {"version": 1, "snapshot": {...}}."""
    return {"version": FORMAT_VERSION, "snapshot": encode(snapshot)}


def snapshot_from_json(data: Any, source: str = "snapshot") -> HostSnapshot:
    """The snapshot `snapshot_to_json` gave.

    Args:
        data: the decoded JSON.
        source: what it came from (a file name), for the error message.

    Raises:
        ValueError: "SOURCE: not a nastui snapshot: WHERE: WHAT" (or an unsupported version).
    """
    if not isinstance(data, dict) or "snapshot" not in data:
        raise ValueError(f"{source}: not a nastui snapshot (no version and snapshot keys)")
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise ValueError(
            f"{source}: snapshot format version {version!r}, this nastui reads {FORMAT_VERSION}: "
            "run the same nastui version for the daemon and the reader"
        )
    try:
        snapshot: HostSnapshot = decode(HostSnapshot, data["snapshot"], "snapshot")
    except _Mismatch as exc:
        raise ValueError(f"{source}: not a nastui snapshot: {exc}") from None
    return snapshot


def dumps(snapshot: HostSnapshot, *, indent: int | None = None) -> str:
    """The snapshot as JSON text, keys in field order."""
    return json.dumps(snapshot_to_json(snapshot), indent=indent)


def loads(text: str | bytes, source: str = "snapshot") -> HostSnapshot:
    """The snapshot in JSON text.

    Raises:
        ValueError: not JSON, or not a snapshot; the message names `source`.
    """
    try:
        data = loads_json(text)
    except ValueError as exc:
        raise ValueError(f"{source}: not JSON: {exc}") from None
    return snapshot_from_json(data, source)
