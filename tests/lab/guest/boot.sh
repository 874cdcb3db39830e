#!/bin/bash
# nastui lab: the guest's first process (PID 1), in the host's root under a tmpfs overlay (writes
# vanish at power-off). Loads the drivers, starts udev, loads ZFS (the userland and module named in
# /lab/guest/zfs.env when the host asks for another OpenZFS), says "ready", then serves the
# host's requests: each /lab/req/N is a bash script run in the background, its stdout, stderr
# and exit status written to /lab/res/N.{out,err,rc} (.rc last). /lab/stop ends the loop and
# powers the guest off (busybox: systemd's poweroff needs systemd running).
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
log() { echo "lab boot: $*" >/dev/console; echo "$(date +%s.%N) $*" >>/lab/boot.log; }
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /dev/pts /dev/shm /run/lock
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
hostname nastui-lab
rm -f /etc/mdadm/mdadm.conf /etc/zfs/zpool.cache
log "drivers"
modprobe -a virtio_scsi sd_mod sg ahci loop raid0 raid1 raid456 raid10 dm_mod dm_crypt \
    dm_mirror btrfs
if [ -r /lab/guest/zfs.env ]; then  # another OpenZFS: its programs, libraries and modules
    . /lab/guest/zfs.env
    log "OpenZFS userland from ${ZFS_ROOT}"
    for d in usr/sbin usr/bin usr/lib/x86_64-linux-gnu usr/lib/python3; do
        [ -d "${ZFS_ROOT}/$d" ] && cp -a "${ZFS_ROOT}/$d/." "/$d/"
    done
    # insmod in dependency order: depmod over every module of the kernel takes minutes here
    for m in ${ZFS_MODULES}; do
        insmod "${ZFS_ROOT}/usr/lib/modules/$(uname -r)/updates/dkms/$m.ko" || log "insmod $m failed"
    done
fi
log "udev"
/lib/systemd/systemd-udevd --daemon --resolve-names=never
udevadm trigger --action=add --subsystem-match=block
udevadm settle --timeout=60
log "zfs"
modprobe zfs && log "zfs $(cat /sys/module/zfs/version)"
mkdir -p /lab/req /lab/res
log "ready"
echo ready >/lab/ready
n=1
while [ ! -e /lab/stop ]; do
    if [ -e "/lab/req/$n" ]; then
        (
            cd /root 2>/dev/null || cd /
            bash "/lab/req/$n" >"/lab/res/$n.out" 2>"/lab/res/$n.err" </dev/null
            echo $? >"/lab/res/$n.rc.part"
            mv "/lab/res/$n.rc.part" "/lab/res/$n.rc"
        ) &
        n=$((n + 1))
    else
        sleep 0.1
    fi
done
log "stop"
zpool export -a 2>/dev/null
sync
/bin/busybox poweroff -f
