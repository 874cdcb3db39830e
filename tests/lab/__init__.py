"""The NAS lab: nastui against a real kernel with OpenZFS, md, device-mapper, partitions, ATA
SMART and hot-swap bays, in a QEMU guest (see README.md, "Lab"; `make lab`)."""
