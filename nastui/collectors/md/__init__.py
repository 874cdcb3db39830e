"""md RAID arrays: `mdstat` parses /proc/mdstat (pure); `collector` adds sysfs and builds pools."""
