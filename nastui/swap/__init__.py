"""The drive swap: replacing a failing drive in a pool, from the plan to the rebuilt pool.

Layers inside (machine-checked in pyproject's import-linter contracts):
- `logic`: pure (like core): names, plan, redundancy, the state machine, checks, alerts, codec.
- `io`: the reads and writes it makes (like collectors/control): the commands it runs, the swap
  file, the sysfs probe of a new drive, the burn-in behind the bench guard.
- `flow`: the steps both front ends drive (like daemon): open the box, start, follow, burn in,
  replace, abort; the status the monitoring daemon and `status` show.
- `view`: `nastui swap` as text and JSON, for the CLI and the interface.
The simulator's side (the operator's hands on the demo box) is `nastui.sim.swap`; the command is
`nastui.cli.cmd_swap`, the screen `nastui.ui.screens.swap`.
"""
