#!/bin/bash
# The NAS lab's host side, installed as root and only what is missing (`make lab-setup`):
#  - Debian's contrib component for bookworm and bookworm-backports (ZFS lives in contrib), in
#    /etc/apt/sources.list.d/nastui-lab.sources, on the same mirror as the system's sources;
#  - QEMU, Debian's kernel image and headers (booted only in the guest), busybox, mdadm, LVM,
#    cryptsetup, smartmontools, hdparm, btrfs-progs;
#  - OpenZFS from bookworm-backports (zfs-dkms builds the module for every installed kernel's
#    headers: about 6 minutes of CPU once, kept in /lib/modules/<kernel>/updates/dkms), and
#    Debian's python3-pyzfs (libzfs_core for `nastui scrub`);
#  - with LAB_ZFS21=1, OpenZFS 2.1.11 from bookworm beside it, unpacked and built into
#    /var/cache/nastui-lab/zfs-2.1.11/root (never installed: the guest copies it over its own
#    root when a test asks for 2.1), for `make lab-full`.
# Not root, or no apt: it says what is missing and exits 0 (the lab tests then say it too).
set -euo pipefail

PACKAGES="qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static mdadm lvm2
cryptsetup smartmontools hdparm btrfs-progs systemd udev kmod dkms python3"
ZFS_PACKAGES="zfs-dkms zfsutils-linux python3-pyzfs"
ZFS_SUITE=${LAB_ZFS_SUITE:-bookworm-backports}
ZFS21_VERSION=2.1.11
ZFS21_DIR=/var/cache/nastui-lab/zfs-$ZFS21_VERSION
SOURCES=/etc/apt/sources.list.d/nastui-lab.sources
export DEBIAN_FRONTEND=noninteractive

say() { echo "lab-setup: $*"; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

missing=""
for p in $PACKAGES $ZFS_PACKAGES; do installed "$p" || missing="$missing $p"; done
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    [ -z "$missing" ] || say "missing Debian packages:$missing (as root: make lab-setup)"
    exit 0
fi

if [ ! -e "$SOURCES" ]; then
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    mirror=${mirror:-http://deb.debian.org/debian}
    say "adding contrib and bookworm-backports ($mirror) in $SOURCES"
    cat >"$SOURCES" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm
Components: contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $mirror
Suites: bookworm-backports
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    missing="$missing refresh"
fi

if [ -n "$missing" ]; then
    apt-get update -qq
    base=""
    for p in $PACKAGES; do installed "$p" || base="$base $p"; done
    if [ -n "$base" ]; then
        say "installing$base"
        apt-get install -y -qq --no-install-recommends $base >/dev/null
    fi
    zfs=""
    for p in $ZFS_PACKAGES; do installed "$p" || zfs="$zfs $p"; done
    if [ -n "$zfs" ]; then
        say "installing$zfs from $ZFS_SUITE (zfs-dkms builds the module: minutes)"
        start=$(date +%s)
        nice apt-get install -y -qq --no-install-recommends -t "$ZFS_SUITE" $zfs >/dev/null
        say "OpenZFS installed and built in $(($(date +%s) - start)) s"
    fi
fi

# The guest's kernel: the newest Debian amd64 kernel installed. DKMS builds for every kernel
# whose headers are present, but a kernel installed after zfs-dkms needs its own build.
kver=$(ls /lib/modules | grep -- '-amd64$' | sort -V | tail -1)
if ! ls /lib/modules/"$kver"/updates/dkms/zfs.ko* >/dev/null 2>&1; then
    say "building OpenZFS for $kver"
    nice dkms autoinstall -k "$kver"
fi

if [ "${LAB_ZFS21:-0}" = 1 ] && [ ! -e "$ZFS21_DIR/root/usr/sbin/zpool" ]; then
    say "OpenZFS $ZFS21_VERSION (bookworm) beside it, in $ZFS21_DIR"
    rm -rf "$ZFS21_DIR" && mkdir -p "$ZFS21_DIR/debs" "$ZFS21_DIR/root" "$ZFS21_DIR/build"
    (cd "$ZFS21_DIR/debs" && apt-get download -qq -o APT::Sandbox::User=root zfs-dkms/bookworm zfsutils-linux/bookworm \
        libzfs4linux/bookworm libzpool5linux/bookworm libnvpair3linux/bookworm \
        libuutil3linux/bookworm python3-pyzfs/bookworm)
    for deb in "$ZFS21_DIR"/debs/*.deb; do dpkg-deb -x "$deb" "$ZFS21_DIR/root"; done
    # Merged /usr on the guest: the packages' /sbin and /lib go under /usr.
    for d in sbin bin lib; do
        if [ -d "$ZFS21_DIR/root/$d" ]; then
            mkdir -p "$ZFS21_DIR/root/usr/$d"
            cp -a "$ZFS21_DIR/root/$d/." "$ZFS21_DIR/root/usr/$d/"
            rm -rf "${ZFS21_DIR:?}/root/$d"
        fi
    done
    src="$ZFS21_DIR/root/usr/src/zfs-$ZFS21_VERSION"
    cp -a "$src/." "$ZFS21_DIR/build/"
    start=$(date +%s)
    (cd "$ZFS21_DIR/build" && nice ./configure -q --with-config=kernel \
        --with-linux="/lib/modules/$kver/source" --with-linux-obj="/lib/modules/$kver/build" &&
        nice make -s -j"$(nproc)") >"$ZFS21_DIR/build.log" 2>&1 ||
        { say "OpenZFS $ZFS21_VERSION module build failed: see $ZFS21_DIR/build.log"; exit 1; }
    mods="$ZFS21_DIR/root/usr/lib/modules/$kver/updates/dkms"
    mkdir -p "$mods"
    find "$ZFS21_DIR/build/module" -name '*.ko' -exec cp {} "$mods/" \;
    rm -rf "$src" "$ZFS21_DIR/build"
    say "OpenZFS $ZFS21_VERSION module built in $(($(date +%s) - start)) s"
fi
