# nastui lab: shell helpers for the host's scripts (sourced through /lab/guest/env.sh).
# Bays are numbered as in tests/lab/qemu.py: 1-6 AHCI ports 1-6, 7-12 SCSI targets 0-5.

bay_path() {  # the bay's /dev/disk/by-path link (the controller port: the bay itself)
    if [ "$1" -le 6 ]; then
        echo "/dev/disk/by-path/pci-0000:00:10.0-ata-$1"
    else
        echo "/dev/disk/by-path/pci-0000:00:11.0-scsi-0:0:$(($1 - 7)):0"
    fi
}

bay_dev() {  # the kernel's name of the disk in the bay now (/dev/sdX)
    readlink -f "$(bay_path "$1")"
}

bay_id() {  # the stable /dev/disk/by-id name of the disk in the bay now
    local dev link
    dev=$(bay_dev "$1")
    for link in /dev/disk/by-id/ata-* /dev/disk/by-id/scsi-0*; do
        case "$link" in *-part*) continue ;; esac
        if [ "$(readlink -f "$link")" = "$dev" ]; then echo "$link"; return 0; fi
    done
    echo "no by-id name for bay $1 ($dev)" >&2
    return 1
}

lab_reset() {  # undo every stack a scenario built: pools, mounts, LVM, dm, LUKS, md, signatures
    local - pool dev md round
    set +e  # best effort: whatever is not there is fine
    udevadm settle  # a disk just put back may be mid-way through udev's md auto-assembly
    for pool in $(zpool list -Ho name 2>/dev/null); do zpool destroy -f "$pool"; done
    for dev in $(awk '$1 ~ /^\/dev\/(sd|md|mapper|dm|zd|vd)/ {print $2}' /proc/mounts | sort -r); do
        umount -l "$dev"
    done
    vgchange -an >/dev/null 2>&1
    dmsetup remove_all --force >/dev/null 2>&1
    for round in 1 2; do  # twice: udev assembles arrays again from disks being wiped
        for md in $(awk '/^md/ {print $1}' /proc/mdstat); do mdadm --stop "/dev/$md" >/dev/null 2>&1; done
        for dev in /dev/sd[a-z] /dev/sd[a-z][a-z]; do
            [ -b "$dev" ] || continue
            mdadm --zero-superblock --force "$dev"?* "$dev" >/dev/null 2>&1
            wipefs -a -q "$dev"?* "$dev" >/dev/null 2>&1
            dd if=/dev/zero of="$dev" bs=1M count=4 conv=fsync status=none
            blockdev --rereadpt "$dev" 2>/dev/null
        done
        udevadm settle
    done
}
