"""The swap's reads and writes: the commands it runs, its state file, the new drive's
sysfs, its burn-in."""
