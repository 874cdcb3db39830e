"""ZFS pools: `collector` runs `zpool`/`zfs`; `text`, `scan`, `json_status` and `lists` parse
their output (pure)."""
