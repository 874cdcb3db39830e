"""The domain model: frozen dataclasses every layer exchanges. Standard library only.

Unknown is `None`, never 0.
"""

from __future__ import annotations

from nastui.model.actions import LocateResult
from nastui.model.alert import Alert, Subject
from nastui.model.chassis import (
    Bay,
    BayBinding,
    BaySlot,
    Chassis,
    ChassisLayout,
    Face,
    FaceLayout,
    LedState,
    MappedBy,
    Order,
    Origin,
    Side,
)
from nastui.model.drive import (
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
from nastui.model.fan import (
    CurveKind,
    CurvePoint,
    Fan,
    FanCurve,
    FanSource,
    FanZone,
    Sensor,
    ZoneMode,
)
from nastui.model.health import UNASSESSED, Health, Reason, Verdict, worst
from nastui.model.limits import AttributeLimit, TempLimits, Thresholds
from nastui.model.pool import Pool, PoolKind, PoolState, ScanKind, ScanProgress, ScanState, Vdev
from nastui.model.snapshot import CollectorError, HostSnapshot

__all__ = [
    "UNASSESSED",
    "Alert",
    "AttributeLimit",
    "Bay",
    "BayBinding",
    "BaySlot",
    "Chassis",
    "ChassisLayout",
    "CollectorError",
    "CurveKind",
    "CurvePoint",
    "Drive",
    "DriveClass",
    "DriveIdentity",
    "Face",
    "FaceLayout",
    "Fan",
    "FanCurve",
    "FanSource",
    "FanZone",
    "Health",
    "HostSnapshot",
    "IoRate",
    "LedState",
    "LocateResult",
    "MappedBy",
    "NvmeHealth",
    "Order",
    "Origin",
    "Pool",
    "PoolKind",
    "PoolState",
    "PowerState",
    "Reason",
    "ScanKind",
    "ScanProgress",
    "ScanState",
    "ScsiHealth",
    "SelfTest",
    "Sensor",
    "Side",
    "SmartAttribute",
    "Subject",
    "TempLimits",
    "TempSource",
    "Temperature",
    "Thresholds",
    "Transport",
    "Vdev",
    "Verdict",
    "ZoneMode",
    "worst",
]
