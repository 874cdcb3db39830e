"""btrfs filesystems: `collector` runs btrfs-progs; `text`, `scrub` parse its output and `pool`
turns it into pools (pure)."""
