"""The domain model: frozen dataclasses every layer exchanges. Standard library only.

Unknown is `None`, never 0.
"""

from __future__ import annotations

from nastui.model.actions import LocateResult, ScrubAction, ScrubResult
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
from nastui.model.fleet import FleetHost
from nastui.model.health import UNASSESSED, Acknowledgement, Health, Reason, Verdict, worst
from nastui.model.limits import AttributeLimit, TempLimits, Thresholds
from nastui.model.pool import Pool, PoolKind, PoolState, ScanKind, ScanProgress, ScanState, Vdev
from nastui.model.snapshot import CollectorError, HostSnapshot
from nastui.model.ups import Ups, UpsStatus

__all__ = [
    "UNASSESSED",
    "Acknowledgement",
    "Alert",
    "AttributeLimit",
    "Bay",
    "BayBinding",
    "BaySlot",
    "BenchRun",
    "BenchSample",
    "BenchSettings",
    "BenchTarget",
    "Chassis",
    "ChassisLayout",
    "CollectorError",
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
    "TempSource",
    "Temperature",
    "Thresholds",
    "Transport",
    "Ups",
    "UpsStatus",
    "Vdev",
    "Verdict",
    "ZoneMode",
    "worst",
]
