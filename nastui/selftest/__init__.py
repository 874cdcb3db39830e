"""SMART self-tests: the schedule, starting them and following them to their result.

Layers inside (machine-checked in pyproject's import-linter contracts):
- `logic`: pure (like core): the policy and plan, the book of tests, smartctl's text, the view,
  and `tester.Tester`, what starts and follows a test on a box (the seam).
- `io`: starting and reading tests through smartctl, and the book's file (like control).
- `flow`: the daemon's cycle and duty (like daemon).
The simulator's tester is `nastui.sim.selftest`; the command `nastui.cli.cmd_selftest`;
validation `nastui.config.validate_selftest`.
"""
