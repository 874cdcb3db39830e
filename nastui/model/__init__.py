"""The domain model: frozen dataclasses every layer exchanges. Standard library only.

Unknown is `None`, never 0.

Every public name is importable from here (`from nastui.model import Drive`), but a submodule is
imported only when one of its names is first asked for (PEP 562): `nastui status` never builds
the benchmark's classes. The objects are the submodules' own, so identity and pickling are
unchanged.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nastui.model.actions import LocateResult, ScrubResult
    from nastui.model.alert import Alert, Notice, NoticeKind, Subject
    from nastui.model.bench import (
        BenchRun,
        BenchSample,
        BenchSettings,
        BenchTarget,
        Phase,
        RunState,
        StepResult,
        TargetKind,
        UnseenProcess,
    )
    from nastui.model.chassis import (
        Bay,
        BayBinding,
        BaySlot,
        Chassis,
        ChassisLayout,
        EnclosureSlot,
        Face,
        FaceLayout,
        LedState,
        MappedBy,
        Order,
        Origin,
        Side,
    )
    from nastui.model.drive import (
        AtaError,
        Drive,
        DriveClass,
        DriveIdentity,
        IoRate,
        NvmeHealth,
        PowerState,
        ScsiHealth,
        SelfTest,
        SmartAttribute,
        Temperature,
        TempSource,
        Transport,
    )
    from nastui.model.errors import ParseError
    from nastui.model.fan import Fan, Sensor
    from nastui.model.fanzone import CurveKind, CurvePoint, FanCurve, FanSource, FanZone, ZoneMode
    from nastui.model.fleet import FleetHost
    from nastui.model.health import UNASSESSED, Acknowledgement, Health, Reason, Verdict, worst
    from nastui.model.limits import AttributeLimit, TempLimits, TempOverride, Thresholds
    from nastui.model.policy import (
        CapacityLimits,
        CollectorMode,
        CollectorsConfig,
        CollectorState,
        IgnoreRule,
        PoolPolicy,
    )
    from nastui.model.pool import (
        Pool,
        PoolKind,
        PoolState,
        ScanKind,
        ScanProgress,
        ScanState,
        ScrubAction,
        Vdev,
    )
    from nastui.model.snapshot import CollectorError, HostSnapshot
    from nastui.model.ups import Ups, UpsStatus

# submodule -> the public names it defines, space-separated (tests/unit/test_model_lazy.py
# keeps these and `__all__` the same names)
_HOMES: dict[str, str] = {
    "actions": "LocateResult ScrubResult",
    "alert": "Alert Notice NoticeKind Subject",
    "bench": "BenchRun BenchSample BenchSettings BenchTarget Phase RunState StepResult TargetKind"
    " UnseenProcess",
    "chassis": "Bay BayBinding BaySlot Chassis ChassisLayout EnclosureSlot Face FaceLayout"
    " LedState MappedBy Order Origin Side",
    "drive": "AtaError Drive DriveClass DriveIdentity IoRate NvmeHealth PowerState ScsiHealth"
    " SelfTest SmartAttribute Temperature TempSource Transport",
    "errors": "ParseError",
    "fan": "Fan Sensor",
    "fanzone": "CurveKind CurvePoint FanCurve FanSource FanZone ZoneMode",
    "fleet": "FleetHost",
    "health": "UNASSESSED Acknowledgement Health Reason Verdict worst",
    "limits": "AttributeLimit TempLimits TempOverride Thresholds",
    "policy": "CapacityLimits CollectorMode CollectorsConfig CollectorState IgnoreRule PoolPolicy",
    "pool": "Pool PoolKind PoolState ScanKind ScanProgress ScanState ScrubAction Vdev",
    "snapshot": "CollectorError HostSnapshot",
    "ups": "Ups UpsStatus",
}
_HOME = {name: module for module, names in _HOMES.items() for name in names.split()}


if not TYPE_CHECKING:  # hidden from mypy, which then still rejects a name not defined here

    def __getattr__(name: str) -> object:
        """Import the submodule that defines `name` on first access; keep the name here."""
        module = _HOME.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "UNASSESSED",
    "Acknowledgement",
    "Alert",
    "AtaError",
    "AttributeLimit",
    "Bay",
    "BayBinding",
    "BaySlot",
    "BenchRun",
    "BenchSample",
    "BenchSettings",
    "BenchTarget",
    "CapacityLimits",
    "Chassis",
    "ChassisLayout",
    "CollectorError",
    "CollectorMode",
    "CollectorState",
    "CollectorsConfig",
    "CurveKind",
    "CurvePoint",
    "Drive",
    "DriveClass",
    "DriveIdentity",
    "EnclosureSlot",
    "Face",
    "FaceLayout",
    "Fan",
    "FanCurve",
    "FanSource",
    "FanZone",
    "FleetHost",
    "Health",
    "HostSnapshot",
    "IgnoreRule",
    "IoRate",
    "LedState",
    "LocateResult",
    "MappedBy",
    "Notice",
    "NoticeKind",
    "NvmeHealth",
    "Order",
    "Origin",
    "ParseError",
    "Phase",
    "Pool",
    "PoolKind",
    "PoolPolicy",
    "PoolState",
    "PowerState",
    "Reason",
    "RunState",
    "ScanKind",
    "ScanProgress",
    "ScanState",
    "ScrubAction",
    "ScrubResult",
    "ScsiHealth",
    "SelfTest",
    "Sensor",
    "Side",
    "SmartAttribute",
    "StepResult",
    "Subject",
    "TargetKind",
    "TempLimits",
    "TempOverride",
    "TempSource",
    "Temperature",
    "Thresholds",
    "Transport",
    "UnseenProcess",
    "Ups",
    "UpsStatus",
    "Vdev",
    "Verdict",
    "ZoneMode",
    "worst",
]
