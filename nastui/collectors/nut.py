"""UPSes read from NUT servers (`[[ups]]`), spoken to over NUT's network protocol on TCP 3493.

`read_vars` sends one `LIST VAR <ups>` (no login needed) and reads the answer under one timeout
for the whole exchange, with a cap on its size. `NutFleet` is a `FleetSource`: one `FleetHost`
per `[[ups]]` (profile "nut"), its snapshot holding the `Ups`, assessed by the same rules as the
SNMP UPS profiles (on battery WARNING, battery low CRITICAL, replace battery WARNING). A server
that does not answer keeps the last snapshot and sets `error`, so the fleet says it is down.

    fleet = NutFleet(config.ups, clock)
    hosts = await fleet.poll()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Sequence

from nastui.collectors.nut_parse import NutError, parse_list_var, status_of, ups_from_vars
from nastui.collectors.snmp_target import host_label
from nastui.config.remote import UpsConfig
from nastui.core.assess import assess
from nastui.core.clock import Clock
from nastui.model import CollectorError, FleetHost, HostSnapshot, Thresholds, UpsStatus

PROFILE = "nut"
MAX_LINES = 2_000  # a UPS has a few dozen variables; anything longer is not upsd
MAX_LINE = 4_096
_log = logging.getLogger(__name__)


def where(ups: UpsConfig) -> str:
    """ "ups@127.0.0.1:3493", as messages name a UPS."""
    return f"{ups.ups}@{host_label(ups.address, ups.port)}"


async def _answer(reader: asyncio.StreamReader, ups: str) -> list[str]:
    lines: list[str] = []
    while len(lines) < MAX_LINES:
        raw = await reader.readline()
        if not raw:
            break
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        lines.append(line)
        if line.startswith("ERR ") or line == f"END LIST VAR {ups}":
            break
    return lines


async def _exchange(ups: UpsConfig) -> list[str]:
    reader, writer = await asyncio.open_connection(ups.address, ups.port, limit=MAX_LINE)
    try:
        writer.write(f"LIST VAR {ups.ups}\n".encode())
        await writer.drain()
        lines = await _answer(reader, ups.ups)
        writer.write(b"LOGOUT\n")
        with contextlib.suppress(OSError):
            await writer.drain()
        return lines
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def read_vars(ups: UpsConfig) -> tuple[dict[str, str], int]:
    """The UPS's variables and how many answer lines were not understood.

    Raises:
        NutError: one line naming the UPS, what went wrong and the likely fix.
    """
    name = where(ups)
    try:
        async with asyncio.timeout(ups.timeout_s):
            lines = await _exchange(ups)
    except TimeoutError:
        raise NutError(
            f"{name}: no answer within {ups.timeout_s:g} s: upsd down or a firewall"
        ) from None
    except ConnectionRefusedError:
        raise NutError(
            f"{name}: connection refused: upsd is not running or not listening there "
            "(LISTEN in upsd.conf)"
        ) from None
    except (socket.gaierror, UnicodeError):
        raise NutError(f"{name}: unknown host name {ups.address}: check [[ups]] target") from None
    except (ValueError, asyncio.LimitOverrunError, asyncio.IncompleteReadError):
        raise NutError(f"{name}: an answer line longer than {MAX_LINE} bytes: not upsd") from None
    except OSError as exc:
        raise NutError(f"{name}: {exc.strerror or exc}") from None
    values, skipped = parse_list_var(lines, ups.ups, name)
    _log.debug("%s: %d variables, ups.status %r", name, len(values), values.get("ups.status"))
    return values, skipped


class NutFleet:
    """A `FleetSource` over NUT: every `[[ups]]` read at once.

    Args:
        upses: the configured UPSes, in the order `poll` returns them.
        clock: the time stamps.
        limits: thresholds the snapshots are assessed with (default: the built-in ones).
    """

    def __init__(
        self, upses: Sequence[UpsConfig], clock: Clock, *, limits: Thresholds | None = None
    ) -> None:
        self.upses = tuple(upses)
        self.clock = clock
        self.limits = limits if limits is not None else Thresholds()
        self._latest: dict[str, FleetHost] = {}
        self._on_battery_since: dict[str, float] = {}

    async def poll(self) -> tuple[FleetHost, ...]:
        """Read every UPS once, all at the same time; one `FleetHost` each, in order."""
        polled_at = self.clock.now()
        hosts = await asyncio.gather(*(self._poll(ups, polled_at) for ups in self.upses))
        self._latest = {host.name: host for host in hosts}
        return tuple(hosts)

    def close(self) -> None:
        """Nothing is kept open between polls."""

    async def _poll(self, ups: UpsConfig, polled_at: float) -> FleetHost:
        previous = self._latest.get(ups.name)
        try:
            values, skipped = await read_vars(ups)
        except NutError as exc:
            _log.info("%s", exc)
            return FleetHost(
                ups.name,
                host_label(ups.address, ups.port),
                PROFILE,
                snapshot=previous.snapshot if previous else None,
                polled_at=polled_at,
                last_contact=previous.last_contact if previous else None,
                error=str(exc),
                description=previous.description if previous else None,
            )
        now = self.clock.now()
        status = status_of(values.get("ups.status", "").split())
        state = ups_from_vars(ups.name, values, self._battery_time(ups.name, status, now))
        errors: tuple[CollectorError, ...] = ()
        if skipped:
            text = f"{where(ups)}: {skipped} line(s) of upsd's answer not understood"
            errors = (CollectorError(f"nut:{ups.name}", text),)
        raw = HostSnapshot(ups.name, now, ups=(state,), errors=errors, source=PROFILE)
        before = previous.snapshot if previous else None
        return FleetHost(
            ups.name,
            host_label(ups.address, ups.port),
            PROFILE,
            snapshot=assess(raw, self.limits, now, previous=before),
            polled_at=polled_at,
            last_contact=now,
            error=None,
            description=state.model or f"NUT {where(ups)}",
        )

    def _battery_time(self, name: str, status: UpsStatus, now: float) -> float | None:
        """Seconds since this poller first saw the UPS on battery; None on mains, and at that
        first sighting (how long it had been on battery then is not known)."""
        if status not in (UpsStatus.ON_BATTERY, UpsStatus.BATTERY_LOW):
            self._on_battery_since.pop(name, None)
            return None
        since = self._on_battery_since.setdefault(name, now)
        return now - since if now > since else None
