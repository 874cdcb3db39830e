"""Fan control: zones, curves and PID, the drivers that write, and `nastui fand`.

Layers inside (machine-checked in pyproject's import-linter contracts):
- `logic`: pure (like core): curves with hysteresis, PID, zones, the preview, curve editing,
  the dashboard's RPM deadband.
- `io`: the write side (like control): hwmon PWM, Supermicro and Dell IPMI, a command, the
  simulator's fans, and `FanWriter`, the one audited path every write takes.
- `flow`: `nastui fand` (like daemon): the control loop, the rig of fans, the bounded reads,
  the rescue to full speed, the watchdog.
The read side stays with the other sensors, as every front end shows fans whether or not fand
runs: `nastui.collectors.fans` (FanCollector) and `nastui.collectors.hwmon_fans`. Validation
is `nastui.config.validate_fans`; the screen `nastui.ui.screens.fans`.
"""
