"""The drive swap: replacing a failing drive in a pool, from the plan to the rebuilt pool.

Layers inside (machine-checked in pyproject's import-linter contracts):
- `logic`: pure (like core): names, plan, redundancy, the state machine, checks, alerts, codec,
  the argv of its commands, and `hands.SwapHands`, what it does to a box (the seam).
- `io`: the reads and writes it makes (like collectors/control): `machine.MachineSwap`, the real
  machine's hands (the commands it runs, the sysfs probe of a new drive, the burn-in behind the
  bench guard), and the swap file.
- `flow`: the steps both front ends drive (like daemon): open the box, start, follow, burn in,
  replace, abort; the status the monitoring daemon and `status` show.
- `view`: `nastui swap` as text and JSON, for the CLI and the interface.
The simulator's hands (`SimSwap`, and the operator's on the demo box) are `nastui.sim.swap`;
the command is `nastui.cli.cmd_swap`, the screen `nastui.ui.screens.swap`.
"""
