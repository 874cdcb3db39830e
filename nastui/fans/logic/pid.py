"""A PID controller that holds the hottest drive at a set point (pure).

Error is measured minus set point, so a drive that is too hot asks for more duty. Anti-windup:
the integral stops growing while the output is saturated in the direction it would push, and is
clamped so it can never hold more than the whole output range. The derivative acts on the
measurement, not the error, so moving the set point does not kick the fans.
"""

from __future__ import annotations

from dataclasses import dataclass

from nastui.fans.logic.curve import clamp


@dataclass(frozen=True, slots=True)
class PidGains:
    """Gains, in duty percent per degree (kp), per degree-second (ki), per degree/second (kd)."""

    kp: float
    ki: float
    kd: float = 0.0


@dataclass(frozen=True, slots=True)
class PidState:
    """What the controller remembers between steps."""

    integral: float = 0.0
    last_measured: float | None = None


def pid_step(
    state: PidState,
    *,
    setpoint: float,
    measured: float,
    dt: float,
    gains: PidGains,
    out_min: float,
    out_max: float,
) -> tuple[float, PidState]:
    """One control step: the duty to apply and the next state.

    Args:
        state: from the previous step (`PidState()` to start).
        setpoint: target temperature.
        measured: current temperature.
        dt: seconds since the previous step (> 0).
        gains: kp, ki, kd.
        out_min, out_max: duty bounds.
    """
    if dt <= 0:
        raise ValueError("dt must be positive")
    error = measured - setpoint
    derivative = 0.0
    if state.last_measured is not None:
        derivative = (measured - state.last_measured) / dt
    proportional = gains.kp * error
    candidate = state.integral + gains.ki * error * dt
    unclamped = proportional + candidate + gains.kd * derivative
    saturated_high = unclamped > out_max and error > 0
    saturated_low = unclamped < out_min and error < 0
    integral = state.integral if (saturated_high or saturated_low) else candidate
    integral = clamp(integral, out_min - out_max, out_max - out_min)
    output = clamp(proportional + integral + gains.kd * derivative, out_min, out_max)
    return output, PidState(integral, measured)
